# Copyright (c) robustdet contributors. All rights reserved.
"""A detector that computes nothing: a benchmark instrument.

To time what a robustness harness does around the model (decoding,
corrupting, collating, evaluating, writing), ``tools/benchmarks/
bench_coco_scale.py`` swaps the model for :class:`ReplayDetector`: for
each image it returns a fixed set of detections read from a file, as
mmdet's ``DetDataSample.pred_instances``, so that both robustdet's and
mmdet's tools evaluate real-looking predictions at no model cost. It is
never used in a test of numbers in place of a real model.

The detections file is an ``.npz`` (read with ``allow_pickle=False``):
``names`` (the image file names, without folders), ``offsets`` (where
each image's detections start in the arrays, one more entry than names),
``bboxes`` (``(N, 4)`` float32, x1 y1 x2 y2 in original image pixels),
``scores`` (``(N,)`` float32) and ``labels`` (``(N,)`` int64);
:func:`save_detections` writes one.
"""
import os.path as osp
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
from mmdet.models.detectors import BaseDetector
from mmdet.registry import MODELS
from mmengine.structures import InstanceData

from ..utils.errors import RobustDetError

_KEYS = ('names', 'offsets', 'bboxes', 'scores', 'labels')


def save_detections(path: str,
                    detections: Dict[str, Tuple[np.ndarray, np.ndarray,
                                                np.ndarray]]) -> None:
    """Write a detections file of :class:`ReplayDetector`.

    Args:
        path (str): The ``.npz`` file.
        detections (dict): Image file name -> ``(bboxes, scores, labels)``
            in original image pixels.
    """
    names = sorted(detections)
    counts = [len(detections[n][1]) for n in names]
    np.savez(
        path,
        names=np.array(names, dtype=str),
        offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        bboxes=np.concatenate([detections[n][0] for n in names]).astype(
            np.float32).reshape(-1, 4),
        scores=np.concatenate([detections[n][1] for n in names]).astype(
            np.float32),
        labels=np.concatenate([detections[n][2]
                               for n in names]).astype(np.int64))


def load_detections(path: str) -> Dict[str, Tuple[np.ndarray, ...]]:
    """Read a detections file (see the module docstring).

    Args:
        path (str): The ``.npz`` file.

    Returns:
        dict: Image file name -> ``(bboxes, scores, labels)``.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in _KEYS}
    except (OSError, KeyError, ValueError) as e:
        raise RobustDetError(
            f'ReplayDetector: {path} is not a detections file '
            f'({str(e)[:200]})') from None
    names, offsets = arrays['names'], arrays['offsets']
    if len(offsets) != len(names) + 1 or offsets[-1] != len(
            arrays['scores']):
        raise RobustDetError(
            f'ReplayDetector: {path}: offsets do not match the detections')
    return {
        str(name): tuple(arrays[k][offsets[i]:offsets[i + 1]]
                         for k in ('bboxes', 'scores', 'labels'))
        for i, name in enumerate(names)
    }


@MODELS.register_module()
class ReplayDetector(BaseDetector):
    """Returns each image's detections from a file; computes nothing.

    Only ``predict`` (mmdet's test path) is defined: it sets
    ``pred_instances`` (``bboxes``, ``scores``, ``labels``) of every data
    sample from the file, by the image's file name, in original image
    pixels, or rescaled to the network input's scale with ``rescale=False``
    as mmdet's detectors do. An image without detections in the file stops
    with one line naming it.

    Args:
        detections (str): The ``.npz`` file (see the module docstring).
        backbone (dict, optional): Ignored. mmdet's
            ``tools/analysis_tools/test_robustness.py`` sets
            ``model.backbone.init_cfg.type`` of every config it runs.
        data_preprocessor (dict, optional): As for any mmdet detector; it
            still normalises and pads the batch, as a real model's does.
        init_cfg (dict, optional): Ignored (no weights).
    """

    def __init__(self,
                 detections: str,
                 backbone: Optional[dict] = None,
                 data_preprocessor: Optional[dict] = None,
                 init_cfg: Optional[dict] = None) -> None:
        super().__init__(data_preprocessor=data_preprocessor)
        self.detections_file = detections
        self.detections = load_detections(detections)

    def _replay(self, sample: Any, rescale: bool) -> InstanceData:
        name = osp.basename(sample.img_path)
        if name not in self.detections:
            raise RobustDetError(
                f'ReplayDetector: no detections for {sample.img_path} in '
                f'{self.detections_file}')
        bboxes, scores, labels = (torch.from_numpy(a.copy())
                                  for a in self.detections[name])
        if not rescale:
            bboxes = bboxes * bboxes.new_tensor(
                sample.scale_factor).repeat(2)
        result = InstanceData()
        result.bboxes, result.scores, result.labels = bboxes, scores, labels
        return result

    def predict(self,
                batch_inputs: torch.Tensor,
                batch_data_samples: Sequence[Any],
                rescale: bool = True) -> List[Any]:
        """Set ``pred_instances`` of every sample from the file.

        Args:
            batch_inputs (Tensor): The batch (unused).
            batch_data_samples (list[DetDataSample]): The samples.
            rescale (bool): Boxes in original image pixels (True) or at
                the network input's scale.

        Returns:
            list[DetDataSample]: The samples.
        """
        for sample in batch_data_samples:
            sample.pred_instances = self._replay(sample, rescale)
        return list(batch_data_samples)

    def _forward(self, batch_inputs, batch_data_samples=None):
        raise NotImplementedError('ReplayDetector only predicts')

    def loss(self, batch_inputs, batch_data_samples):
        raise NotImplementedError('ReplayDetector cannot be trained')

    def extract_feat(self, batch_inputs):
        raise NotImplementedError('ReplayDetector computes no features')
