# Copyright (c) robustdet contributors. All rights reserved.
"""Write a video detection test set under clip corruptions to disk: the
frames ``tools/test_robust.py`` scores, and their delivered ground truth.

Output per cell: ``OUT/<corruption>/<severity>/<frame path relative to
data_root>`` with ``.png`` (lossless: a JPEG would add its own artefacts to
the codecs'), and ``OUT/<corruption>/<severity>/annotations.json``, a COCO
json of those frames with the ground truth the dataset delivers (moved by
camera motion, dropped when out of frame).
"""
import copy
import os.path as osp
from typing import Any, Dict, List, Sequence, Tuple

import cv2
import numpy as np
from mmdet.registry import DATASETS

from ..datasets import VideoCorruptedDataset
from ..datasets.video_clips import frame_identity
from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, write_bytes_atomic


def write_corrupted_videos(dataset_cfg: Dict[str, Any],
                           out_dir: str,
                           cells: Sequence[Tuple[str, int]],
                           video_args: Dict[str, Any]) -> Dict[str, int]:
    """Write every frame of a video test set under each cell.

    Args:
        dataset_cfg (dict): The test dataset config (e.g. a ``CocoDataset``
            on CocoVID annotations, or a ``NeighborSetDataset``).
        out_dir (str): Output root.
        cells (Sequence[tuple[str, int]]): ``(clip corruption, severity)``.
        video_args (dict): ``seed``, ``clip_len``, ``clip_mode``,
            ``short_clips``... of :class:`VideoCorruptedDataset` (the same
            as ``test_robust.py``'s give the same pixels).

    Returns:
        dict: ``{'<corruption>/<severity>': frames written}``.
    """
    written = {}
    for name, severity in cells:
        dataset = VideoCorruptedDataset(
            DATASETS.build(copy.deepcopy(dataset_cfg)), name, severity,
            **video_args)
        if len(dataset._leaves) != 1:
            raise RobustDetError(
                'write one video dataset at a time, not '
                f'{type(dataset.dataset).__name__} of '
                f'{len(dataset._leaves)}')
        leaf, pipeline = dataset._leaves[0], dataset._pipelines[0]
        root = getattr(leaf, 'data_root', None)
        cat_ids = list(getattr(leaf, 'cat_ids', None) or range(
            1, len(dataset.metainfo['classes']) + 1))
        cell_dir = osp.join(out_dir, name, str(severity))
        images: List[dict] = []
        annotations: List[dict] = []
        for i in range(len(dataset)):
            info = dataset.get_data_info(i)
            rel = osp.splitext(frame_identity(info['img_path'],
                                              [root]))[0] + '.png'
            path = osp.join(cell_dir, rel)
            # The frame and delivered instances before the rest of the test
            # pipeline (resizing...).
            sample = pipeline.load_and_corrupt(info, (name, severity))
            img = sample['img']
            if img.dtype != np.uint8:  # a loader with to_float32
                img = np.clip(np.rint(img), 0, 255).astype(np.uint8)
            write_bytes_atomic(cv2.imencode('.png', img)[1].tobytes(), path)
            height, width = sample['img'].shape[:2]
            image_id = info.get('img_id', i)
            images.append(dict(id=image_id, file_name=rel, width=width,
                               height=height))
            for inst in sample.get('instances', []):
                x1, y1, x2, y2 = inst['bbox']
                annotations.append(
                    dict(id=len(annotations) + 1, image_id=image_id,
                         category_id=cat_ids[inst['bbox_label']],
                         bbox=[x1, y1, x2 - x1, y2 - y1],
                         area=(x2 - x1) * (y2 - y1),
                         iscrowd=int(inst.get('ignore_flag', 0))))
        categories = [
            dict(id=cid, name=n)
            for cid, n in zip(cat_ids, dataset.metainfo['classes'])
        ]
        dump_json_atomic(
            dict(images=images, annotations=annotations,
                 categories=categories),
            osp.join(cell_dir, 'annotations.json'))
        dataset.store.close()
        written[f'{name}/{severity}'] = len(images)
    return written
