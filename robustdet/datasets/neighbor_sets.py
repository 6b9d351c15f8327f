# Copyright (c) robustdet contributors. All rights reserved.
"""Video-frame neighbour sets as an mmdet detection dataset.

ImageNet-Vid-Robust (Shankar et al. 2019) gives, for each anchor frame,
nearby frames of the same video that look alike
(``metadata/pmsets.json``: ``{anchor_key: [neighbour_key, ...]}``, keys like
``val/ILSVRC2015_val_00000000/000442.JPEG``, offsets = differences of the
frame numbers). :class:`NeighborSetDataset` yields every frame of every set
as an ordinary detection image whose info carries ``anchor_key``,
``anchor_id``, ``frame_key`` and ``offset``; :class:`PMKMetric` then scores
the worst frame of each set (pm-k).
"""
import io
import json
import os.path as osp
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional

from mmdet.datasets import BaseDetDataset
from mmdet.registry import DATASETS
from mmengine.fileio import get, get_local_path
from mmengine.logging import print_log
from PIL import Image

from ..utils.errors import RobustDetError
from ..utils.pmsets import parse_pmsets, read_json

#: The 30 ImageNet VID classes in alphabetical order (the class indices
#: 0-29 of ImageNet-Vid-Robust's labels.json) and their WordNet ids, which
#: the VID XML annotations use as object names.
IMAGENET_VID_CLASSES = (
    'airplane', 'antelope', 'bear', 'bicycle', 'bird', 'bus', 'car', 'cattle',
    'dog', 'domestic_cat', 'elephant', 'fox', 'giant_panda', 'hamster',
    'horse', 'lion', 'lizard', 'monkey', 'motorcycle', 'rabbit', 'red_panda',
    'sheep', 'snake', 'squirrel', 'tiger', 'train', 'turtle', 'watercraft',
    'whale', 'zebra')
IMAGENET_VID_WNIDS = (
    'n02691156', 'n02419796', 'n02131653', 'n02834778', 'n01503061',
    'n02924116', 'n02958343', 'n02402425', 'n02084071', 'n02121808',
    'n02503517', 'n02118333', 'n02510455', 'n02342885', 'n02374451',
    'n02129165', 'n01674464', 'n02484322', 'n03790512', 'n02324045',
    'n02509815', 'n02411705', 'n01726692', 'n02355227', 'n02129604',
    'n04468005', 'n01662784', 'n04530566', 'n02062744', 'n02391049')
ANN_FORMATS = ('coco', 'vid_xml')


