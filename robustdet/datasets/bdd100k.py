# Copyright (c) robustdet contributors. All rights reserved.
"""BDD100k detection labels as an mmdet dataset, with weather, time of day
and scene filters (Michaelis et al. 2019, section 3.5).

The detection labels (``labels/det_20/det_{train,val}.json``) are a JSON
list of frames::

    {"name": "b1c66a42-6f7d68ca.jpg",
     "attributes": {"weather": "clear", "scene": "city street",
                    "timeofday": "daytime"},
     "labels": [{"id": "1", "category": "car",
                 "attributes": {"occluded": false, "truncated": false,
                                "trafficLightColor": "none"},
                 "box2d": {"x1": 1.0, "y1": 2.0, "x2": 30.0, "y2": 40.0}}]}

A frame may lack ``labels``; labels without ``box2d`` (``drivable area``,
``lane``: polygons only) are skipped. Images are
``images/100k/{train,val}/<name>``, all 1280x720.

Boxes follow the BDD100k (Scalabel) convention that ``x2``/``y2`` are the
last pixel inside the box: the official COCO conversion (Scalabel's
``box2d_to_bbox``) uses width ``x2 - x1 + 1``, so the mmdet box is
``[x1, y1, x2 + 1, y2 + 1]``, and the COCO json written by
:func:`write_coco_annotations` holds the very same boxes.

mmdet's ``CocoMetric`` needs a COCO json of exactly the images evaluated;
:func:`write_coco_annotations` writes it from the same selection (file
list, filters) as :class:`BDD100kDataset`, with the same image ids (one
plus the frame's position in the labels file, as the official converter
numbers them) and the same boxes; ignored boxes have ``iscrowd=1``, which
pycocotools treats as ignore regions. ``tools/make_bdd100k_splits.py
--coco`` writes one per split. Alternatively, ``CocoMetric`` without
``ann_file`` builds the same ground truth from the data samples when
``PackDetInputs`` keeps ``'instances'`` in its ``meta_keys`` (one evaluator
then serves every subset).
"""
import json
import os.path as osp
from typing import List, Optional, Sequence, Tuple, Union

from mmdet.datasets import BaseDetDataset
from mmdet.registry import DATASETS
from mmengine.fileio import get_text

from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic

#: The 10 detection classes in the official order (category ids 1-10 of
#: the BDD100k COCO conversion; doc/source/format.rst of
#: github.com/bdd100k/bdd100k).
BDD100K_CLASSES = ('pedestrian', 'rider', 'car', 'truck', 'bus', 'train',
                   'motorcycle', 'bicycle', 'traffic light', 'traffic sign')
#: Cityscapes colours of the same classes (traffic sign: Cityscapes'
#: traffic sign yellow).
BDD100K_PALETTE = [(220, 20, 60), (255, 0, 0), (0, 0, 142), (0, 0, 70),
                   (0, 60, 100), (0, 80, 100), (0, 0, 230), (119, 11, 32),
                   (250, 170, 30), (220, 220, 0)]
# The two mappings below are ``[name_mapping]`` and ``[ignored_mapping]``
# of the official detection config, bdd100k/configs/det.toml in
# github.com/bdd100k/bdd100k (with remove_ignored = false and
# ignored_as_class = false: ignored boxes stay, as ignore regions).
#: Old category names and their detection class.
BDD100K_NAME_MAPPING = {
    'bike': 'bicycle',
    'caravan': 'car',
    'motor': 'motorcycle',
    'person': 'pedestrian',
    'van': 'car',
}
#: Categories whose boxes are ignore regions of a class, not ground truth.
BDD100K_IGNORED_MAPPING = {
    'other person': 'pedestrian',
    'other vehicle': 'car',
    'trailer': 'truck',
}
#: Frame attributes and their values (doc/source/format.rst of
#: github.com/bdd100k/bdd100k, "Frame attributes").
BDD100K_ATTRIBUTES = {
    'weather': ('clear', 'overcast', 'partly cloudy', 'rainy', 'snowy',
                'foggy', 'undefined'),
    'timeofday': ('daytime', 'night', 'dawn/dusk', 'undefined'),
    'scene': ('city street', 'highway', 'residential', 'parking lot',
              'tunnel', 'gas stations', 'undefined'),
}
#: ``(height, width)`` of every BDD100k image.
BDD100K_IMG_SIZE = (720, 1280)

Filter = Union[None, str, Sequence[str]]


