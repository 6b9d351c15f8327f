# Copyright (c) robustdet contributors. All rights reserved.
"""The corruption benchmark loop behind ``tools/test_robust.py``.

The runner and model are built once; the clean set is evaluated once; each
(corruption, severity) cell is one evaluation with its own evaluator. The
cells are evaluated K at a time (``cells_per_pass``): each image is loaded
once per pass, its K variants go through the model one cell at a time
(see :mod:`robustdet.engine`), and one dataloader serves every pass,
so its workers start once. The results file is rewritten atomically after
every pass, so a run killed at any moment resumes where it stopped and ends
with the same numbers.

Clip corruptions of :mod:`robustdet.video` (``--corruptions video``) are
cells of the same grid: their images come from
:class:`~robustdet.datasets.MultiVideoCorruptedDataset` (each clip of each
video corrupted once). When one of them moves the ground truth (camera
motion), every cell of the run is scored against the ground truth the
dataset delivers (:func:`pipeline_ground_truth_cfg`), recorded as
``ground_truth: 'pipeline'`` in the results.

With ``backend='torch'`` the images are corrupted on the model's device
(a GPU when the model runs on one): the dataloader only decodes them, at
their original resolution (:class:`DeferredCorruptionDataset`), and the
model's data preprocessor, wrapped in
:class:`~robustdet.models.CorruptingDataPreprocessor`, corrupts, resizes
and normalises each batch (:func:`device_corruption_cfgs`).

With show settings (``--show-dir``), the first images of the test set are
drawn in every cell evaluated, on their pixels as the cell's model saw
them (:class:`~robustdet.engine.ShowHook`), then a strip per corruption
and image; the results do not depend on it.
"""
import copy
import logging
import os.path as osp
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from mmdet.registry import DATASETS
from mmengine.dataset import BaseDataset
from mmengine.device import get_device
from mmengine.dist import broadcast_object_list, is_main_process
from mmengine.logging import print_log
from mmengine.registry import LOOPS
from mmengine.runner import TestLoop

from ..corruptions import (CLEAN_SEVERITY, DEFAULT_BACKEND, NEEDS_DEPTH,
                           SEVERITIES, resolve_corruptions)
from ..corruptions.grid import (Cell, cell_key, check_cells_per_pass,
                                grid_cells, plan_passes, shard_cells)
from ..corruptions.region import check_region
from ..datasets import DeferredCorruptionDataset, MultiVideoCorruptedDataset
from ..datasets.depth import DepthSource
from ..datasets.video_clips import check_clip_settings
from ..engine import (CellLoopRunner, CellResult, PassRunner, ShowHook,
                      ShowItem, ShowSettings, cell_dataloader_cfg, cell_folder,
                      choose_items, grid_images, write_severity_strips)
from ..models import find_corrupting_preprocessor
from ..utils.checkpoint import load_checkpoint_file
from ..utils.deprecation import moved_names
from ..utils.dist import check_same_job, rank_and_world
from ..utils.errors import RobustDetError
from ..utils.io import sha256_file
from ..video.table import (CLIP_CORRUPTION_NAMES, VIDEO_SELECTIONS,
                           is_video_corruption, moves_boxes,
                           resolve_clip_corruptions)
from .bad_images import find_bad_images
from .job_configs import (device_corruption_cfgs, pipeline_ground_truth_cfg,
                          unwrap_corrupted)
from .results import (DEFAULT_VIDEO_CLIPS, check_same_run, config_fingerprint,
                      drop_stale_codec_cells, has_cell, load_results,
                      new_results, record_cell, results_path, save_results)
from .testing import build_test_runner
from .training_record import run_training_record


def _resolve_device(device: str) -> Any:
    # Deferred: the torch backend imports the fast backend, whose numba
    # kernels load (or, on a fresh install, compile) on import; only
    # --backend torch needs them.
    from ..corruptions.torch_backend import resolve_device
    return resolve_device(device)


