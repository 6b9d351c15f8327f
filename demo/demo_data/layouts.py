# Copyright (c) robustdet contributors. All rights reserved.
"""Write the seeded demo dataset in COCO, PASCAL VOC and Cityscapes layouts.

The same scenes are written in every layout:

* ``coco``: ``coco/{train2017,val2017}/*.jpg`` and
  ``coco/annotations/instances_{train,val}2017.json``.
* ``voc``: ``VOCdevkit/VOC2007/{JPEGImages,Annotations}`` with
  ``ImageSets/Main/trainval.txt`` (train split) and ``test.txt`` (val
  split). The JPEG files are byte-identical to the COCO ones.
* ``cityscapes``: ``cityscapes/leftImg8bit/{train,val}/<city>/*.png``,
  ``cityscapes/gtFine/...`` polygons, label and instance id images, and the
  COCO-style ``cityscapes/annotations/instancesonly_filtered_gtFine_*.json``
  made by mmdet's own Cityscapes converter.

Image ``i`` of a split is sampled from its own generator derived from
``(seed, split, i)``, so the number of training images does not change the
validation images, and the same arguments give byte-identical files.
"""
import contextlib
import importlib.util
import io
import json
import math
import os
import os.path as osp
import shutil
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import cv2
import numpy as np

from robustdet.utils.errors import RobustDetError
from .scene import (DEMO_CLASSES, Scene, background_horizon, render_scene,
                    sample_scene, scene_annotations)

#: Layouts that :func:`generate_demo_data` can write.
LAYOUTS = ('coco', 'voc', 'cityscapes')
#: Splits of the demo dataset, in seed order.
SPLITS = ('train', 'val')
#: Cityscapes label used for each demo class. Cityscapes tools only know
#: Cityscapes label names, so the demo classes are written as instance
#: classes of Cityscapes. mmdet's ``CocoDataset`` numbers the classes in
#: category-id order, not in the order of ``metainfo['classes']``, so the
#: labels are chosen with ascending ids (car 26, truck 27, bus 28): label i
#: is then the same class in the COCO, VOC and Cityscapes layouts, and one
#: detector can be tested on all three (see :func:`cityscapes_label_order`).
CITYSCAPES_LABELS = {'disc': 'car', 'square': 'truck', 'triangle': 'bus'}
#: Cityscapes cities of each split; images are assigned round robin.
CITYSCAPES_CITIES = {'train': ('shapeton', 'polygonia'), 'val': ('demoburg', )}
#: Name of the file that records the parameters of a demo output.
META_FILE = 'demo_meta.json'

_META_GENERATOR = 'robustdet.demo'
_META_VERSION = 2
_LAYOUT_DIRS = {'coco': 'coco', 'voc': 'VOCdevkit', 'cityscapes': 'cityscapes'}
_COCO_SPLIT_DIRS = {'train': 'train2017', 'val': 'val2017'}
_VOC_SPLIT_LISTS = {'train': 'trainval.txt', 'val': 'test.txt'}
_MAX_IMAGES = 99999
_JPEG_PARAMS = [int(cv2.IMWRITE_JPEG_QUALITY), 95]
_PNG_PARAMS = [int(cv2.IMWRITE_PNG_COMPRESSION), 3]


def split_rng(seed: int, split: str, index: int) -> np.random.Generator:
    """Generator of image ``index`` of ``split``.

    It is the ``index``-th child of ``SeedSequence([seed, split_index])``,
    independent of how many images the split has.

    Args:
        seed (int): Dataset seed (non-negative).
        split (str): One of :data:`SPLITS`.
        index (int): Image index in the split, from 0.

    Returns:
        np.random.Generator: The image's generator.
    """
    seq = np.random.SeedSequence([seed, SPLITS.index(split)],
                                 spawn_key=(index, ))
    return np.random.default_rng(seq)


def demo_scenes(seed: int, split: str, num_images: int,
                size: Tuple[int, int]) -> List[Scene]:
    """Scenes of a split of the demo dataset.

    Args:
        seed (int): Dataset seed.
        split (str): One of :data:`SPLITS`.
        num_images (int): Number of images.
        size (tuple[int, int]): Image size as ``(width, height)``.

    Returns:
        list[Scene]: One scene per image.
    """
    width, height = size
    return [
        sample_scene(split_rng(seed, split, i), width, height)
        for i in range(num_images)
    ]


