# Copyright (c) robustdet contributors. All rights reserved.
"""Helpers shared by the command-line tools under ``tools/``."""
import argparse
import functools
import gc
import os
import sys
from typing import Any, Callable, List, Optional, Sequence, Tuple

from .dist import (DEFAULT_DIST_TIMEOUT, LAUNCHERS, check_same_job,
                   init_distributed, prepare_runner_cfg)
from .errors import RobustDetError
from .io import sha256_file, sha256_json
from .lifetime import children_die_with_this_process
from .watchdog import (DEFAULT_STALL_TIMEOUT, describe_failure, finished,
                       is_distributed_failure, leave, watchdog_fired)


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line
    (``error: ...``, exit status 2) without the usage block."""

    def error(self, message: str):
        print(f'error: {message} (see --help)', file=sys.stderr)
        sys.exit(2)


def add_runner_args(parser: argparse.ArgumentParser,
                    checkpoint: bool = True) -> None:
    """Add the arguments every runner tool shares: ``--cfg-options``,
    ``--launcher``, ``--dist-timeout``, ``--local-rank`` and, for tools
    that read a checkpoint, ``--unsafe-load``.

    Args:
        parser (argparse.ArgumentParser): The tool's parser.
        checkpoint (bool): Whether the tool loads a checkpoint.
    """
    from mmengine.config import DictAction
    if checkpoint:
        parser.add_argument(
            '--unsafe-load',
            action='store_true',
            help='unpickle the checkpoint fully (weights_only=False); this '
            'can run arbitrary code, use it only for trusted files')
    parser.add_argument(
        '--cfg-options',
        nargs='+',
        action=DictAction,
        help='override config settings, xxx=yyy format')
    add_launcher_args(parser)


def add_launcher_args(parser: argparse.ArgumentParser) -> None:
    """Add ``--launcher``, ``--dist-timeout`` and ``--local-rank`` (read
    by :func:`init_launcher`).

    Args:
        parser (argparse.ArgumentParser): The tool's parser.
    """
    parser.add_argument(
        '--launcher',
        choices=list(LAUNCHERS),
        default='none',
        help='job launcher: none (one process), pytorch (torchrun), slurm '
        '(srun) or mpi (mpirun); see tools/dist_*.sh and tools/slurm_*.sh')
    parser.add_argument(
        '--dist-timeout',
        type=float,
        default=None,
        metavar='SECONDS',
        help='with a launcher: how long a rank waits for the others before '
        'the job stops (default: env_cfg.dist_cfg.timeout, else '
        f'{DEFAULT_DIST_TIMEOUT})')
    parser.add_argument(
        '--dist-stall-timeout',
        type=float,
        default=None,
        metavar='SECONDS',
        help='with a launcher: how long another rank may go without a '
        'heartbeat (killed, stopped or frozen) before this one stops too '
        f'(default {DEFAULT_STALL_TIMEOUT:g})')
    parser.add_argument('--local_rank', '--local-rank', type=int, default=0)


def init_launcher(args: argparse.Namespace,
                  cfg: Any = None,
                  files: Sequence[str] = ()) -> Tuple[int, int]:
    """Join the launched job's processes before the tool builds a Runner
    (:func:`robustdet.utils.dist.init_distributed`), set the config for a
    launched Runner (:func:`robustdet.utils.dist.prepare_runner_cfg`), and
    refuse ranks started with other arguments, another config or other
    ``files`` (:func:`robustdet.utils.dist.check_same_job`). The standard
    output of ranks other than 0 is discarded.

    Args:
        args (argparse.Namespace): The tool's arguments, with ``launcher``
            and ``dist_timeout`` (:func:`add_runner_args`).
        cfg (mmengine.Config, optional): The tool's config (modified),
            if it has one.
        files (Sequence[str]): Files every rank must read alike (the
            checkpoint), compared by their sha256.

    Returns:
        tuple[int, int]: This process's rank and the world size.
    """
    dist_cfg = {}
    if cfg is not None:
        dist_cfg = (cfg.get('env_cfg') or {}).get('dist_cfg') or {}
    asked = (getattr(args, 'cfg_options', None)
             or {}).get('env_cfg.dist_cfg.backend')
    rank, world_size = init_distributed(
        args.launcher, dist_cfg, args.dist_timeout, asked,
        getattr(args, 'dist_stall_timeout', None))
    if cfg is not None:
        prepare_runner_cfg(cfg, args.launcher)
    if rank != 0:
        # Output comes from rank 0 only (what pycocotools prints on every
        # rank included); errors and warnings still reach stderr.
        sys.stdout = open(os.devnull, 'w')
    if world_size > 1:
        job = {k: v for k, v in vars(args).items() if k != 'local_rank'}
        if cfg is not None:
            job['config_sha256'] = sha256_json(cfg.to_dict())
        for path in files:
            job[f'sha256 of {path}'] = sha256_file(path)
        check_same_job(job)
    return rank, world_size


def default_work_dir(config: str, *parts: str) -> str:
    """``work_dirs/<config file name without .py>/<parts...>``, mmdet's
    convention for a tool's default work dir."""
    return os.path.join('work_dirs',
                        os.path.splitext(os.path.basename(config))[0],
                        *parts)