def resolve_grid_corruptions(tokens: Sequence[str]) -> List[str]:
    """Expand ``--corruptions``: image selection words and names
    (:func:`~robustdet.corruptions.resolve_corruptions`), ``video``,
    ``video-<family>`` and clip corruption names.

    Args:
        tokens (Sequence[str]): What the user asked for.

    Returns:
        list[str]: Image corruptions in benchmark order, then clip
        corruptions in table order, each once.
    """
    video = [
        t for t in tokens
        if t in VIDEO_SELECTIONS or t in CLIP_CORRUPTION_NAMES
    ]
    image = [t for t in tokens if t not in video]
    try:
        names = resolve_corruptions(image) if image else []
    except RobustDetError as e:
        raise RobustDetError(
            f'{e}; video: {", ".join(VIDEO_SELECTIONS)} or a clip '
            f'corruption: {", ".join(CLIP_CORRUPTION_NAMES)}') from None
    return names + resolve_clip_corruptions(video)


@dataclass
class RobustnessJob:
    """What ``test_robust.py`` was asked to do.

    Args:
        config (str): Path of the config (for the record).
        checkpoint (str): Path of the checkpoint.
        work_dir (str): Where results, logs and reports go.
        corruptions (list[str]): Corruption names, table order.
        severities (list[int]): Severities; 0 = the clean cell.
        seed (int): Run seed.
        backend (str): Corruption backend.
        channel_order (str): ``'rgb'`` or ``'bgr'``.
        shard (tuple[int, int]): ``(I, N)``, 1-based.
        overwrite (bool): Discard existing results of another run.
        unsafe_load (bool): Fully unpickle the checkpoint.
        skip_bad_images (bool): Skip unreadable images (recorded) instead
            of failing.
        launcher (str): mmengine launcher.
        cells_per_pass (int): Cells evaluated together in one data pass
            (K >= 1); the numbers do not depend on it.
        eval_overlap (str): ``'on'``: score each pass in another process
            while the next pass runs; ``'off'``: in line; ``'auto'``: on
            where it helps (:func:`robustdet.engine.runner.async_eval.
            resolve_overlap`). The numbers do not depend on it.
        corruption_device (str, optional): Where backend ``'torch'``
            corrupts (``'cpu'``, ``'cuda'``, ``'cuda:N'``). Defaults to the
            model's device. Only for backend ``'torch'``.
        clip_len (int): Frames per clip of the video corruptions.
        clip_mode (str): How clips are cut (``'auto'``, ``'segment'``,
            ``'anchor'``), see :mod:`robustdet.datasets.video_clips`.
        short_clips (str): ``'error'`` or ``'pad'`` for clips shorter than
            a corruption needs.
        clip_cache_dir (str, optional): Parent directory of the store of
            corrupted clips (default: the system temporary directory).
        region (str): Where the image corruptions apply: ``'all'``,
            ``'objects'`` (inside the ground-truth instances) or
            ``'background'`` (outside them).
        depth (dict, optional): Where each image's depth map is (a
            :class:`~robustdet.datasets.depth.DepthSource` config), for
            the corruptions that need one.
        show (ShowSettings | dict, optional): Draw the first images of the
            test set in every cell (``--show-dir``); not part of the
            results' identity (pictures change no number).
    """
    config: str
    checkpoint: str
    work_dir: str
    corruptions: List[str]
    severities: List[int] = field(
        default_factory=lambda: [CLEAN_SEVERITY, *SEVERITIES])
    seed: int = 0
    backend: str = DEFAULT_BACKEND
    channel_order: str = 'rgb'
    shard: tuple = (1, 1)
    overwrite: bool = False
    unsafe_load: bool = False
    skip_bad_images: bool = False
    launcher: str = 'none'
    cells_per_pass: int = 1
    eval_overlap: str = 'auto'
    corruption_device: Optional[str] = None
    clip_len: int = DEFAULT_VIDEO_CLIPS['clip_len']
    clip_mode: str = DEFAULT_VIDEO_CLIPS['clip_mode']
    short_clips: str = DEFAULT_VIDEO_CLIPS['short_clips']
    clip_cache_dir: Optional[str] = None
    region: str = 'all'
    depth: Optional[Dict[str, Any]] = None
    show: Optional[ShowSettings] = None

    def __post_init__(self) -> None:
        check_cells_per_pass(self.cells_per_pass)
        self.show = ShowSettings.from_cfg(self.show)
        check_region(self.region)
        if self.depth is not None:
            self.depth = DepthSource.from_cfg(self.depth).to_cfg()
        needs_depth = [n for n in self.corruptions if n in NEEDS_DEPTH]
        if needs_depth and self.depth is None:
            raise RobustDetError(
                f'{", ".join(needs_depth)} need(s) a depth map per image, '
                'and none was given: pass --depth cityscapes (disparity/ '
                'and camera/ of a Cityscapes tree) or --depth-folder DIR '
                '--depth-suffix SUFFIX --depth-scale S')
        on_device = [
            what for what, used in (
                (f'--region {self.region}', self.region != 'all'),
                (', '.join(needs_depth), bool(needs_depth))) if used
        ]
        if on_device and self.corrupts_on_device:
            raise RobustDetError(
                f'{" and ".join(on_device)} need(s) the ground truth or '
                'depth of each image, which --backend torch does not carry '
                'to the device: use --backend fast')
        if not self.cells():
            count = len(grid_cells(self.corruptions, self.severities))
            raise RobustDetError(
                f'--shard {self.shard[0]}/{self.shard[1]} has no cells: the '
                f'grid has {count}, so use at most {count} shards')
        check_clip_settings(self.clip_len, self.clip_mode, 'auto',
                            self.short_clips)
        if self.video_corruptions and self.corrupts_on_device:
            raise RobustDetError(
                'video corruptions are computed in the dataloader, not on '
                'the device: use --backend fast or reference with '
                f'{", ".join(self.video_corruptions)}')
        if self.corruption_device is not None:
            if not self.corrupts_on_device:
                raise RobustDetError(
                    '--corruption-device is for --backend torch, not '
                    f'--backend {self.backend}')
            self.corruption_device = str(
                _resolve_device(self.corruption_device))

    @property
    def corrupts_on_device(self) -> bool:
        """Whether the model's data preprocessor corrupts (backend
        ``'torch'``) rather than the dataloader."""
        return self.backend == 'torch'

    def corruption_device_type(self) -> Optional[str]:
        """The type of device backend ``'torch'`` corrupts on
        (``'cpu'``, ``'cuda'``...; the noises' pixels depend on it), None
        for the other backends."""
        if not self.corrupts_on_device:
            return None
        if self.corruption_device is not None:
            return self.corruption_device.split(':')[0]
        return get_device().split(':')[0]

    @property
    def video_corruptions(self) -> List[str]:
        """The job's clip corruptions."""
        return [n for n in self.corruptions if is_video_corruption(n)]

    @property
    def ground_truth(self) -> str:
        """``'pipeline'`` when a corruption of the job moves the ground
        truth (camera motion; every cell is then scored against the
        dataset's delivered boxes), else ``'config'``."""
        return ('pipeline' if any(
            moves_boxes(n) for n in self.video_corruptions) else 'config')

    def video_clips(self) -> Dict[str, Any]:
        """How clips are cut (recorded in the results identity)."""
        return dict(clip_len=self.clip_len, clip_mode=self.clip_mode,
                    short_clips=self.short_clips)

    def image_dataset_args(self) -> Dict[str, Any]:
        """Arguments of the image corruption datasets beyond seed, backend
        and channel order: ``region`` and ``depth``."""
        return dict(region=self.region, depth=self.depth)

    def video_dataset_args(self) -> Dict[str, Any]:
        """Arguments of the video corruption datasets."""
        return dict(self.video_clips(), seed=self.seed,
                    channel_order=self.channel_order,
                    cache_dir=self.clip_cache_dir)

    @property
    def results_file(self) -> str:
        return results_path(self.work_dir, *self.shard)

    def cells(self) -> List[Cell]:
        """This job's cells (its shard of the grid)."""
        return shard_cells(
            grid_cells(self.corruptions, self.severities), *self.shard)


