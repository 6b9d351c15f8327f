# Copyright (c) robustdet contributors. All rights reserved.
"""faster-coco-eval's COCO API with the two behaviours of pycocotools that
mmdet's ``CocoMetric`` relies on and faster-coco-eval 1.8.0 changes.

Imported lazily by :class:`~robustdet.evaluation.FastCocoMetric`, so that
robustdet imports without faster-coco-eval.

1. An empty result list: pycocotools' ``loadRes`` raises ``IndexError``
   and ``CocoMetric`` then returns no metrics (robustdet's benchmark
   records such cells as ``empty_cells``); faster-coco-eval evaluates it.
2. The summary: pycocotools' ``stats[0]`` (mmdet's ``bbox_mAP`` and
   ``segm_mAP``) is AP at ``maxDets=100`` (the default argument of its
   ``_summarize``), all other AP entries at ``maxDets[2]``;
   faster-coco-eval takes ``maxDets[-1]`` for all. With mmdet's
   ``maxDets=[100, 300, 1000]`` they differ as soon as an image has more
   than 100 detections of one class (e.g. detectors with
   ``max_per_img=300``).

What is not changed here (it is inside faster-coco-eval's C++
accumulate): precision is ``tp / (tp + fp)``, pycocotools'
``tp / (tp + fp + np.spacing(1))``. The two differ only where
``tp + fp == 1``: pycocotools stores ``1 / (1 + 2**-52)`` =
``0.9999999999999998`` where faster-coco-eval stores ``1.0``. Averaged
into AP that is a difference of at most a few 1e-17.
"""
import os
from typing import Optional

import numpy as np
from faster_coco_eval import COCO, COCOeval_faster

# The version whose behaviour the docstring above and robustdet's tests
# describe.
VERIFIED_VERSION = '1.8.0'


class FasterCOCO(COCO):
    """faster-coco-eval's ``COCO`` that refuses empty results as
    pycocotools does (``IndexError``)."""

    def loadRes(self, resFile, min_score: float = 0.0) -> COCO:
        """Load detection results into a result ``COCO``.

        Args:
            resFile (str | list | np.ndarray): A results json file or the
                loaded list of result dicts.
            min_score (float): Drop results scored below this.

        Returns:
            COCO: The results as a COCO object.

        Raises:
            IndexError: There is no result at all (what pycocotools
                raises, and what mmdet's ``CocoMetric`` catches).
        """
        anns = resFile
        if isinstance(resFile, (str, os.PathLike)):
            anns = COCO.load_json(resFile)
        if isinstance(anns, list) and not anns:
            raise IndexError('the result list is empty')
        return super().loadRes(anns, min_score)


class FasterCOCOeval(COCOeval_faster):
    """faster-coco-eval's evaluator with pycocotools' summary table.

    Printing goes to stdout, as with pycocotools.

    Args:
        cocoGt (COCO, optional): Ground truth.
        cocoDt (COCO, optional): Detections.
        iouType (str): ``'bbox'`` or ``'segm'`` (others are evaluated and
            summarized by faster-coco-eval unchanged).
    """

    def __init__(self,
                 cocoGt: Optional[COCO] = None,
                 cocoDt: Optional[COCO] = None,
                 iouType: str = 'segm') -> None:
        super().__init__(cocoGt, cocoDt, iouType, print_function=print)

    def summarize(self) -> None:
        """Fill ``stats`` with pycocotools' 12 detection numbers, each
        taken at the maxDets pycocotools takes it at."""
        if self.params.iouType not in ('bbox', 'segm'):
            return super().summarize()
        if not self.eval:
            raise Exception('Please run accumulate() first')
        md = self.params.maxDets
        rows = [
            (1, None, 'all', 100),  # pycocotools: _summarize's default
            (1, .5, 'all', md[2]),
            (1, .75, 'all', md[2]),
            (1, None, 'small', md[2]),
            (1, None, 'medium', md[2]),
            (1, None, 'large', md[2]),
            (0, None, 'all', md[0]),
            (0, None, 'all', md[1]),
            (0, None, 'all', md[2]),
            (0, None, 'small', md[2]),
            (0, None, 'medium', md[2]),
            (0, None, 'large', md[2]),
        ]
        self.stats = np.array([self._summary_value(*row) for row in rows])

    def _summary_value(self, ap: int, iou_thr: Optional[float],
                       area: str, max_dets: int) -> float:
        """One summary number: the mean of the precision (``ap=1``) or
        recall entries that are not -1, or -1 if there are none.

        Selection as in pycocotools: the IoU threshold by equality, the
        area range by label, the maxDets by value (an absent value selects
        nothing, giving -1), with the same array layout so that the mean
        sums the same numbers in the same order.
        """
        p = self.params
        aind = [i for i, label in enumerate(p.areaRngLbl) if label == area]
        mind = [i for i, m in enumerate(p.maxDets) if m == max_dets]
        s = self.eval['precision' if ap == 1 else 'recall']
        if iou_thr is not None:
            s = s[np.where(iou_thr == p.iouThrs)[0]]
        s = s[:, :, :, aind, mind] if ap == 1 else s[:, :, aind, mind]
        value = np.mean(s[s > -1]) if np.any(s > -1) else -1
        iou = (f'{p.iouThrs[0]:0.2f}:{p.iouThrs[-1]:0.2f}'
               if iou_thr is None else f'{iou_thr:0.2f}')
        title, kind = (('Average Precision', '(AP)') if ap == 1 else
                       ('Average Recall', '(AR)'))
        self.print_function(f' {title:<18} {kind} @[ IoU={iou:<9} | '
                            f'area={area:>6s} | maxDets={max_dets:>3d} ] = '
                            f'{value:0.3f}')
        return value
