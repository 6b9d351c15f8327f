# Copyright (c) robustdet contributors. All rights reserved.
"""pm-k of a detector on video-frame neighbour sets, the job behind
``tools/test_pmk.py``: the test set must be a
:class:`~robustdet.datasets.NeighborSetDataset` (optionally under one
clip corruption), the evaluator becomes :class:`PMKMetric`, and the
runner's test loop writes ``WORK_DIR/pmk.json`` (then ``pmk.md`` and
``pmk.png``, derived from it)."""
import copy
import os.path as osp
from typing import Any, Dict, Iterable, Optional

from mmengine.dist import is_main_process

from ..corruptions import check_severity
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


def run_pmk(cfg: Any,
            checkpoint: str,
            work_dir: str,
            launcher: str = 'none',
            loaded: Optional[Dict[str, Any]] = None) -> Optional[dict]:
    """Run the detector on every frame of every neighbour set.

    Args:
        cfg (mmengine.Config): From :func:`pmk_config`.
        checkpoint (str): Checkpoint path.
        work_dir (str): The run's work dir (where ``pmk.json`` goes).
        launcher (str): mmengine launcher.
        loaded (dict, optional): The checkpoint, already loaded with
            :func:`~robustdet.utils.load_checkpoint_file`.

    Returns:
        dict | None: The report of ``pmk.json`` on rank 0, else None.
    """
    runner = build_test_runner(cfg, checkpoint, work_dir, launcher,
                               loaded=loaded)
    runner.test()
    if not is_main_process():
        return None
    return read_json(osp.join(work_dir, PMK_FILE), 'pm-k report')