def prepare_results(job: RobustnessJob, cfg: Any,
                    trained: Optional[Dict[str, Any]] = None
                    ) -> Dict[str, Any]:
    """Load the results to resume, or start new ones; refuse results of
    another run unless ``overwrite``. ``trained`` is what the detector saw
    in training (:func:`~robustdet.apis.training_record.
    run_training_record`), recorded as ``training_corruptions``."""
    identity = dict(
        config_sha256=config_fingerprint(cfg),
        checkpoint_sha256=sha256_file(job.checkpoint),
        seed=job.seed,
        backend=job.backend,
        channel_order=job.channel_order,
        corruption_device=job.corruption_device_type(),
        video_clips=job.video_clips(),
        ground_truth=job.ground_truth,
        region=job.region,
        depth=job.depth)
    # Every rank must have been asked the same.
    check_same_job(
        dict(identity, cells=job.cells(), shard=job.shard,
             work_dir=osp.abspath(job.work_dir), overwrite=job.overwrite,
             skip_bad_images=job.skip_bad_images,
             cells_per_pass=job.cells_per_pass))
    # What the detector saw in training (not part of the identity: the
    # config's fingerprint does not cover the training pipeline).
    fresh = new_results(
        identity,
        config=job.config,
        checkpoint=job.checkpoint,
        shard=f'{job.shard[0]}/{job.shard[1]}',
        training_corruptions=trained)
    if not osp.exists(job.results_file) or job.overwrite:
        return fresh
    existing = load_results(job.results_file)
    check_same_run(
        existing, identity, job.results_file,
        'pass --overwrite to discard them, or use another --work-dir')
    drop_stale_codec_cells(existing, job.results_file,
                           'they are computed again')
    existing['training_corruptions'] = trained
    return existing