def read_bdd100k_labels(path: str,
                        backend_args: Optional[dict] = None) -> List[dict]:
    """Read a BDD100k detection labels file and check its frames.

    Args:
        path (str): The ``det_*.json`` file.
        backend_args (dict, optional): mmengine file backend arguments.

    Returns:
        list[dict]: The frames, each with a unique string ``name``.
    """
    try:
        text = get_text(path, backend_args=backend_args)
    except FileNotFoundError as e:
        raise RobustDetError(f'BDD100k labels file not found: {path}') from e
    except IsADirectoryError as e:
        raise RobustDetError(
            f'BDD100k labels path is a directory: {path}') from e
    try:
        frames = json.loads(text)
    except ValueError as e:
        raise RobustDetError(
            f'BDD100k labels file {path} is not valid JSON: {e}') from e
    if not isinstance(frames, list):
        raise RobustDetError(
            f'BDD100k labels file {path} is not a list of frames (got a '
            f'{type(frames).__name__})')
    seen = set()
    for i, frame in enumerate(frames):
        name = frame.get('name') if isinstance(frame, dict) else None
        if not isinstance(name, str) or not name:
            raise RobustDetError(
                f'frame {i} of {path} has no name (not a BDD100k labels '
                'file?)')
        if name in seen:
            raise RobustDetError(f'frame {name!r} appears twice in {path}')
        seen.add(name)
    return frames


def read_file_list(path: str,
                   backend_args: Optional[dict] = None) -> List[str]:
    """Image names of a file list: one a line, blank lines skipped.

    Args:
        path (str): The text file.
        backend_args (dict, optional): mmengine file backend arguments.

    Returns:
        list[str]: The names in file order.
    """
    try:
        text = get_text(path, backend_args=backend_args)
    except (FileNotFoundError, IsADirectoryError) as e:
        raise RobustDetError(f'file list not found: {path}') from e
    return [line.strip() for line in text.splitlines() if line.strip()]


def check_filter(attribute: str, values: Filter) -> Optional[Tuple[str]]:
    """Normalise an attribute filter and check its values.

    Args:
        attribute (str): ``'weather'``, ``'timeofday'`` or ``'scene'``.
        values (str | Sequence[str] | None): Wanted value(s); None for no
            filter.

    Returns:
        tuple[str] | None: The values, or None for no filter.
    """
    if values is None:
        return None
    valid = BDD100K_ATTRIBUTES[attribute]
    values = (values, ) if isinstance(values, str) else tuple(values)
    if not values:
        raise RobustDetError(
            f'empty {attribute} filter; give None for no filter or some of: '
            f'{", ".join(valid)}')
    for value in values:
        if value not in valid:
            raise RobustDetError(f'unknown {attribute} {value!r}; valid: '
                                 f'{", ".join(valid)}')
    return values


def frame_attribute(frame: dict, attribute: str) -> str:
    """The value of a frame attribute, or a user error naming the frame.

    Args:
        frame (dict): A BDD100k frame.
        attribute (str): ``'weather'``, ``'timeofday'`` or ``'scene'``.

    Returns:
        str: The value.
    """
    attributes = frame.get('attributes')
    value = (attributes.get(attribute)
             if isinstance(attributes, dict) else None)
    if not isinstance(value, str):
        raise RobustDetError(
            f'frame {frame["name"]!r} has no {attribute} attribute, which '
            'is needed to filter or split on it')
    return value


def select_frames(frames: Sequence[dict],
                  names: Optional[Sequence[str]] = None,
                  weather: Filter = None,
                  timeofday: Filter = None,
                  scene: Filter = None,
                  labels_file: str = 'the labels',
                  file_list: str = 'the file list') -> List[Tuple[int, dict]]:
    """The frames of a file list and/or attribute filters.

    Args:
        frames (Sequence[dict]): All frames of a labels file.
        names (Sequence[str], optional): Only these frames, in this order.
        weather (str | Sequence[str], optional): Keep these weathers.
        timeofday (str | Sequence[str], optional): Keep these times of day.
        scene (str | Sequence[str], optional): Keep these scenes.
        labels_file (str): Name of the labels file, for messages.
        file_list (str): Name of the file list, for messages.

    Returns:
        list[tuple[int, dict]]: ``(position in frames, frame)`` pairs, in
        file-list order (labels order without a file list).
    """
    filters = [(attribute, check_filter(attribute, values))
               for attribute, values in (('weather', weather),
                                         ('timeofday', timeofday),
                                         ('scene', scene))]
    filters = [(a, set(v)) for a, v in filters if v is not None]
    if names is None:
        chosen = list(enumerate(frames))
    else:
        index = {frame['name']: i for i, frame in enumerate(frames)}
        chosen, seen = [], set()
        for name in names:
            if name not in index:
                raise RobustDetError(
                    f'{name!r} of {file_list} is not a frame of '
                    f'{labels_file}')
            if name in seen:
                raise RobustDetError(
                    f'{name!r} appears twice in {file_list}')
            seen.add(name)
            chosen.append((index[name], frames[index[name]]))
    return [(i, frame) for i, frame in chosen
            if all(frame_attribute(frame, a) in v for a, v in filters)]


