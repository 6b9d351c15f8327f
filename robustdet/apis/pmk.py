# Copyright (c) robustdet contributors. All rights reserved.
"""pm-k of a detector on video-frame neighbour sets, the job behind
``tools/test_pmk.py``: the test set must be a
:class:`~robustdet.datasets.NeighborSetDataset` (optionally under one
clip corruption), the evaluator becomes :class:`PMKMetric`, and the
runner's test loop writes ``WORK_DIR/pmk.json`` (then ``pmk.md`` and
``pmk.png``, derived from it). With show settings (``--show-dir``) the
first frames are drawn (:func:`pmk_show_hook`)."""
import copy
import os.path as osp
from typing import Any, Dict, Iterable, Optional, Tuple

from mmengine.dist import is_main_process

from ..corruptions import CLEAN_SEVERITY, check_severity
from ..corruptions.grid import CLEAN
from ..engine import (LoadedImages, ShowHook, ShowSettings, cell_folder,
                      choose_items, watched_test_cfg, with_batch_runs,
                      write_set_strips)
from ..utils.errors import RobustDetError
from ..utils.pmsets import read_json
from ..video.table import get_clip_corruption
from .testing import build_test_runner

PMK_FILE = 'pmk.json'


def pmk_config(cfg: Any,
               work_dir: str,
               ks: Iterable[int],
               judge: str = 'frame',
               vid_iou: bool = False,
               video_corruption: Optional[str] = None,
               severity: int = 3,
               clip_len: int = 32) -> Any:
    """The test config of a pm-k run (the given one is not modified).

    Args:
        cfg (mmengine.Config): A config whose test set is a
            ``NeighborSetDataset``, or a ``VideoCorruptedDataset`` over
            one.
        work_dir (str): Where the metric writes its report.
        ks (Iterable[int]): The ks to report.
        judge (str): ``'frame'`` or ``'anchor'`` (see :class:`PMKMetric`).
        vid_iou (bool): ImageNet VID's IoU threshold for small boxes.
        video_corruption (str, optional): Score the frames under this
            clip corruption, each set's frames cut from one corrupted clip
            centred on its anchor.
        severity (int): Severity of ``video_corruption``, 1-5.
        clip_len (int): Frames of the clip around each anchor.

    Returns:
        mmengine.Config: The rewritten copy.
    """
    name = getattr(cfg, 'filename', None) or 'the config'
    cfg = copy.deepcopy(cfg)
    dataset = cfg.test_dataloader.dataset
    inner = dataset
    if dataset.get('type') == 'VideoCorruptedDataset':
        inner = dataset.get('dataset', {})
    if inner.get('type') != 'NeighborSetDataset':
        raise RobustDetError(
            f'{name}: the test dataset is {dataset.get("type")!r}; pm-k '
            'needs a NeighborSetDataset (see '
            'configs/_base_/datasets/imagenet_vid_robust.py)')
    if video_corruption is not None:
        get_clip_corruption(video_corruption)
        check_severity(severity)
        if inner is not dataset:
            raise RobustDetError(
                f'{name} corrupts its test set already; drop '
                '--video-corruption or use the clean config')
        cfg.test_dataloader.dataset = dict(
            type='VideoCorruptedDataset',
            dataset=dataset,
            corruption=video_corruption,
            severity=severity,
            clip_len=clip_len,
            clip_mode='anchor')
    cfg.test_evaluator = dict(
        type='PMKMetric',
        ks=list(ks),
        judge=judge,
        vid_iou=vid_iou,
        out_dir=work_dir)
    return cfg


def pmk_cell(cfg: Any) -> Tuple[str, int]:
    """The ``(corruption, severity)`` of a pm-k config's frames:
    ``('clean', 0)``, or its test set's clip corruption."""
    dataset = cfg.test_dataloader.dataset
    if dataset.get('type') == 'VideoCorruptedDataset':
        return dataset['corruption'], int(dataset['severity'])
    return CLEAN, CLEAN_SEVERITY


def pmk_show_hook(cfg: Any, show: ShowSettings) -> ShowHook:
    """The hook that draws the first ``show.num`` frames of a pm-k run:
    ``<out_dir>/<corruption>/<severity>/<anchor>/<frame>.jpg``
    (``clean/0`` without a clip corruption), each frame under its
    neighbour set's anchor. The frames are loaded (and corrupted, from
    clips of their own) again by a dataset of its own.

    Args:
        cfg (mmengine.Config): From :func:`pmk_config`.
        show (ShowSettings): Where and what.

    Returns:
        ShowHook: Its source and cell set.
    """
    images = LoadedImages(cfg.test_dataloader.dataset)
    dataset = images.dataset
    cell = pmk_cell(cfg)
    hook = ShowHook(show)
    hook.set_source(choose_items(dataset, show.num), images,
                    dataset.metainfo)
    hook.set_cell(cell, cell_folder(cell))
    return hook


def run_pmk(cfg: Any,
            checkpoint: str,
            work_dir: str,
            launcher: str = 'none',
            loaded: Optional[Dict[str, Any]] = None,
            show: Optional[ShowSettings] = None) -> Optional[dict]:
    """Run the detector on every frame of every neighbour set.

    Args:
        cfg (mmengine.Config): From :func:`pmk_config`.
        checkpoint (str): Checkpoint path.
        work_dir (str): The run's work dir (where ``pmk.json`` goes).
        launcher (str): mmengine launcher.
        loaded (dict, optional): The checkpoint, already loaded with
            :func:`~robustdet.utils.load_checkpoint_file`.
        show (ShowSettings | dict, optional): Draw the first frames with
            their ground truth and predictions (:func:`pmk_show_hook`),
            and a strip of each neighbour set's drawn frames
            (``<out_dir>/strips/<corruption>/<severity>/<anchor>.jpg``).

    Returns:
        dict | None: The report of ``pmk.json`` on rank 0, else None.
    """
    show = ShowSettings.from_cfg(show)
    if show is not None:
        show.check_outside([cfg.test_dataloader.dataset])
    cfg = cfg.copy()
    # Launched: each rank scores whole batches of one process.
    cfg.test_dataloader = with_batch_runs(cfg.test_dataloader,
                                          cfg.test_evaluator)
    # Launched, a rank stuck mid-pass stops the others.
    cfg.test_cfg = watched_test_cfg(cfg.test_cfg)
    runner = build_test_runner(cfg, checkpoint, work_dir, launcher,
                               loaded=loaded)
    hook = None
    if show is not None:
        hook = pmk_show_hook(cfg, show)
        runner.register_hook(hook)
    runner.test()
    if not is_main_process():
        return None
    if hook is not None:
        write_set_strips(show, hook.folder, hook.items)
    return read_json(osp.join(work_dir, PMK_FILE), 'pm-k report')