def _check_dataset(cfg: Any, job: RobustnessJob,
                   results: Dict[str, Any]) -> Tuple[Dict[str, Any], Any,
                                                     Optional[List[int]]]:
    """Build the test dataset once: it must have images, and they must be
    readable (or skipped and recorded). Returns the dataloader config the
    cells are built from, the dataset, and the indices of its kept images
    (None: all)."""
    dl_cfg = copy.deepcopy(cfg.test_dataloader)
    check_cfg = copy.deepcopy(dl_cfg['dataset'])
    dataset_cls = check_cfg.get('type')
    if isinstance(dataset_cls, str):
        dataset_cls = DATASETS.get(dataset_cls)
    if isinstance(dataset_cls, type) and issubclass(dataset_cls,
                                                    BaseDataset):
        # mmengine fails on an empty dataset while serialising it; this copy
        # is only inspected.
        check_cfg['serialize_data'] = False
    dataset = DATASETS.build(check_cfg)
    if job.corrupts_on_device:
        # Refuse a pipeline the device cannot take over before anything is
        # evaluated (this copy is only inspected).
        DeferredCorruptionDataset(dataset, lazy_init=True)
    if len(dataset) == 0:
        raise RobustDetError(
            f'the test dataset of {job.config} has no images '
            f'({type(dataset).__name__}, '
            f'ann_file={getattr(dataset, "ann_file", None)!r})')
    _check_region_and_depth(dataset, job)
    bad = find_bad_images(dataset)
    kept = len(dataset) - len({p for p, _ in bad})
    world_size = rank_and_world()[1]
    if world_size > kept:
        raise RobustDetError(
            f'{world_size} ranks for {kept} test image(s): every rank needs '
            f'an image, start at most {kept}')
    if bad and not job.skip_bad_images:
        path, reason = bad[0]
        raise RobustDetError(
            f'unreadable image {path} ({reason}); {len(bad)} bad image(s) in '
            'the test set; pass --skip-bad-images to skip and record them')
    if job.video_corruptions:
        # Index the clips now: frames without a video, clips too short for
        # a corruption... are refused before anything is evaluated (this
        # copy is only inspected; it is not read from again).
        MultiVideoCorruptedDataset(
            dataset, [(n, SEVERITIES[0]) for n in job.video_corruptions],
            **job.video_dataset_args()).store.close()
    skipped = sorted({p for p, _ in bad})
    keep = None
    if results['seconds'] and results.get('skipped_images', []) != skipped:
        raise RobustDetError(
            f'{job.results_file} was computed with skipped images '
            f'{results.get("skipped_images", [])} but now {skipped} would be '
            'skipped; mixing them would compare different image sets: pass '
            '--overwrite, or use another --work-dir')
    if bad:
        if not isinstance(dataset, BaseDataset):
            raise RobustDetError(
                '--skip-bad-images needs an mmengine BaseDataset (it '
                f'selects images with indices=), not {type(dataset).__name__}')
        drop = set(skipped)
        keep = [
            i for i in range(len(dataset))
            if dataset.get_data_info(i)['img_path'] not in drop
        ]
        dl_cfg['dataset']['indices'] = keep
        results['skipped_images'] = skipped
        print_log(
            f'skipping {len(bad)} unreadable image(s), recorded in the '
            f'results: {skipped[:3]}', logger='current',
            level=logging.WARNING)
    return dl_cfg, dataset, keep