def image_stem(split: str, index: int) -> str:
    """File stem of an image, unique across splits.

    Train images are ``000001``, ``000002``, ...; val images ``100001``, ...

    Args:
        split (str): One of :data:`SPLITS`.
        index (int): Image index in the split, from 0.

    Returns:
        str: Six digit stem.
    """
    return f'{SPLITS.index(split) * 100000 + index + 1:06d}'


def cityscapes_stem(split: str, index: int) -> str:
    """Cityscapes style stem ``{city}_{seq:06d}_{frame:06d}`` of an image.

    Args:
        split (str): One of :data:`SPLITS`.
        index (int): Image index in the split, from 0.

    Returns:
        str: The stem; the frame number is :func:`image_stem`.
    """
    cities = CITYSCAPES_CITIES[split]
    city = cities[index % len(cities)]
    return f'{city}_000000_{image_stem(split, index)}'


def cityscapes_label_order() -> Tuple[str, ...]:
    """Class names in the label order mmdet uses for the Cityscapes layout.

    With ``metainfo=dict(classes=...)`` containing the mapped names, mmdet
    assigns labels in ascending Cityscapes category id, so this order (not
    that of :data:`DEMO_CLASSES`) gives label indices.

    Returns:
        tuple[str]: Demo class names sorted by their Cityscapes label id.
    """
    from cityscapesscripts.helpers.labels import name2label
    return tuple(
        sorted(DEMO_CLASSES,
               key=lambda c: name2label[CITYSCAPES_LABELS[c]].id))


def demo_data_paths(out_dir: str,
                    layouts: Iterable[str] = LAYOUTS) -> Dict[str, str]:
    """Important paths of a demo output directory.

    Args:
        out_dir (str): Output directory.
        layouts (Iterable[str]): Layouts to list paths of.

    Returns:
        dict[str, str]: Absolute paths keyed by name, e.g. ``coco_val_ann``,
        ``voc_devkit`` or ``cityscapes_val_img_dir``.
    """
    out_dir = osp.abspath(out_dir)
    paths = dict(out_dir=out_dir, meta_file=osp.join(out_dir, META_FILE))
    layouts = set(layouts)
    if 'coco' in layouts:
        root = osp.join(out_dir, _LAYOUT_DIRS['coco'])
        paths['coco_root'] = root
        for split in SPLITS:
            name = _COCO_SPLIT_DIRS[split]
            paths[f'coco_{split}_ann'] = osp.join(root, 'annotations',
                                                  f'instances_{name}.json')
            paths[f'coco_{split}_img_dir'] = osp.join(root, name)
    if 'voc' in layouts:
        devkit = osp.join(out_dir, _LAYOUT_DIRS['voc'])
        root = osp.join(devkit, 'VOC2007')
        paths['voc_devkit'] = devkit
        paths['voc_root'] = root
        paths['voc_img_dir'] = osp.join(root, 'JPEGImages')
        paths['voc_ann_dir'] = osp.join(root, 'Annotations')
        paths['voc_trainval_list'] = osp.join(root, 'ImageSets', 'Main',
                                              'trainval.txt')
        paths['voc_test_list'] = osp.join(root, 'ImageSets', 'Main',
                                          'test.txt')
    if 'cityscapes' in layouts:
        root = osp.join(out_dir, _LAYOUT_DIRS['cityscapes'])
        paths['cityscapes_root'] = root
        for split in SPLITS:
            paths[f'cityscapes_{split}_ann'] = osp.join(
                root, 'annotations',
                f'instancesonly_filtered_gtFine_{split}.json')
            paths[f'cityscapes_{split}_img_dir'] = osp.join(
                root, 'leftImg8bit', split)
            paths[f'cityscapes_{split}_gt_dir'] = osp.join(
                root, 'gtFine', split)
    return paths