def add_pmk_args(parser: argparse.ArgumentParser) -> None:
    """Add the pm-k options shared by ``eval_pmk.py`` and ``test_pmk.py``:
    ``--k``, ``--judge`` and ``--vid-iou`` (read ``--k`` with
    :func:`pmk_ks`)."""
    parser.add_argument(
        '--k', type=int, default=10, help='largest k (default: 10)')
    parser.add_argument(
        '--judge',
        choices=['frame', 'anchor'],
        default='frame',
        help='classification: judge each frame against its own labels '
        "(frame, ImageNet-Vid-Robust) or the anchor's (anchor, YTBB-Robust)")
    parser.add_argument(
        '--vid-iou',
        action='store_true',
        help="ImageNet VID's lower IoU threshold for small ground truth "
        'boxes: min(0.5, wh / ((w+10)(h+10))); not COCOeval then')


def add_video_clip_args(parser: argparse.ArgumentParser) -> None:
    """Add how video corruptions cut clips, shared by ``test_robust.py``
    and ``corrupt_video_dataset.py`` (same settings, same pixels):
    ``--clip-len``, ``--clip-mode``, ``--short-clips``."""
    from ..apis.results import DEFAULT_VIDEO_CLIPS
    from ..datasets.video_clips import CLIP_MODES, SHORT_CLIPS
    group = parser.add_argument_group('video corruptions',
                                      'how clips are cut from the videos')
    group.add_argument(
        '--clip-len',
        type=int,
        default=DEFAULT_VIDEO_CLIPS['clip_len'],
        metavar='T',
        help='frames per clip (default: %(default)s)')
    group.add_argument(
        '--clip-mode',
        choices=CLIP_MODES,
        default=DEFAULT_VIDEO_CLIPS['clip_mode'],
        help='segment: consecutive clips from the first frame of each '
        "video; anchor: the clip centred on a neighbour set's anchor; "
        'auto (default): anchor for neighbour sets, else segment')
    group.add_argument(
        '--short-clips',
        choices=SHORT_CLIPS,
        default=DEFAULT_VIDEO_CLIPS['short_clips'],
        help='a clip shorter than a corruption needs: error (default) or '
        'pad (repeat its last frame)')


def add_depth_args(parser: argparse.ArgumentParser) -> None:
    """Add where the depth-aware corruptions (fog_3d, near_focus,
    far_focus) read each image's depth, shared by ``test_robust.py`` and
    ``corrupt_dataset.py``: ``--depth cityscapes`` or ``--depth-folder``
    with ``--depth-suffix``, ``--depth-scale`` and ``--depth-inverse``
    (:class:`robustdet.datasets.depth.DepthSource`)."""
    # Deferred: utils/ stands below corruptions/.
    from ..corruptions.table import DEPTH_CALIBRATIONS
    group = parser.add_argument_group(
        'depth', 'per-image depth of fog_3d, near_focus and far_focus')
    group.add_argument(
        '--depth',
        choices=('cityscapes', ),
        help='cityscapes: the disparity/ and camera/ folders of the '
        'Cityscapes tree the images are in (metric depth)')
    group.add_argument(
        '--depth-folder',
        metavar='DIR',
        help='a folder of depth maps that mirrors the image folder '
        '(relative to the data root unless absolute)')
    group.add_argument(
        '--depth-suffix',
        metavar='SUFFIX',
        help="with --depth-folder: what replaces an image's extension, "
        "e.g. .npy or _depth.png")
    group.add_argument(
        '--depth-scale',
        type=float,
        metavar='S',
        help='with --depth-folder: depth = stored value × S (e.g. 0.001 '
        'for PNGs in millimetres)')
    group.add_argument(
        '--depth-inverse',
        action='store_true',
        help='with --depth-folder: the maps hold inverse depth (e.g. '
        'MiDaS): depth = 1 / (value × S)')
    group.add_argument(
        '--depth-calibration',
        choices=DEPTH_CALIBRATIONS,
        help='how depth is normalised: taskonomy (default for metric '
        'depth: as 3DCC, metres / 15.625), midas (default with '
        '--depth-inverse: 3DCC on MiDaS output) or '
        'percentile (per image: its 99th percentile is the far end)')