def _check_region_and_depth(dataset: Any, job: RobustnessJob) -> None:
    """Refuse, before anything is evaluated, ``--region objects`` or
    ``background`` on a test set without ground-truth instances, and a
    depth source that has no depth for the first image."""
    if job.region != 'all' and not any(
            dataset.get_data_info(i).get('instances')
            for i in range(len(dataset))):
        raise RobustDetError(
            f'--region {job.region} needs ground-truth boxes or masks, but '
            f'no image of the test set of {job.config} has any')
    if job.depth is not None and any(n in NEEDS_DEPTH
                                     for n in job.corruptions):
        info = dataset.get_data_info(0)
        DepthSource.from_cfg(job.depth).load(
            info['img_path'], getattr(dataset, 'data_root', None))


def results_recorder(job: RobustnessJob,
              results: Dict[str, Any]) -> Callable[[List[CellResult]], None]:
    """Record a pass's finished cells into ``results`` and rewrite the
    results file (on rank 0; the other ranks only keep going)."""

    def record(finished: List[CellResult]) -> None:
        if not is_main_process():
            return
        for done in finished:
            record_cell(results, done.cell, done.metrics, done.seconds,
                        num_predictions=done.num_predictions)
        save_results(results, job.results_file)

    return record


def _test_loop_cfg(cfg: Any,
                   job: RobustnessJob) -> Tuple[Dict[str, Any], bool]:
    """The test loop config (no type means mmengine's ``TestLoop``, as in
    ``Runner.build_test_loop``), and whether passes can replace it: a
    custom loop type is run as it is, one cell per pass."""
    test_cfg = dict(cfg.test_cfg)
    test_cfg.setdefault('type', 'TestLoop')
    loop = test_cfg['type']
    if isinstance(loop, str):
        loop = LOOPS.get(loop)
    if loop is not TestLoop and job.cells_per_pass > 1:
        raise RobustDetError(
            f"--cells-per-pass {job.cells_per_pass} needs mmengine's "
            f'TestLoop, but test_cfg has type={test_cfg["type"]!r}; use '
            '--cells-per-pass 1')
    return test_cfg, loop is TestLoop


