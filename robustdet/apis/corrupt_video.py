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
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, write_bytes_atomic


def _frames_only(dataset_cfg: Dict[str, Any]) -> Dict[str, Any]:
    """The dataset config with its pipeline cut after the image loading
    step (frames and instances are all that is written)."""
    cfg = copy.deepcopy(dataset_cfg)
    node = cfg
    while 'pipeline' not in node and isinstance(node.get('dataset'), dict):
        node = node['dataset']
    pipeline = node.get('pipeline') or []
    loaders = [i for i, t in enumerate(pipeline)
               if str(t.get('type', '')).startswith('LoadImage')]
    if not loaders:
        raise RobustDetError(
            'the test dataset pipeline has no image loading step '
            f'(LoadImage...): {[t.get("type") for t in pipeline]}')
    node['pipeline'] = pipeline[:loaders[0] + 1]
    return cfg


def _relative(path: str, root: Optional[str]) -> str:
    if root:
        rel = osp.relpath(osp.abspath(path), osp.abspath(root))
        if not rel.startswith(osp.pardir):
            return rel
    return osp.join(*osp.normpath(path).split(osp.sep)[-2:])


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
    import cv2
    from mmdet.registry import DATASETS

    from ..datasets import VideoCorruptedDataset
    cfg = _frames_only(dataset_cfg)
    written = {}
    for name, severity in cells:
        dataset = VideoCorruptedDataset(
            DATASETS.build(copy.deepcopy(cfg)), name, severity,
            **video_args)
        leaf = dataset._leaves[0]
        root = getattr(leaf, 'data_root', None)
        cat_ids = list(getattr(leaf, 'cat_ids', None) or range(
            1, len(dataset.metainfo['classes']) + 1))
        cell_dir = osp.join(out_dir, name, str(severity))
        images: List[dict] = []
        annotations: List[dict] = []
        count = 0
        for i in range(len(dataset)):
            info = dataset.get_data_info(i)
            rel = osp.splitext(_relative(info['img_path'], root))[0] + '.png'
            path = osp.join(cell_dir, rel)
            sample = dataset[i]
            img = sample['img']
            if img.dtype != np.uint8:  # a loader with to_float32
                img = np.clip(np.rint(img), 0, 255).astype(np.uint8)
            write_bytes_atomic(cv2.imencode('.png', img)[1].tobytes(), path)
            count += 1
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
        written[f'{name}/{severity}'] = count
    return written