def _dump_json(obj, path: str, indent: Optional[int] = 2) -> None:
    """Write JSON deterministically (insertion key order, fixed indent).

    Args:
        obj: JSON serialisable object.
        path (str): Output file.
        indent (int, optional): Indent. Defaults to 2.
    """
    with open(path, 'w', encoding='utf-8') as f:
        f.write(json.dumps(obj, indent=indent, ensure_ascii=True))
        f.write('\n')


def _write_bytes(path: str, data: bytes) -> None:
    """Write bytes to a file.

    Args:
        path (str): Output file.
        data (bytes): Content.
    """
    with open(path, 'wb') as f:
        f.write(data)


def encode_image(img_rgb: np.ndarray, ext: str) -> bytes:
    """Encode an RGB image with fixed parameters.

    Args:
        img_rgb (np.ndarray): RGB uint8 image.
        ext (str): ``'.jpg'`` or ``'.png'``.

    Returns:
        bytes: The encoded file content.
    """
    params = _JPEG_PARAMS if ext == '.jpg' else _PNG_PARAMS
    ok, buf = cv2.imencode(ext, cv2.cvtColor(img_rgb, cv2.COLOR_RGB2BGR),
                           params)
    if not ok:
        raise RuntimeError(f'cv2 failed to encode a {ext} image')
    return buf.tobytes()


def _voc_box(bbox: Sequence[float], width: int,
             height: int) -> Tuple[int, int, int, int]:
    """Convert a ``[x1, y1, x2, y2]`` box to VOC's 1-based integer box.

    VOC boxes give the first and last covered pixel, counted from 1.

    Args:
        bbox (Sequence[float]): Box in continuous pixel coordinates.
        width (int): Image width.
        height (int): Image height.

    Returns:
        tuple[int, int, int, int]: ``(xmin, ymin, xmax, ymax)``.
    """
    x1, y1, x2, y2 = bbox
    xmin = min(max(int(math.floor(x1)) + 1, 1), width)
    ymin = min(max(int(math.floor(y1)) + 1, 1), height)
    xmax = min(max(int(math.ceil(x2)), xmin), width)
    ymax = min(max(int(math.ceil(y2)), ymin), height)
    return xmin, ymin, xmax, ymax


def _voc_xml(filename: str, width: int, height: int,
             anns: List[Dict]) -> str:
    """Build a PASCAL VOC annotation file.

    Args:
        filename (str): Image file name.
        width (int): Image width.
        height (int): Image height.
        anns (list[dict]): Annotations from :func:`scene_annotations`.

    Returns:
        str: The XML text.
    """
    lines = [
        '<annotation>',
        '\t<folder>VOC2007</folder>',
        f'\t<filename>{filename}</filename>',
        '\t<source>',
        '\t\t<database>robustdet demo</database>',
        '\t</source>',
        '\t<size>',
        f'\t\t<width>{width}</width>',
        f'\t\t<height>{height}</height>',
        '\t\t<depth>3</depth>',
        '\t</size>',
        '\t<segmented>0</segmented>',
    ]
    for ann in anns:
        xmin, ymin, xmax, ymax = _voc_box(ann['bbox'], width, height)
        lines += [
            '\t<object>',
            f'\t\t<name>{DEMO_CLASSES[ann["label"]]}</name>',
            '\t\t<pose>Unspecified</pose>',
            '\t\t<truncated>0</truncated>',
            '\t\t<difficult>0</difficult>',
            '\t\t<bndbox>',
            f'\t\t\t<xmin>{xmin}</xmin>',
            f'\t\t\t<ymin>{ymin}</ymin>',
            f'\t\t\t<xmax>{xmax}</xmax>',
            f'\t\t\t<ymax>{ymax}</ymax>',
            '\t\t</bndbox>',
            '\t</object>',
        ]
    lines.append('</annotation>')
    return '\n'.join(lines) + '\n'