def frame_instances(frame: dict,
                    classes: Sequence[str] = BDD100K_CLASSES) -> List[dict]:
    """The boxes of a frame as mmdet instances.

    Renamed categories (:data:`BDD100K_NAME_MAPPING`) count as their class;
    categories of :data:`BDD100K_IGNORED_MAPPING` and labels with the
    ``crowd`` attribute become ignore regions (``ignore_flag=1``) of their
    class, as in the official COCO conversion. Labels without ``box2d`` are
    skipped, and so are boxes of classes not in ``classes`` and boxes
    narrower or lower than one pixel (as mmdet's ``CocoDataset`` does).

    Args:
        frame (dict): A BDD100k frame.
        classes (Sequence[str]): The dataset's classes, a subset of
            :data:`BDD100K_CLASSES`; ``bbox_label`` indexes it.

    Returns:
        list[dict]: ``bbox`` (``[x1, y1, x2 + 1, y2 + 1]``), ``bbox_label``
        and ``ignore_flag`` of each box.
    """
    instances = []
    for label in frame.get('labels') or ():
        box = label.get('box2d')
        if box is None:
            continue
        category = label.get('category')
        ignore = category in BDD100K_IGNORED_MAPPING
        if category in BDD100K_CLASSES:
            name = category
        elif category in BDD100K_NAME_MAPPING:
            name = BDD100K_NAME_MAPPING[category]
        elif ignore:
            name = BDD100K_IGNORED_MAPPING[category]
        else:
            raise RobustDetError(
                f'unknown category {category!r} in frame {frame["name"]!r}; '
                'known: ' + ', '.join(
                    list(BDD100K_CLASSES) + list(BDD100K_NAME_MAPPING) +
                    list(BDD100K_IGNORED_MAPPING)))
        if name not in classes:
            continue
        attributes = label.get('attributes') or {}
        ignore = ignore or bool(attributes.get('crowd', False))
        try:
            x1, y1 = float(box['x1']), float(box['y1'])
            x2, y2 = float(box['x2']) + 1, float(box['y2']) + 1
        except (KeyError, TypeError, ValueError) as e:
            raise RobustDetError(
                f'bad box2d {box!r} in frame {frame["name"]!r}') from e
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        instances.append(
            dict(
                bbox=[x1, y1, x2, y2],
                bbox_label=classes.index(name),
                ignore_flag=int(ignore)))
    return instances


def check_classes(classes: Sequence[str]) -> Tuple[str]:
    """Check that ``classes`` are BDD100k detection classes."""
    classes = tuple(classes)
    for name in classes:
        if name not in BDD100K_CLASSES:
            raise RobustDetError(f'{name!r} is not a BDD100k detection class; '
                                 f'valid: {", ".join(BDD100K_CLASSES)}')
    return classes


def check_img_size(img_size: Sequence[int]) -> Tuple[int, int]:
    """Check an ``(height, width)`` pair."""
    size = tuple(img_size)
    if len(size) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0
            for v in size):
        raise RobustDetError(
            f'img_size must be (height, width), two positive ints; got '
            f'{img_size!r}')
    return size