def depth_from_args(args: argparse.Namespace) -> Optional[dict]:
    """The :class:`~robustdet.datasets.depth.DepthSource` config of
    :func:`add_depth_args`' arguments (checked), or None."""
    from ..datasets.depth import DepthSource
    folder_args = [
        f'--depth-{k}' for k, v in (('suffix', args.depth_suffix),
                                   ('scale', args.depth_scale),
                                   ('inverse', args.depth_inverse)) if v
    ]
    if args.depth and args.depth_folder:
        raise RobustDetError('give --depth cityscapes or --depth-folder, '
                             'not both')
    calibration = getattr(args, 'depth_calibration', None)
    if args.depth_folder:
        return DepthSource.from_cfg(
            dict(kind='folder', root=args.depth_folder,
                 suffix=args.depth_suffix, scale=args.depth_scale,
                 inverse=args.depth_inverse,
                 calibration=calibration)).to_cfg()
    if folder_args:
        raise RobustDetError(f'{", ".join(folder_args)} need(s) '
                             '--depth-folder')
    if args.depth:
        return DepthSource.from_cfg(
            dict(kind=args.depth, calibration=calibration)).to_cfg()
    if calibration is not None:
        raise RobustDetError('--depth-calibration needs --depth or '
                             '--depth-folder')
    return None


def add_show_args(parser: argparse.ArgumentParser) -> None:
    """Add the pictures of the test tools (``test_robust.py``,
    ``test_shift.py``, ``test_pmk.py``): ``--show-dir``, ``--show-num``
    and ``--show-score-thr`` (read with :func:`show_from_args`)."""
    group = parser.add_argument_group(
        'pictures', 'ground truth and predictions on the first images of '
        'the test set, in every cell, as the model saw them')
    group.add_argument(
        '--show-dir',
        metavar='DIR',
        help='draw pictures into DIR (outside the dataset); the numbers '
        'do not change')
    group.add_argument(
        '--show-num',
        type=int,
        metavar='N',
        help='with --show-dir: how many images, the first of the test set '
        '(default: 5)')
    group.add_argument(
        '--show-score-thr',
        type=float,
        metavar='THR',
        help='with --show-dir: draw the predictions scored at least THR '
        '(default: 0.3)')


def show_from_args(args: argparse.Namespace) -> Optional[dict]:
    """The show settings of :func:`add_show_args`' arguments, checked, as
    the fields of :class:`robustdet.engine.ShowSettings` (None without
    ``--show-dir``).

    Raises:
        RobustDetError: ``--show-num`` or ``--show-score-thr`` without
            ``--show-dir``, a ``--show-num`` below 1 or a threshold
            outside [0, 1].
    """
    if not args.show_dir:
        given = [
            flag for flag, value in (('--show-num', args.show_num),
                                     ('--show-score-thr',
                                      args.show_score_thr))
            if value is not None
        ]
        if given:
            raise RobustDetError(f'{" and ".join(given)} need(s) --show-dir')
        return None
    show = dict(out_dir=args.show_dir)
    if args.show_num is not None:
        if args.show_num < 1:
            raise RobustDetError(
                f'--show-num must be at least 1, got {args.show_num}')
        show['num'] = args.show_num
    if args.show_score_thr is not None:
        if not 0 <= args.show_score_thr <= 1:
            raise RobustDetError('--show-score-thr must be in [0, 1], got '
                                 f'{args.show_score_thr}')
        show['score_thr'] = args.show_score_thr
    return show


def pmk_ks(args: argparse.Namespace) -> range:
    """The ks 0..``--k``; a negative ``--k`` is a user error."""
    if args.k < 0:
        raise RobustDetError(f'--k must be >= 0, got {args.k}')
    return range(args.k + 1)


_frozen = False


def freeze_imports() -> None:
    """Take what the process holds now (the imports: torch and mmdet make
    over 400,000 objects) out of the garbage collector's scans, once per
    process: mmengine's ``gc.collect()`` for every dataset it builds and
    every full collection of the run would walk them again (0.4 s each
    on a 2-core EPYC). The young generations are collected first, so
    that little garbage is frozen; what the tool makes later is collected
    as usual. Later calls do nothing (a tool's ``main`` called again in
    the same process must not freeze the garbage of the first call).
    """
    global _frozen
    if _frozen:
        return
    gc.collect(1)
    gc.freeze()
    _frozen = True