@DATASETS.register_module()
class NeighborSetDataset(BaseDetDataset):
    """Frames of pm-k neighbour sets as a detection dataset.

    Every (anchor, frame) pair of the sets is one item - the anchor itself
    with offset 0 and each neighbour with its offset - so a frame that
    belongs to two sets appears twice. Ground truth comes from

    - ``ann_format='coco'``: a COCO / CocoVID json (``ann_file``) whose
      ``images[].file_name`` equal the frame keys; or
    - ``ann_format='vid_xml'``: ImageNet VID XML files at
      ``data_prefix['ann'] + key`` with ``.xml`` (object names are WordNet
      ids or class names; boxes ``[xmin, ymin, xmax, ymax]`` used as
      ``x1, y1, x2, y2``, as mmtracking's VID converter does).

    YTBB-Robust style sets annotate anchors only: with
    ``carry_anchor_boxes=True`` every neighbour gets its anchor's boxes
    (objects barely move within ±10 frames; that is the premise of the
    benchmark), and neighbours need no annotation entry (their size is read
    from the image header).

    A key of the sets that is missing from the annotations is an error that
    names the key; nothing is skipped silently.

    Args:
        sets_file (str): pmsets json ``{anchor_key: [neighbour_key, ...]}``.
        ann_file (str): COCO/CocoVID json for ``ann_format='coco'``.
        ann_format (str): ``'coco'`` or ``'vid_xml'``.
        labels_file (str, optional): ``{frame_key: [class_idx, ...]}``
            (ImageNet-Vid-Robust's ``labels.json``): the frame labels of
            the classification metrics. Default: the classes of the
            frame's boxes.
        carry_anchor_boxes (bool): Give neighbours the anchor's boxes.
        data_prefix (dict): ``img`` (prefix of image paths) and, for
            ``vid_xml``, ``ann`` (prefix of XML paths).
        **kwargs: See :class:`mmdet.datasets.BaseDetDataset`.
    """

    METAINFO = dict(classes=IMAGENET_VID_CLASSES)

    def __init__(self,
                 sets_file: str,
                 ann_file: str = '',
                 ann_format: str = 'coco',
                 labels_file: Optional[str] = None,
                 carry_anchor_boxes: bool = False,
                 data_prefix: Optional[dict] = None,
                 **kwargs) -> None:
        if ann_format not in ANN_FORMATS:
            raise RobustDetError(f'unknown ann_format {ann_format!r}; '
                                 f'valid: {", ".join(ANN_FORMATS)}')
        if ann_format == 'coco' and not ann_file:
            raise RobustDetError("ann_format='coco' needs an ann_file")
        self.sets_file = sets_file
        self.ann_format = ann_format
        self.labels_file = labels_file
        self.carry_anchor_boxes = carry_anchor_boxes
        super().__init__(
            ann_file=ann_file,
            data_prefix=data_prefix or dict(img='', ann=''),
            **kwargs)

    def _join(self, path: Optional[str]) -> Optional[str]:
        if path and self.data_root and not osp.isabs(path):
            return osp.join(self.data_root, path)
        return path

    def load_data_list(self) -> List[dict]:
        """One item per (anchor, frame) of the neighbour sets."""
        sets = parse_pmsets(read_json(self._join(self.sets_file),
                                      'pm sets'))
        classes = list(self.metainfo['classes'])
        keys = {a for a, _ in sets} | {n for _, ns in sets for n, _ in ns}
        need = ({a for a, _ in sets} if self.carry_anchor_boxes else keys)
        if self.ann_format == 'coco':
            frames = self._coco_frames(need, classes)
        else:
            frames = {k: self._xml_frame(k, classes) for k in sorted(need)}
        labels = (read_json(self._join(self.labels_file), 'labels')
                  if self.labels_file else None)
        data_list = []
        for anchor_id, (anchor, neighbours) in enumerate(sets):
            for key, offset in [(anchor, 0)] + list(neighbours):
                if self.carry_anchor_boxes and key != anchor:
                    frame = dict(frames[anchor], **self._image_size(key))
                else:
                    frame = frames[key]
                if labels is not None and key not in labels:
                    raise RobustDetError(
                        f'frame {key!r} of the pm sets is missing from '
                        f'{self.labels_file}')
                frame_labels = (
                    sorted(int(c) for c in labels[key])
                    if labels is not None else sorted(
                        {i['bbox_label'] for i in frame['instances']}))
                data_list.append(
                    dict(
                        img_path=osp.join(self.data_prefix.get('img', ''),
                                          key),
                        img_id=len(data_list),
                        frame_key=key,
                        anchor_key=anchor,
                        anchor_id=anchor_id,
                        offset=offset,
                        width=frame['width'],
                        height=frame['height'],
                        frame_labels=frame_labels,
                        instances=[dict(i) for i in frame['instances']]))
        assert keys >= {d['frame_key'] for d in data_list}
        return data_list

    def _coco_frames(self, need, classes) -> Dict[str, dict]:
        with get_local_path(self.ann_file,
                            backend_args=self.backend_args) as path:
            with open(path, encoding='utf-8') as f:
                coco = json.load(f)
        cat_label = {
            c['id']: classes.index(c['name'])
            for c in coco.get('categories', []) if c['name'] in classes
        }
        by_name = {img['file_name']: img for img in coco.get('images', [])}
        missing = sorted(need - set(by_name))
        if missing:
            raise RobustDetError(
                f'frame {missing[0]!r} of the pm sets is not in '
                f'{self.ann_file} ({len(missing)} missing)')
        wanted = {by_name[k]['id']: k for k in need}
        frames = {
            k: dict(
                width=by_name[k]['width'],
                height=by_name[k]['height'],
                instances=[])
            for k in need
        }
        dropped = 0
        for ann in coco.get('annotations', []):
            key = wanted.get(ann['image_id'])
            if key is None:
                continue
            if ann['category_id'] not in cat_label:
                dropped += 1
                continue
            x, y, w, h = ann['bbox']
            if w < 1 or h < 1:
                dropped += 1
                continue
            frames[key]['instances'].append(
                dict(
                    bbox=[x, y, x + w, y + h],
                    bbox_label=cat_label[ann['category_id']],
                    ignore_flag=int(bool(ann.get('iscrowd', 0)))))
        if dropped:
            print_log(
                f'{dropped} boxes of the pm-set frames have a category '
                'outside the classes or no area and are not used',
                logger='current')
        return frames

    def _xml_frame(self, key: str, classes) -> dict:
        wnid = dict(zip(IMAGENET_VID_WNIDS, IMAGENET_VID_CLASSES))
        path = osp.join(self.data_prefix.get('ann', ''),
                        osp.splitext(key)[0] + '.xml')
        try:
            root = ET.fromstring(get(path, backend_args=self.backend_args))
        except FileNotFoundError:
            raise RobustDetError(
                f'frame {key!r} of the pm sets has no annotation {path}'
            ) from None
        except ET.ParseError as e:
            raise RobustDetError(f'cannot parse {path}: {e}') from None
        size = root.find('size')
        instances = []
        for obj in root.findall('object'):
            name = obj.findtext('name')
            name = wnid.get(name, name)
            if name not in classes:
                raise RobustDetError(
                    f'{path}: object class {obj.findtext("name")!r} is not '
                    'one of the dataset classes')
            box = obj.find('bndbox')
            x1, y1, x2, y2 = (
                float(box.findtext(t)) for t in ('xmin', 'ymin', 'xmax',
                                                 'ymax'))
            instances.append(
                dict(bbox=[x1, y1, x2, y2],
                     bbox_label=classes.index(name),
                     ignore_flag=0))
        return dict(
            width=int(size.findtext('width')),
            height=int(size.findtext('height')),
            instances=instances)

    def _image_size(self, key: str) -> dict:
        path = osp.join(self.data_prefix.get('img', ''), key)
        try:
            with Image.open(io.BytesIO(get(
                    path, backend_args=self.backend_args))) as img:
                width, height = img.size
        except FileNotFoundError:
            raise RobustDetError(
                f'neighbour frame {key!r} has no image {path}') from None
        return dict(width=width, height=height)

    def filter_data(self) -> List[dict]:
        """Neighbour sets are evaluated whole: nothing is filtered."""
        return self.data_list