def build_data_list(frames: Sequence[dict],
                    names: Optional[Sequence[str]] = None,
                    weather: Filter = None,
                    timeofday: Filter = None,
                    scene: Filter = None,
                    classes: Sequence[str] = BDD100K_CLASSES,
                    img_size: Sequence[int] = BDD100K_IMG_SIZE,
                    img_prefix: str = '',
                    labels_file: str = 'the labels',
                    file_list: str = 'the file list') -> List[dict]:
    """mmdet data infos of the selected frames (see :func:`select_frames`).

    Args:
        frames (Sequence[dict]): All frames of a labels file.
        names (Sequence[str], optional): Only these frames, in this order.
        weather (str | Sequence[str], optional): Weather filter.
        timeofday (str | Sequence[str], optional): Time of day filter.
        scene (str | Sequence[str], optional): Scene filter.
        classes (Sequence[str]): Dataset classes.
        img_size (Sequence[int]): ``(height, width)`` of every image.
        img_prefix (str): Prefix of the image paths.
        labels_file (str): Name of the labels file, for messages.
        file_list (str): Name of the file list, for messages.

    Returns:
        list[dict]: ``img_path``, ``img_id`` (1 + position in the labels),
        ``file_name``, ``height``, ``width``, ``attributes`` (the frame's)
        and ``instances`` of each frame.
    """
    classes = check_classes(classes)
    height, width = check_img_size(img_size)
    chosen = select_frames(frames, names, weather, timeofday, scene,
                           labels_file, file_list)
    if not chosen:
        raise RobustDetError(
            f'no frame of {labels_file} is selected (file list: '
            f'{file_list if names is not None else "none"}, weather: '
            f'{weather}, timeofday: {timeofday}, scene: {scene})')
    return [
        dict(
            img_path=osp.join(img_prefix, frame['name']),
            img_id=i + 1,
            file_name=frame['name'],
            height=height,
            width=width,
            attributes=dict(frame.get('attributes') or {}),
            instances=frame_instances(frame, classes)) for i, frame in chosen
    ]


def data_list_to_coco(data_list: Sequence[dict],
                      classes: Sequence[str] = BDD100K_CLASSES) -> dict:
    """A COCO detection json of mmdet data infos.

    Category ids are ``label + 1``; ignored boxes get ``iscrowd=1``, an
    ignore region for pycocotools, and no ``ignore`` key (mmdet's
    ``CocoDataset`` would drop them); boxes are ``[x1, y1, x2 - x1,
    y2 - y1]`` of the mmdet boxes. mmdet's ``CocoDataset`` reads back the
    same data list.

    Args:
        data_list (Sequence[dict]): Data infos of :func:`build_data_list`.
        classes (Sequence[str]): The classes ``bbox_label`` indexes.

    Returns:
        dict: ``images``, ``annotations``, ``categories``.
    """
    images, annotations = [], []
    for info in data_list:
        images.append(
            dict(
                id=info['img_id'],
                file_name=info['file_name'],
                height=info['height'],
                width=info['width']))
        for inst in info['instances']:
            x1, y1, x2, y2 = inst['bbox']
            w, h = x2 - x1, y2 - y1
            annotations.append(
                dict(
                    id=len(annotations) + 1,
                    image_id=info['img_id'],
                    category_id=inst['bbox_label'] + 1,
                    bbox=[x1, y1, w, h],
                    area=w * h,
                    iscrowd=inst['ignore_flag']))
    categories = [dict(id=i + 1, name=name) for i, name in enumerate(classes)]
    return dict(
        images=images, annotations=annotations, categories=categories)


def write_coco_annotations(ann_file: str,
                           out_file: str,
                           file_list: Optional[str] = None,
                           weather: Filter = None,
                           timeofday: Filter = None,
                           scene: Filter = None,
                           classes: Sequence[str] = BDD100K_CLASSES,
                           img_size: Sequence[int] = BDD100K_IMG_SIZE,
                           backend_args: Optional[dict] = None) -> dict:
    """Write the COCO json of the frames a :class:`BDD100kDataset` with the
    same arguments loads, for mmdet's ``CocoMetric(ann_file=out_file)``.

    Same images, ids, boxes and ignore regions as the dataset (test mode:
    ``filter_cfg`` would drop images the json keeps).

    Args:
        ann_file (str): BDD100k detection labels (``det_*.json``).
        out_file (str): COCO json to write (atomically).
        file_list (str, optional): Text file of image names: only those.
        weather (str | Sequence[str], optional): Weather filter.
        timeofday (str | Sequence[str], optional): Time of day filter.
        scene (str | Sequence[str], optional): Scene filter.
        classes (Sequence[str]): Dataset classes.
        img_size (Sequence[int]): ``(height, width)`` of every image.
        backend_args (dict, optional): mmengine file backend arguments.

    Returns:
        dict: The COCO json written.
    """
    frames = read_bdd100k_labels(ann_file, backend_args)
    names = (read_file_list(file_list, backend_args)
             if file_list is not None else None)
    data_list = build_data_list(
        frames,
        names,
        weather,
        timeofday,
        scene,
        classes=classes,
        img_size=img_size,
        labels_file=ann_file,
        file_list=file_list or 'the file list')
    coco = data_list_to_coco(data_list, classes)
    dump_json_atomic(coco, out_file, indent=None)
    return coco