def run_robustness(job: RobustnessJob, cfg: Any) -> Dict[str, Any]:
    """Evaluate every cell of the job's grid that is not done yet.

    Args:
        job (RobustnessJob): What to do.
        cfg (mmengine.Config): The test config (validated by the caller).

    Returns:
        dict: The results of this job (shard).
    """
    cfg = unwrap_corrupted(cfg)
    if job.show is not None:
        job.show.check_outside([cfg.test_dataloader.dataset])
    test_cfg, in_passes = _test_loop_cfg(cfg, job)
    ckpt = load_checkpoint_file(job.checkpoint, unsafe=job.unsafe_load)
    results = prepare_results(
        job, cfg, run_training_record(ckpt, job.checkpoint, cfg))
    if job.ground_truth == 'pipeline':
        cfg = pipeline_ground_truth_cfg(
            cfg, ', '.join(n for n in job.video_corruptions
                           if moves_boxes(n)))
    dl_cfg, dataset, keep = _check_dataset(cfg, job, results)
    shown = None
    if job.show is not None:
        shown = choose_items(dataset, job.show.num, keep)
    metainfo = dataset.metainfo
    del dataset
    runner_cfg = cfg
    if job.corrupts_on_device:
        runner_cfg, dl_cfg = device_corruption_cfgs(cfg, dl_cfg, job)
    runner = build_test_runner(runner_cfg, job.checkpoint, job.work_dir,
                               job.launcher, loaded=ckpt)
    del ckpt

    todo = [c for c in job.cells() if not has_cell(results, c)]
    # Rank 0's view of what is done is the one every rank follows.
    shared = [todo]
    broadcast_object_list(shared)
    todo = shared[0]
    done = len(job.cells()) - len(todo)
    if done:
        runner.logger.info(
            f'resuming: {done} of {len(job.cells())} cells already in '
            f'{job.results_file}')
    show = None
    if shown is not None:
        show = _show_hook(job, shown, metainfo, todo, runner, dl_cfg)
    if todo:
        runner_cls = PassRunner if in_passes else CellLoopRunner
        runner_cls(runner, job, dl_cfg, test_cfg, cfg.test_evaluator,
                   results_recorder(job, results), show).run(
                       plan_passes(todo, job.cells_per_pass))
    if shown is not None and is_main_process():
        # From every picture there is, those of earlier runs included.
        write_severity_strips(job.show, job.corruptions, job.severities,
                              shown)
    return results


def _show_hook(job: RobustnessJob, shown: List[ShowItem], metainfo: dict,
               todo: List[Cell], runner: Any,
               dl_cfg: Dict[str, Any]) -> ShowHook:
    """The hook that draws ``shown`` in the cells to evaluate, their
    pixels from :func:`~robustdet.engine.grid_images`. The cells finished
    earlier are not drawn (said once, for those without pictures)."""
    undrawn = [
        cell_key(c) for c in job.cells() if c not in todo and not osp.exists(
            osp.join(job.show.out_dir, cell_folder(c), f'{shown[0].name}.jpg'))
    ] if shown else []
    if undrawn:
        more = ', ...' if len(undrawn) > 3 else ''
        runner.logger.info(
            f'[show] {len(undrawn)} finished cell(s) have no pictures in '
            f'{job.show.out_dir} ({", ".join(undrawn[:3])}{more}): they are '
            'not evaluated again; use another --work-dir to draw them')
    show = ShowHook(job.show)
    show.set_source(
        shown,
        grid_images(dl_cfg, todo, job,
                    find_corrupting_preprocessor(runner.model)), metainfo)
    return show


# Moved to the engine, which builds each cell's dataloader; the old name
# works for one release.
__getattr__ = moved_names(
    __name__,
    dict(corrupted_dataloader_cfg=('robustdet.engine.cell_dataloader_cfg',
                                   lambda: cell_dataloader_cfg)))
