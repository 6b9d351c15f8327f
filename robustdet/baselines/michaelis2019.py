# Copyright (c) robustdet contributors. All rights reserved.
"""The published corruption-robustness leaderboard (Michaelis et al. 2019)
as data: one :class:`BaselineRow` per model, dataset and task, each with
the citation it comes from and the config that reproduces it.

The numbers are exactly as published (P and mPC in points, rPC in %), with
two exceptions that each row's ``note`` explains: an mPC that the
benchmark's TABLE.md misprints (taken from mmdetection's documentation),
and a row whose published numbers disagree with one another (kept as
published, ``consistent=False``).

Pure Python: no mmengine / mmdet import, so reports and tests can read it
cheaply.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional

from ..utils.errors import RobustDetError

DATASETS = ('coco', 'voc', 'cityscapes')
TASKS = ('bbox', 'segm')
TRAININGS = ('standard', 'stylized', 'combined')

BENCHMARK_REPO = 'https://github.com/bethgelab/robust-detection-benchmark'
MMDET_DOCS = ('https://github.com/open-mmlab/mmdetection/blob/main/docs/en/'
              'user_guides/robustness_benchmarking.md')

CITATIONS: Dict[str, Dict[str, str]] = {
    'michaelis2019':
    dict(
        authors='Claudio Michaelis, Benjamin Mitzkus, Robert Geirhos, '
        'Evgenia Rusak, Oliver Bringmann, Alexander S. Ecker, Matthias '
        'Bethge, Wieland Brendel',
        title='Benchmarking Robustness in Object Detection: Autonomous '
        'Driving when Winter is Coming',
        venue='arXiv:1907.07484',
        year='2019',
        url='https://arxiv.org/abs/1907.07484',
        tables=BENCHMARK_REPO,
        where=f'TABLE.md and LEADERBOARD.md of {BENCHMARK_REPO}, the '
        "paper's benchmark repository: all rows"),
    'mmdet-robustness':
    dict(
        authors='OpenMMLab MMDetection contributors',
        title='Corruption Benchmarking',
        venue='MMDetection documentation, '
        'docs/en/user_guides/robustness_benchmarking.md',
        year='read 2026',
        url=MMDET_DOCS,
        repository='https://github.com/open-mmlab/mmdetection',
        where='results table of modelzoo models on COCO 2017 val; it '
        "repeats the standard COCO rows of 'michaelis2019' with the same "
        'numbers'),
}


@dataclass(frozen=True)
class BaselineRow:
    """One published row: P, mPC and rPC of a model on a dataset.

    Attributes:
        name (str): Unique key,
            ``'<citation>/<dataset>/<model slug>/<training>/<task>'``.
        dataset (str): ``'coco'``, ``'voc'`` or ``'cityscapes'``.
        task (str): ``'bbox'`` or ``'segm'``.
        model (str): The detector, e.g. ``'Faster R-CNN'``.
        backbone (str): e.g. ``'R-50-FPN'``.
        training (str): ``'standard'``, ``'stylized'`` or ``'combined'``
            training data.
        P (float): Clean performance in points (× 100), as published.
        mPC (float): Mean performance under corruption, points.
        rPC (float): Relative performance under corruption, %.
        citation (str): Key into :data:`CITATIONS`.
        config (str): The config that reproduces the row:
            ``'mmdet::<path>'`` (under the installed mmdet's configs) or a
            path in this repository (``'configs/...'``).
        note (str): Where the row departs from the source, if anywhere.
        consistent (bool): False only where the published P, mPC and rPC
            disagree beyond their rounding.
    """
    name: str
    dataset: str
    task: str
    model: str
    backbone: str
    training: str
    P: float
    mPC: float
    rPC: float
    citation: str
    config: str
    note: str = ''
    consistent: bool = True

    @property
    def label(self) -> str:
        """A short display name, e.g. ``'Faster R-CNN R-50-FPN
        (standard)'``."""
        return f'{self.model} {self.backbone} ({self.training})'


_FRCNN = 'mmdet::faster_rcnn/'
_STYLIZED = 'configs/stylized/'


def _row(dataset, task, slug, model, backbone, training, p, mpc, rpc,
         config, **kwargs):
    return BaselineRow(
        name=f'michaelis2019/{dataset}/{slug}/{training}/{task}',
        dataset=dataset,
        task=task,
        model=model,
        backbone=backbone,
        training=training,
        P=p,
        mPC=mpc,
        rPC=rpc,
        citation='michaelis2019',
        config=config,
        **kwargs)


# In the order of the benchmark's TABLE.md.
_ROWS = (
    # COCO 2017 val, box AP and mask AP.
    _row('coco', 'bbox', 'cascade-mask-rcnn_r50_fpn', 'Cascade Mask R-CNN',
         'R-50-FPN', 'standard', 41.2, 20.7, 50.2,
         'mmdet::cascade_rcnn/cascade-mask-rcnn_r50_fpn_1x_coco.py'),
    _row('coco', 'segm', 'cascade-mask-rcnn_r50_fpn', 'Cascade Mask R-CNN',
         'R-50-FPN', 'standard', 35.7, 17.6, 49.3,
         'mmdet::cascade_rcnn/cascade-mask-rcnn_r50_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN', 'R-50-FPN',
         'combined', 34.6, 20.4, 58.9,
         _STYLIZED + 'faster-rcnn_r50_fpn_1x_cocoscoco.py'),
    _row('coco', 'bbox', 'cascade-rcnn_r50_fpn', 'Cascade R-CNN', 'R-50-FPN',
         'standard', 40.4, 20.1, 49.7,
         'mmdet::cascade_rcnn/cascade-rcnn_r50_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'mask-rcnn_r50_fpn', 'Mask R-CNN', 'R-50-FPN',
         'standard', 37.3, 18.7, 50.1,
         'mmdet::mask_rcnn/mask-rcnn_r50_fpn_1x_coco.py'),
    _row('coco', 'segm', 'mask-rcnn_r50_fpn', 'Mask R-CNN', 'R-50-FPN',
         'standard', 34.2, 16.8, 49.1,
         'mmdet::mask_rcnn/mask-rcnn_r50_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN', 'R-50-FPN',
         'standard', 36.3, 18.2, 50.2,
         _FRCNN + 'faster-rcnn_r50_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'retinanet_r50_fpn', 'RetinaNet', 'R-50-FPN',
         'standard', 35.6, 17.8, 50.1,
         'mmdet::retinanet/retinanet_r50_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN', 'R-50-FPN',
         'stylized', 21.5, 14.1, 65.6,
         _STYLIZED + 'faster-rcnn_r50_fpn_1x_scoco.py'),
    _row('coco', 'segm', 'mask-rcnn_r50_fpn', 'Mask R-CNN', 'R-50-FPN',
         'combined', 32.9, 19.0, 57.7,
         _STYLIZED + 'mask-rcnn_r50_fpn_1x_cocoscoco.py'),
    _row('coco', 'segm', 'mask-rcnn_r50_fpn', 'Mask R-CNN', 'R-50-FPN',
         'stylized', 30.5, 13.2, 64.1,
         _STYLIZED + 'mask-rcnn_r50_fpn_1x_scoco.py',
         note='published numbers disagree: mPC / P = 13.2 / 30.5 = 43.3 %, '
         'not the published rPC 64.1 %; kept as published',
         consistent=False),
    _row('coco', 'bbox', 'htc_x101-64x4d-dconv-c3-c5_fpn',
         'Hybrid Task Cascade', 'X-101-64x4d-FPN-DCN', 'standard', 50.6,
         32.7, 64.7,
         'mmdet::htc/htc_x101-64x4d-dconv-c3-c5_fpn_ms-400-1400-16xb1-20e_'
         'coco.py'),
    _row('coco', 'segm', 'htc_x101-64x4d-dconv-c3-c5_fpn',
         'Hybrid Task Cascade', 'X-101-64x4d-FPN-DCN', 'standard', 43.8,
         28.1, 64.0,
         'mmdet::htc/htc_x101-64x4d-dconv-c3-c5_fpn_ms-400-1400-16xb1-20e_'
         'coco.py'),
    _row('coco', 'bbox', 'faster-rcnn_x101-32x4d-dconv-c3-c5_fpn',
         'Faster R-CNN', 'X-101-32x4d-FPN-DCN', 'standard', 43.4, 26.7, 61.6,
         'mmdet::dcn/faster-rcnn_x101-32x4d-dconv-c3-c5_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'faster-rcnn_x101-64x4d_fpn', 'Faster R-CNN',
         'X-101-64x4d-FPN', 'standard', 41.3, 23.4, 56.6,
         _FRCNN + 'faster-rcnn_x101-64x4d_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'mask-rcnn_r50-dconv-c3-c5_fpn', 'Mask R-CNN',
         'R-50-FPN-DCN', 'standard', 41.1, 23.3, 56.7,
         'mmdet::dcn/mask-rcnn_r50-dconv-c3-c5_fpn_1x_coco.py'),
    _row('coco', 'segm', 'mask-rcnn_r50-dconv-c3-c5_fpn', 'Mask R-CNN',
         'R-50-FPN-DCN', 'standard', 37.2, 20.7, 55.7,
         'mmdet::dcn/mask-rcnn_r50-dconv-c3-c5_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'faster-rcnn_r50-dconv-c3-c5_fpn', 'Faster R-CNN',
         'R-50-FPN-DCN', 'standard', 40.0, 22.4, 56.1,
         'mmdet::dcn/faster-rcnn_r50-dconv-c3-c5_fpn_1x_coco.py',
         note="mPC 22.4 as in mmdetection's docs ('mmdet-robustness'); "
         "the benchmark's TABLE.md ('michaelis2019') prints 12.4, a typo: "
         '22.4 / 40.0 = 56.0 % matches the published rPC 56.1 %'),
    _row('coco', 'bbox', 'faster-rcnn_x101-32x4d_fpn', 'Faster R-CNN',
         'X-101-32x4d-FPN', 'standard', 40.1, 22.3, 55.5,
         _FRCNN + 'faster-rcnn_x101-32x4d_fpn_1x_coco.py'),
    _row('coco', 'bbox', 'faster-rcnn_r101_fpn', 'Faster R-CNN',
         'R-101-FPN', 'standard', 38.5, 20.9, 54.2,
         _FRCNN + 'faster-rcnn_r101_fpn_1x_coco.py'),
    # PASCAL VOC 2007 test, box AP50.
    _row('voc', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN', 'R-50-FPN',
         'combined', 80.4, 56.2, 69.9,
         _STYLIZED + 'faster-rcnn_r50_fpn_1x_vocsvoc0712.py'),
    _row('voc', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN', 'R-50-FPN',
         'stylized', 68.0, 50.0, 73.5,
         _STYLIZED + 'faster-rcnn_r50_fpn_1x_svoc0712.py'),
    _row('voc', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN', 'R-50-FPN',
         'standard', 80.5, 48.6, 60.4,
         _STYLIZED + 'faster-rcnn_r50_fpn_1x_voc0712.py'),
    # Cityscapes val, box AP.
    _row('cityscapes', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN',
         'R-50-FPN', 'combined', 36.3, 17.2, 47.4,
         _STYLIZED + 'faster-rcnn_r50_fpn_1x_cityscity.py'),
    _row('cityscapes', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN',
         'R-50-FPN', 'stylized', 28.5, 14.7, 51.5,
         _STYLIZED + 'faster-rcnn_r50_fpn_1x_scity.py'),
    _row('cityscapes', 'bbox', 'faster-rcnn_r50_fpn', 'Faster R-CNN',
         'R-50-FPN', 'standard', 36.4, 12.2, 33.4,
         _STYLIZED + 'faster-rcnn_r50_fpn_1x_city.py'),
    _row('cityscapes', 'bbox', 'mask-rcnn_r50_fpn', 'Mask R-CNN', 'R-50-FPN',
         'standard', 37.5, 11.7, 31.1,
         _STYLIZED + 'mask-rcnn_r50_fpn_1x_city.py'),
    # Cityscapes val, mask AP.
    _row('cityscapes', 'segm', 'mask-rcnn_r50_fpn', 'Mask R-CNN', 'R-50-FPN',
         'combined', 32.1, 14.9, 46.3,
         _STYLIZED + 'mask-rcnn_r50_fpn_1x_cityscity.py'),
    _row('cityscapes', 'segm', 'mask-rcnn_r50_fpn', 'Mask R-CNN', 'R-50-FPN',
         'stylized', 23.0, 11.3, 49.2,
         _STYLIZED + 'mask-rcnn_r50_fpn_1x_scity.py'),
    _row('cityscapes', 'segm', 'mask-rcnn_r50_fpn', 'Mask R-CNN', 'R-50-FPN',
         'standard', 32.7, 10.0, 30.5,
         _STYLIZED + 'mask-rcnn_r50_fpn_1x_city.py'),
)

_BY_NAME: Dict[str, BaselineRow] = {row.name: row for row in _ROWS}
assert len(_BY_NAME) == len(_ROWS), 'baseline names must be unique'


def _check_choice(value: str, choices, what: str) -> None:
    if value not in choices:
        raise RobustDetError(
            f'unknown {what} {value!r}; known: {", ".join(choices)}')


def baseline_rows(dataset: Optional[str] = None,
                  task: Optional[str] = None) -> List[BaselineRow]:
    """The published rows, in the order of the benchmark's TABLE.md.

    Args:
        dataset (str, optional): Only rows of this dataset (``'coco'``,
            ``'voc'``, ``'cityscapes'``).
        task (str, optional): Only rows of this task (``'bbox'``,
            ``'segm'``).

    Returns:
        list[BaselineRow]: The rows (empty where a known dataset has no
        row of a known task, e.g. VOC ``segm``).
    """
    if dataset is not None:
        _check_choice(dataset, DATASETS, 'dataset')
    if task is not None:
        _check_choice(task, TASKS, 'task')
    return [
        row for row in _ROWS if (dataset is None or row.dataset == dataset)
        and (task is None or row.task == task)
    ]


def get_baseline(name: str) -> BaselineRow:
    """The published row with this name.

    Args:
        name (str): A :attr:`BaselineRow.name`.

    Returns:
        BaselineRow: The row.
    """
    row = _BY_NAME.get(name)
    if row is not None:
        return row
    parts = str(name).split('/')
    dataset = parts[1] if len(parts) > 1 and parts[1] in DATASETS else None
    known = [r.name for r in baseline_rows(dataset)]
    where = f' for {dataset}' if dataset else ''
    raise RobustDetError(f'unknown baseline {name!r}; known{where}: '
                         f'{", ".join(known)}')


def metric_of(dataset: str, task: str) -> str:
    """The robustdet / mmdet 3 metric key a row's numbers correspond to.

    Args:
        dataset (str): ``'coco'``, ``'voc'`` or ``'cityscapes'``.
        task (str): ``'bbox'`` or ``'segm'``.

    Returns:
        str: ``'coco/{task}_mAP'`` for COCO and Cityscapes (COCO-style AP
        over IoU 0.5:0.95), ``'pascal_voc/mAP'`` for VOC (AP50 averaged
        over the 20 classes, box only).
    """
    _check_choice(dataset, DATASETS, 'dataset')
    _check_choice(task, TASKS, 'task')
    if dataset == 'voc':
        if task != 'bbox':
            raise RobustDetError(
                f'PASCAL VOC results are box AP50 only, not {task}')
        return 'pascal_voc/mAP'
    return f'coco/{task}_mAP'
