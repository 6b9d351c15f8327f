# Copyright (c) robustdet contributors. All rights reserved.
"""Dataset layouts the stylization tool reads and writes.

A layout lists a dataset's images and, once they are stylized, writes the
annotation files of the stylized copy. The output mirrors the input's
layout under the output root, with the same file names, so a config uses
the stylized copy by changing ``data_root`` only:

- COCO (annotation file + image root): ``annotations/<same json name>``
  and ``<image root name>/<file_name>``, e.g. ``annotations/
  instances_train2017.json`` + ``train2017/...``;
- PASCAL VOC (devkit): ``VOC2007/JPEGImages/<id>.jpg``,
  ``VOC2007/Annotations/<id>.xml`` (copied) and
  ``VOC2007/ImageSets/Main/<split>.txt``, per year and split;
- Cityscapes: ``leftImg8bit/<split>/<city>/<name>``, the matching
  ``gtFine`` files (copied) and, when the input has it, mmdet's converted
  ``annotations/instancesonly_filtered_gtFine_<split>.json``.

Annotation files list only the images that were stylized (unreadable
inputs are skipped and dropped from them).
"""
import glob
import json
import os.path as osp
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, write_bytes_atomic, write_text_atomic

# (key, source path, output path relative to the output root); the key
# identifies the image for style assignment and in the records.
Item = Tuple[str, str, str]


def _missing_error(what: str, missing: Sequence[str], total: int) -> None:
    if missing:
        raise RobustDetError(
            f'{len(missing)} of {total} images listed in {what} do not '
            f'exist, e.g. {missing[0]}; fix the paths (nothing was written)')


def _copy_file(src: str, dst: str) -> None:
    """Copy through a temporary name, so a copy is whole or absent."""
    with open(src, 'rb') as f:
        write_bytes_atomic(f.read(), dst)


class CocoLayout:
    """A COCO annotation file and its image root.

    Args:
        ann_file (str): The annotation json.
        img_root (str): Directory the ``file_name`` entries are relative
            to.
    """
    kind = 'coco'

    def __init__(self, ann_file: str, img_root: str) -> None:
        if not osp.isfile(ann_file):
            raise RobustDetError(f'annotation file not found: {ann_file}')
        if not osp.isdir(img_root):
            raise RobustDetError(f'image root not found: {img_root}')
        try:
            with open(ann_file) as f:
                self.coco = json.load(f)
            images = self.coco['images']
            names = [img['file_name'] for img in images]
        except (ValueError, KeyError, TypeError) as e:
            raise RobustDetError(
                f'{ann_file} is not a COCO annotation file: {e}') from None
        self.ann_file = ann_file
        self.img_root = img_root
        self.img_dir = osp.basename(osp.normpath(img_root))
        missing = [n for n in names if not osp.isfile(osp.join(img_root, n))]
        _missing_error(ann_file, missing, len(names))
        self.names = names

    @property
    def inputs(self) -> List[str]:
        """Paths the output must not be inside."""
        return [self.img_root, osp.dirname(osp.abspath(self.ann_file))]

    def describe(self) -> Dict[str, str]:
        return dict(
            type=self.kind,
            ann_file=osp.abspath(self.ann_file),
            img_root=osp.abspath(self.img_root))

    def items(self) -> Iterable[Item]:
        for name in self.names:
            yield (name, osp.join(self.img_root, name),
                   osp.join(self.img_dir, name))

    def __len__(self) -> int:
        return len(self.names)

    def finish(self, out_root: str, done: Set[str]) -> List[str]:
        """Write the stylized copy's annotation file (images in ``done``
        only) and return its path."""
        coco = dict(self.coco)
        coco['images'] = [
            img for img in self.coco['images'] if img['file_name'] in done
        ]
        ids = {img['id'] for img in coco['images']}
        if 'annotations' in self.coco:
            coco['annotations'] = [
                a for a in self.coco['annotations'] if a['image_id'] in ids
            ]
        path = osp.join(out_root, 'annotations', osp.basename(self.ann_file))
        dump_json_atomic(coco, path, indent=None)
        return [path]