def cli_entry(main: Callable[[], Optional[int]]) -> Callable[[], None]:
    """Wrap a tool's ``main`` so user errors become one line on stderr.

    :class:`RobustDetError` prints ``error: <message>`` and exits with
    status 2; a failed collective operation of a launched job (a rank
    stopped, or did not answer in time) or the heartbeat watchdog
    (another rank stopped beating) prints which rank and exits with
    status 3; Ctrl-C exits with status 130. A ``main`` that returns tells
    the other ranks that this one finished. Anything else keeps its
    traceback, since it is a bug.

    Args:
        main (Callable): The tool's main function; its return value is the
            exit status (None means 0).

    Returns:
        Callable: A function suitable for ``if __name__ == '__main__'``.
    """

    @functools.wraps(main)
    def wrapper() -> None:
        children_die_with_this_process()
        freeze_imports()
        try:
            status = main()
            finished()
        except RobustDetError as e:
            print(f'error: {e}', file=sys.stderr)
            sys.exit(2)
        except KeyboardInterrupt:
            stopped = watchdog_fired()
            if stopped:
                leave()
                print(f'error: {stopped}', file=sys.stderr)
                sys.exit(3)
            print('interrupted', file=sys.stderr)
            sys.exit(130)
        except RuntimeError as e:
            try:
                if not is_distributed_failure(e):
                    raise
                message = watchdog_fired() or describe_failure(e)
            except KeyboardInterrupt:
                # The watchdog fired while the failure was being looked
                # into (it watches for the same stopped rank).
                message = watchdog_fired()
                if message is None:
                    print('interrupted', file=sys.stderr)
                    sys.exit(130)
            leave()
            print(f'error: {message}', file=sys.stderr)
            sys.exit(3)
        sys.exit(status or 0)

    return wrapper


def check_file(path: str, what: str) -> str:
    """Return ``path`` if it is an existing file, else raise a user error.

    Args:
        path (str): The path given by the user.
        what (str): What the file is, for the message (e.g. ``'config'``).

    Returns:
        str: The same path.
    """
    if not os.path.exists(path):
        raise RobustDetError(f'{what} file not found: {path}')
    if not os.path.isfile(path):
        raise RobustDetError(f'{what} path is not a file: {path}')
    return path


def load_config(path: str, cfg_options: Optional[dict] = None,
                require: Sequence[str] = ()):
    """Load an mmengine config with user-facing errors.

    Args:
        path (str): Path of the config file.
        cfg_options (dict, optional): ``--cfg-options`` overrides.
        require (Sequence[str]): Top-level keys the tool needs, e.g.
            ``('test_dataloader', 'test_evaluator')``.

    Returns:
        FormattedOnceConfig: The loaded config (an mmengine ``Config``
        whose formatted text is made once, not at each of the runner's
        four requests; the YAML files mmengine reads to find ``mmdet::``
        bases are parsed once per process).
    """
    from mmengine.config import Config

    from .config_text import format_once, yaml_parsed_once
    check_file(path, 'config')
    try:
        with yaml_parsed_once():
            cfg = format_once(Config.fromfile(path))
    except (SyntaxError, ImportError, KeyError, FileNotFoundError,
            ValueError) as e:
        raise RobustDetError(
            f'cannot load config {path}: {type(e).__name__}: '
            f'{str(e).splitlines()[0] if str(e) else ""}') from e
    if cfg_options:
        cfg.merge_from_dict(cfg_options)
    for key in require:
        if cfg.get(key) is None:
            raise RobustDetError(
                f'config {path} has no {key}; robustdet needs a config with '
                f'{", ".join(require)} (e.g. one inheriting '
                'configs/_base_/datasets/*)')
    return cfg


def parse_run_args(items: Sequence[str]) -> List[Tuple[Optional[str], str]]:
    """Split ``PATH`` and ``NAME=PATH`` arguments.

    An argument naming an existing file is a path even if it holds a
    ``=``.

    Args:
        items (Sequence[str]): The arguments.

    Returns:
        list[tuple]: ``(name or None, path)`` pairs.
    """
    pairs = []
    for item in items:
        if '=' in item and not os.path.exists(item):
            name, _, path = item.partition('=')
            if not name or not path:
                raise RobustDetError(
                    f'a run is PATH or NAME=PATH, got {item!r}')
            pairs.append((name, path))
        else:
            pairs.append((None, item))
    return pairs