def _cityscapes_polygons(scene: Scene, anns: List[Dict]) -> Dict:
    """Build a Cityscapes ``gtFine_polygons.json`` dict for a scene.

    Sky above and road below the background's horizon, then the objects
    with their Cityscapes labels; coordinates are integers.

    Args:
        scene (Scene): The scene.
        anns (list[dict]): Its annotations.

    Returns:
        dict: The polygons file content.
    """
    w, h = scene.width, scene.height
    horizon = int(round(background_horizon(scene.background_seed, h)))
    horizon = min(max(horizon, 0), h - 1)
    objects = [
        dict(
            label='sky',
            polygon=[[0, 0], [w - 1, 0], [w - 1, horizon], [0, horizon]]),
        dict(
            label='road',
            polygon=[[0, horizon], [w - 1, horizon], [w - 1, h - 1],
                     [0, h - 1]]),
    ]
    for ann in anns:
        pts = np.round(np.asarray(ann['polygon']).reshape(-1, 2))
        polygon = []
        for x, y in pts.astype(int).tolist():
            if not polygon or polygon[-1] != [x, y]:
                polygon.append([x, y])
        if len(polygon) > 1 and polygon[0] == polygon[-1]:
            polygon.pop()
        objects.append(
            dict(
                label=CITYSCAPES_LABELS[DEMO_CLASSES[ann['label']]],
                polygon=polygon))
    return dict(imgHeight=h, imgWidth=w, objects=objects)