@DATASETS.register_module()
class BDD100kDataset(BaseDetDataset):
    """BDD100k 2D detection (10 classes) with attribute filters.

    The paper's weather and time-of-day subsets are file lists made by
    ``tools/make_bdd100k_splits.py``; a test config reads::

        test_dataloader = dict(dataset=dict(
            type='BDD100kDataset', data_root='data/bdd100k/',
            ann_file='labels/det_20/det_val.json',
            file_list='splits/val_rainy.txt',
            data_prefix=dict(img='images/100k/val/'), test_mode=True,
            pipeline=test_pipeline))
        test_evaluator = dict(type='CocoMetric', metric='bbox',
            ann_file='data/bdd100k/splits/val_rainy_coco.json')

    Image ids are one plus the frame's position in ``ann_file`` (the same
    in every subset). Renamed categories map to their class, ignored
    categories and crowd boxes are ignore regions (see
    :func:`frame_instances`). ``filter_cfg`` takes ``filter_empty_gt``
    (drop frames without any box, ignored ones included, as mmdet's
    ``CocoDataset``) and ``min_size``; it applies outside test mode only.

    Args:
        ann_file (str): Detection labels, relative to ``data_root``.
        file_list (str, optional): Text file (relative to ``data_root``)
            of image names, one a line: only those frames, in that order.
        weather (str | Sequence[str], optional): Keep frames with these
            weathers (:data:`BDD100K_ATTRIBUTES`).
        timeofday (str | Sequence[str], optional): Keep these times of day.
        scene (str | Sequence[str], optional): Keep these scenes.
        img_size (Sequence[int]): ``(height, width)`` of every image
            (the labels have no sizes; BDD100k images are 720x1280).
        data_prefix (dict): ``img``: prefix of the image paths.
        **kwargs: See :class:`mmdet.datasets.BaseDetDataset`.
    """

    METAINFO = dict(classes=BDD100K_CLASSES, palette=BDD100K_PALETTE)

    def __init__(self,
                 ann_file: str = 'labels/det_20/det_val.json',
                 file_list: Optional[str] = None,
                 weather: Filter = None,
                 timeofday: Filter = None,
                 scene: Filter = None,
                 img_size: Sequence[int] = BDD100K_IMG_SIZE,
                 data_prefix: Optional[dict] = None,
                 **kwargs) -> None:
        self.file_list = file_list
        self.weather = check_filter('weather', weather)
        self.timeofday = check_filter('timeofday', timeofday)
        self.scene = check_filter('scene', scene)
        self.img_size = check_img_size(img_size)
        super().__init__(
            ann_file=ann_file,
            data_prefix=data_prefix or dict(img='images/100k/val/'),
            **kwargs)

    def load_data_list(self) -> List[dict]:
        """Data infos of the selected frames (see
        :func:`build_data_list`)."""
        frames = read_bdd100k_labels(self.ann_file, self.backend_args)
        file_list = self.file_list
        names = None
        if file_list is not None:
            if self.data_root and not osp.isabs(file_list):
                file_list = osp.join(self.data_root, file_list)
            names = read_file_list(file_list, self.backend_args)
        return build_data_list(
            frames,
            names,
            self.weather,
            self.timeofday,
            self.scene,
            classes=self.metainfo['classes'],
            img_size=self.img_size,
            img_prefix=self.data_prefix.get('img', ''),
            labels_file=self.ann_file,
            file_list=file_list or 'the file list')

    def filter_data(self) -> List[dict]:
        """Apply ``filter_cfg`` (``filter_empty_gt``, ``min_size``) outside
        test mode."""
        if self.test_mode or not self.filter_cfg:
            return self.data_list
        filter_empty_gt = self.filter_cfg.get('filter_empty_gt', False)
        min_size = self.filter_cfg.get('min_size', 0)
        return [
            info for info in self.data_list
            if not (filter_empty_gt and not info['instances'])
            and min(info['width'], info['height']) >= min_size
        ]