class VocLayout:
    """A PASCAL VOC devkit.

    Args:
        devkit (str): The ``VOCdevkit`` directory (with ``VOC2007`` etc.).
        splits (list[str], optional): ``YEAR_DIR/SPLIT`` entries such as
            ``VOC2007/trainval``. Default: the ``trainval`` split of every
            ``VOC*`` directory that has one (the paper's training data).
    """
    kind = 'voc'

    def __init__(self,
                 devkit: str,
                 splits: Optional[Sequence[str]] = None) -> None:
        if not osp.isdir(devkit):
            raise RobustDetError(f'VOC devkit not found: {devkit}')
        if not splits:
            splits = sorted(
                osp.relpath(osp.dirname(osp.dirname(osp.dirname(p))), devkit)
                + '/trainval' for p in glob.glob(
                    osp.join(devkit, 'VOC*', 'ImageSets', 'Main',
                             'trainval.txt')))
            if not splits:
                raise RobustDetError(
                    f'no VOC*/ImageSets/Main/trainval.txt under {devkit}; '
                    'name the splits with --splits VOC2007/trainval ...')
        self.devkit = devkit
        self.splits: Dict[Tuple[str, str], List[str]] = {}
        names, missing = [], []
        for entry in splits:
            year, _, split = entry.rstrip('/').rpartition('/')
            path = osp.join(devkit, year, 'ImageSets', 'Main', f'{split}.txt')
            if not year or not osp.isfile(path):
                raise RobustDetError(
                    f'VOC split {entry!r}: {path} not found (give splits '
                    'as YEAR_DIR/SPLIT, e.g. VOC2007/trainval)')
            with open(path) as f:
                ids = [line.split()[0] for line in f if line.strip()]
            self.splits[(year, split)] = ids
            for i in ids:
                for sub, ext in (('JPEGImages', '.jpg'),
                                 ('Annotations', '.xml')):
                    file = osp.join(devkit, year, sub, i + ext)
                    if not osp.isfile(file):
                        missing.append(file)
                names.append(f'{year}/JPEGImages/{i}.jpg')
        _missing_error(', '.join(splits), missing, len(names))
        # An image in two splits is stylized once.
        self.names = list(dict.fromkeys(names))

    @property
    def inputs(self) -> List[str]:
        return [self.devkit]

    def describe(self) -> Dict[str, object]:
        return dict(
            type=self.kind,
            devkit=osp.abspath(self.devkit),
            splits=[f'{y}/{s}' for y, s in self.splits])

    def items(self) -> Iterable[Item]:
        for name in self.names:
            yield name, osp.join(self.devkit, name), name

    def __len__(self) -> int:
        return len(self.names)

    def finish(self, out_root: str, done: Set[str]) -> List[str]:
        """Copy the annotations of the images in ``done`` and write the
        split files listing them."""
        written = []
        for (year, split), ids in self.splits.items():
            kept = [i for i in ids if f'{year}/JPEGImages/{i}.jpg' in done]
            for i in kept:
                dst = osp.join(out_root, year, 'Annotations', i + '.xml')
                if not osp.exists(dst):
                    _copy_file(
                        osp.join(self.devkit, year, 'Annotations',
                                 i + '.xml'), dst)
            path = osp.join(out_root, year, 'ImageSets', 'Main',
                            f'{split}.txt')
            write_text_atomic(''.join(i + '\n' for i in kept), path)
            written.append(path)
        return written


class CityscapesLayout:
    """A Cityscapes tree (``leftImg8bit``, ``gtFine``, optionally mmdet's
    converted ``annotations``).

    Args:
        root (str): The Cityscapes root, or its ``leftImg8bit`` directory.
        split (str): ``train``, ``val`` or ``test``.
    """
    kind = 'cityscapes'
    SUFFIX = '_leftImg8bit.png'

    def __init__(self, root: str, split: str = 'train') -> None:
        if osp.basename(osp.normpath(root)) == 'leftImg8bit':
            root = osp.dirname(osp.normpath(root))
        img_dir = osp.join(root, 'leftImg8bit', split)
        if not osp.isdir(img_dir):
            raise RobustDetError(
                f'Cityscapes images not found: {img_dir} (give the '
                'Cityscapes root or its leftImg8bit directory, and --split)')
        self.root = root
        self.split = split
        self.names = sorted(
            osp.relpath(p, root).replace(osp.sep, '/') for p in glob.glob(
                osp.join(img_dir, '*', '*' + self.SUFFIX)))
        if not self.names:
            raise RobustDetError(f'no *{self.SUFFIX} images under {img_dir}')
        self.ann_file = osp.join(
            root, 'annotations', f'instancesonly_filtered_gtFine_{split}.json')
        self.coco = None
        if osp.isfile(self.ann_file):
            with open(self.ann_file) as f:
                self.coco = json.load(f)
            prefix = osp.join(root, 'leftImg8bit', split)
            listed = [img['file_name'] for img in self.coco['images']]
            missing = [
                n for n in listed if not osp.isfile(osp.join(prefix, n))
            ]
            _missing_error(self.ann_file, missing, len(listed))

    @property
    def inputs(self) -> List[str]:
        return [self.root]

    def describe(self) -> Dict[str, str]:
        return dict(
            type=self.kind, root=osp.abspath(self.root), split=self.split)

    def items(self) -> Iterable[Item]:
        for name in self.names:
            yield name, osp.join(self.root, name), name

    def __len__(self) -> int:
        return len(self.names)

    def _gt_files(self, name: str) -> List[str]:
        """The gtFine files of image ``name`` (relative to the root)."""
        stem = osp.basename(name)[:-len(self.SUFFIX)]
        city = osp.basename(osp.dirname(name))
        pattern = osp.join(self.root, 'gtFine', self.split, city,
                           f'{stem}_gtFine_*')
        return [osp.relpath(p, self.root) for p in sorted(glob.glob(pattern))]

    def finish(self, out_root: str, done: Set[str]) -> List[str]:
        """Copy the gtFine files of the images in ``done`` and write the
        filtered converted annotation file (when the input has one)."""
        for name in self.names:
            if name not in done:
                continue
            for rel in self._gt_files(name):
                dst = osp.join(out_root, rel)
                if not osp.exists(dst):
                    _copy_file(osp.join(self.root, rel), dst)
        written = []
        if self.coco is not None:
            prefix = f'leftImg8bit/{self.split}/'
            coco = dict(self.coco)
            coco['images'] = [
                img for img in self.coco['images']
                if prefix + img['file_name'] in done
            ]
            ids = {img['id'] for img in coco['images']}
            coco['annotations'] = [
                a for a in self.coco.get('annotations', [])
                if a['image_id'] in ids
            ]
            path = osp.join(out_root, 'annotations',
                            osp.basename(self.ann_file))
            dump_json_atomic(coco, path, indent=None)
            written.append(path)
        return written