def _load_mmdet_cityscapes_converter():
    """Import mmdet's ``tools/dataset_converters/cityscapes.py``.

    It ships in the mmdet wheel under ``mmdet/.mim``.

    Returns:
        module: The converter module.
    """
    try:
        import mmdet
    except ImportError as e:
        raise RuntimeError('the cityscapes layout needs mmdet, mmcv, '
                           f'pycocotools and cityscapesscripts: {e}') from e
    path = osp.join(
        osp.dirname(mmdet.__file__), '.mim', 'tools', 'dataset_converters',
        'cityscapes.py')
    if not osp.isfile(path):
        raise RuntimeError(f'mmdet Cityscapes converter not found at {path}')
    spec = importlib.util.spec_from_file_location(
        'robustdet_mmdet_cityscapes_converter', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write_instance_ids(json_file: str, out_png: str) -> None:
    """Write a Cityscapes ``*_gtFine_instanceIds.png`` for a polygon file.

    Equivalent to cityscapesscripts'
    ``json2instanceImg(json_file, out_png, 'ids')``, whose rasterisation
    (``createInstanceImage``) it uses, but the image is saved as a 16-bit
    PNG (the format of the real Cityscapes files) with cv2: Pillow >= 13 can
    no longer save the 32-bit mode ``'I'`` image that
    ``json2instanceImg`` makes as PNG.

    Args:
        json_file (str): ``*_gtFine_polygons.json`` file.
        out_png (str): Output PNG file.
    """
    from cityscapesscripts.helpers.annotation import Annotation
    from cityscapesscripts.preparation.json2instanceImg import \
        createInstanceImage
    annotation = Annotation()
    annotation.fromJsonFile(json_file)
    ids = np.asarray(createInstanceImage(annotation, 'ids'), dtype=np.int64)
    if ids.min() < 0 or ids.max() > np.iinfo(np.uint16).max:
        raise RuntimeError(f'instance ids of {json_file} do not fit 16 bits')
    ok, buf = cv2.imencode('.png', ids.astype(np.uint16), _PNG_PARAMS)
    if not ok:
        raise RuntimeError(f'cv2 failed to encode {out_png}')
    _write_bytes(out_png, buf.tobytes())


def _convert_cityscapes(root: str, split_files: Dict[str, List[str]],
                        verbose: bool) -> None:
    """Make id images and the COCO-style json the way mmdet does.

    Args:
        root (str): Cityscapes root being written.
        split_files (dict[str, list[str]]): Polygon json files per split.
        verbose (bool): Whether to let the converters print.
    """
    from cityscapesscripts.preparation.json2labelImg import json2labelImg
    converter = _load_mmdet_cityscapes_converter()
    ann_dir = osp.join(root, 'annotations')
    os.makedirs(ann_dir, exist_ok=True)
    suffix = '_gtFine_polygons.json'
    quiet = (
        contextlib.nullcontext()
        if verbose else contextlib.redirect_stdout(io.StringIO()))
    with quiet:
        for split in SPLITS:
            for json_file in split_files[split]:
                base = json_file[:-len(suffix)]
                _write_instance_ids(json_file,
                                    base + '_gtFine_instanceIds.png')
                json2labelImg(json_file, base + '_gtFine_labelIds.png', 'ids')
            files = converter.collect_files(
                osp.join(root, 'leftImg8bit', split),
                osp.join(root, 'gtFine', split))
            # glob order depends on the file system; sort for determinism.
            files = sorted(files)
            image_infos = converter.collect_annotations(files, nproc=1)
            converter.cvt_annotations(
                image_infos,
                osp.join(ann_dir,
                         f'instancesonly_filtered_gtFine_{split}.json'))


def _read_meta(out_dir: str) -> Optional[Dict]:
    """Read the demo meta file of ``out_dir`` if it is a valid one.

    Args:
        out_dir (str): Output directory.

    Returns:
        dict, optional: The meta data, or None.
    """
    path = osp.join(out_dir, META_FILE)
    try:
        with open(path, encoding='utf-8') as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get(
            'generator') != _META_GENERATOR or not isinstance(
                meta.get('layouts'), list):
        return None
    return meta


def _write_meta(out_dir: str, params: Dict, layouts: Iterable[str]) -> None:
    """Atomically write the demo meta file.

    Args:
        out_dir (str): Output directory.
        params (dict): Generation parameters.
        layouts (Iterable[str]): Completely written layouts.
    """
    done = set(layouts)
    meta = dict(
        generator=_META_GENERATOR,
        version=_META_VERSION,
        **params,
        layouts=[name for name in LAYOUTS if name in done])
    path = osp.join(out_dir, META_FILE)
    tmp = path + '.tmp'
    _dump_json(meta, tmp)
    os.replace(tmp, path)


def _check_args(seed: int, num_train: int, num_val: int,
                size: Sequence[int], layouts: Iterable[str]) -> Tuple:
    """Validate and normalise the arguments of :func:`generate_demo_data`.

    Args:
        seed (int): Dataset seed.
        num_train (int): Number of training images.
        num_val (int): Number of validation images.
        size (Sequence): ``(width, height)``, or a list of them.
        layouts (Iterable[str]): Requested layouts.

    Returns:
        tuple: ``(params, layouts)`` with the parameters stored in the meta
        file and the requested layouts in canonical order.
    """
    if isinstance(layouts, str):
        layouts = (layouts, )
    layouts = tuple(layouts)
    unknown = sorted(set(layouts) - set(LAYOUTS))
    if unknown or not layouts:
        raise RobustDetError(
            f'layouts must be a non-empty subset of {LAYOUTS}, got {layouts}')
    for name, num in (('num_train', num_train), ('num_val', num_val)):
        if int(num) != num or not 1 <= num <= _MAX_IMAGES:
            raise RobustDetError(
                f'{name} must be an integer in [1, {_MAX_IMAGES}], got {num}')
    if int(seed) != seed or seed < 0:
        raise RobustDetError(
            f'seed must be a non-negative integer, got {seed}')
    mixed = len(size) > 0 and all(
        isinstance(s, (list, tuple)) for s in size)
    for pair in size if mixed else [size]:
        if len(pair) != 2 or any(int(s) != s or s < 16 for s in pair):
            raise RobustDetError(
                'size must be (width, height), or a list of them, with '
                f'integers >= 16, got {size}')
    params = dict(
        seed=int(seed),
        num_train=int(num_train),
        num_val=int(num_val),
        size=[[int(w), int(h)] for w, h in size]
        if mixed else [int(size[0]), int(size[1])])
    return params, tuple(name for name in LAYOUTS if name in layouts)


def _plan(out_dir: str, params: Dict, layouts: Tuple[str, ...],
          overwrite: bool) -> Tuple[List[str], List[str]]:
    """Decide which layouts to (re)generate and check ``out_dir``.

    Args:
        out_dir (str): Output directory.
        params (dict): Generation parameters.
        layouts (tuple[str]): Requested layouts.
        overwrite (bool): Whether to regenerate existing layouts.

    Returns:
        tuple[list[str], list[str]]: Layouts to generate and valid layouts
        to keep.
    """
    if not osp.exists(out_dir):
        return list(layouts), []
    if not osp.isdir(out_dir):
        raise RobustDetError(f'output path {out_dir} exists and is not a '
                         'directory')
    if not os.listdir(out_dir):
        return list(layouts), []
    meta = _read_meta(out_dir)
    if meta is None:
        raise RobustDetError(
            f'refusing to write demo data into {out_dir}: it is not empty '
            f'and has no valid {META_FILE} from a previous run; use an empty '
            'or new directory')
    wanted = dict(version=_META_VERSION, **params)
    diffs = [
        f'{k}={meta.get(k)} (requested {v})' for k, v in wanted.items()
        if meta.get(k) != v
    ]
    if diffs:
        if not overwrite:
            raise RobustDetError(
                f'{out_dir} holds demo data generated with other parameters: '
                f'{", ".join(diffs)}; use overwrite=True (--overwrite) to '
                'regenerate it')
        return list(layouts), []
    done = [name for name in meta['layouts'] if name in LAYOUTS]
    if overwrite:
        return list(layouts), [n for n in done if n not in layouts]
    return [n for n in layouts if n not in done], done


def generate_demo_data(out_dir: str,
                       seed: int = 0,
                       num_train: int = 400,
                       num_val: int = 50,
                       size: Tuple[int, int] = (320, 240),
                       layouts: Iterable[str] = LAYOUTS,
                       overwrite: bool = False,
                       verbose: bool = False) -> Dict[str, str]:
    """Generate the seeded demo detection dataset.

    ``out_dir`` must be missing, empty, or a previous output of this
    function (recognised by its ``demo_meta.json``). When the parameters
    match and all requested layouts are complete, nothing is written. Each
    layout is built in a hidden staging directory and moved into place
    when complete; the meta file lists the complete layouts.

    Args:
        out_dir (str): Output directory.
        seed (int): Dataset seed. Defaults to 0.
        num_train (int): Number of training images. Defaults to 400.
        num_val (int): Number of validation images. Defaults to 50.
        size (tuple[int, int] | list[tuple[int, int]]): Image size as
            ``(width, height)``; with a list of sizes, image ``i`` of each
            split has the ``i % len(size)``-th (mixed sizes and aspect
            ratios). Defaults to (320, 240).
        layouts (Iterable[str]): Layouts to write, a subset of
            :data:`LAYOUTS`. Defaults to all.
        overwrite (bool): Regenerate even if the output is complete, or
            was made with other parameters. Never deletes a directory that
            is not a demo output. Defaults to False.
        verbose (bool): Print progress. Defaults to False.

    Returns:
        dict[str, str]: Paths from :func:`demo_data_paths` for the requested
        layouts.

    Raises:
        ValueError: If an argument is invalid or ``out_dir`` is not empty
            and not a demo output with the same parameters (unless
            ``overwrite`` and it is a demo output).
    """
    log: Callable[[str], None] = print if verbose else (lambda msg: None)
    out_dir = osp.abspath(out_dir)
    params, layouts = _check_args(seed, num_train, num_val, size, layouts)
    todo, keep = _plan(out_dir, params, layouts, overwrite)
    paths = demo_data_paths(out_dir, layouts)
    if not todo:
        log(f'demo data in {out_dir} is up to date')
        return paths

    os.makedirs(out_dir, exist_ok=True)
    # Only the layouts in ``keep`` stay valid; record that first, then
    # clear everything else that a previous run may have left.
    _write_meta(out_dir, params, keep)
    for name in LAYOUTS:
        if name not in keep:
            for sub in (_LAYOUT_DIRS[name], f'.staging-{name}'):
                shutil.rmtree(osp.join(out_dir, sub), ignore_errors=True)
    staging = {name: osp.join(out_dir, f'.staging-{name}') for name in todo}
    for name in todo:
        os.makedirs(staging[name])
    _write_layouts(staging, params, verbose, log)
    for name in todo:
        os.replace(staging[name], osp.join(out_dir, _LAYOUT_DIRS[name]))
    _write_meta(out_dir, params, list(keep) + list(todo))
    log(f'demo data written to {out_dir}')
    return paths


def _write_layouts(staging: Dict[str, str], params: Dict, verbose: bool,
                   log: Callable[[str], None]) -> None:
    """Render every image once and write it to the staged layouts.

    Args:
        staging (dict[str, str]): Staging directory of each layout to write.
        params (dict): Generation parameters.
        verbose (bool): Whether the Cityscapes converters may print.
        log (callable): Progress logger.
    """
    sizes = params['size']
    if not isinstance(sizes[0], list):
        sizes = [sizes]
    categories = [
        dict(id=i + 1, name=name, supercategory='shape')
        for i, name in enumerate(DEMO_CLASSES)
    ]
    coco = staging.get('coco')
    voc = staging.get('voc')
    city = staging.get('cityscapes')
    if coco:
        os.makedirs(osp.join(coco, 'annotations'))
    if voc:
        voc = osp.join(voc, 'VOC2007')
        for sub in ('JPEGImages', 'Annotations', 'ImageSets/Main'):
            os.makedirs(osp.join(voc, sub))
    city_jsons: Dict[str, List[str]] = {}

    for split in SPLITS:
        num = params[f'num_{split}']
        log(f'rendering {num} {split} images '
            f'({", ".join(f"{w}x{h}" for w, h in sizes)})')
        images, annotations, stems = [], [], []
        city_jsons[split] = []
        if coco:
            os.makedirs(osp.join(coco, _COCO_SPLIT_DIRS[split]))
        if city:
            for c in CITYSCAPES_CITIES[split]:
                os.makedirs(osp.join(city, 'leftImg8bit', split, c))
                os.makedirs(osp.join(city, 'gtFine', split, c))
        for i in range(num):
            width, height = sizes[i % len(sizes)]
            scene = sample_scene(split_rng(params['seed'], split, i), width,
                                 height)
            img = render_scene(scene)
            anns = scene_annotations(scene)
            stem = image_stem(split, i)
            stems.append(stem)
            if coco or voc:
                jpg = encode_image(img, '.jpg')
            if coco:
                _write_bytes(
                    osp.join(coco, _COCO_SPLIT_DIRS[split], f'{stem}.jpg'),
                    jpg)
                images.append(
                    dict(
                        id=i + 1,
                        file_name=f'{stem}.jpg',
                        width=width,
                        height=height))
                for ann in anns:
                    x1, y1, x2, y2 = ann['bbox']
                    annotations.append(
                        dict(
                            id=len(annotations) + 1,
                            image_id=i + 1,
                            category_id=ann['label'] + 1,
                            bbox=[
                                x1, y1,
                                round(x2 - x1, 2),
                                round(y2 - y1, 2)
                            ],
                            area=ann['area'],
                            iscrowd=0,
                            segmentation=[ann['polygon']]))
            if voc:
                _write_bytes(osp.join(voc, 'JPEGImages', f'{stem}.jpg'), jpg)
                with open(
                        osp.join(voc, 'Annotations', f'{stem}.xml'),
                        'w',
                        encoding='utf-8') as f:
                    f.write(_voc_xml(f'{stem}.jpg', width, height, anns))
            if city:
                cstem = cityscapes_stem(split, i)
                c = cstem.split('_')[0]
                _write_bytes(
                    osp.join(city, 'leftImg8bit', split, c,
                             f'{cstem}_leftImg8bit.png'),
                    encode_image(img, '.png'))
                json_file = osp.join(city, 'gtFine', split, c,
                                     f'{cstem}_gtFine_polygons.json')
                _dump_json(_cityscapes_polygons(scene, anns), json_file)
                city_jsons[split].append(json_file)
        if coco:
            _dump_json(
                dict(
                    images=images,
                    annotations=annotations,
                    categories=categories),
                osp.join(coco, 'annotations',
                         f'instances_{_COCO_SPLIT_DIRS[split]}.json'))
        if voc:
            with open(
                    osp.join(voc, 'ImageSets', 'Main',
                             _VOC_SPLIT_LISTS[split]),
                    'w',
                    encoding='utf-8') as f:
                f.write(''.join(f'{s}\n' for s in stems))
    if city:
        log("converting cityscapes annotations with mmdet's converter")
        _convert_cityscapes(city, city_jsons, verbose)
