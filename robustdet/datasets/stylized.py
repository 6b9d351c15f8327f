# Copyright (c) robustdet contributors. All rights reserved.
"""The stylized copy of a dataset, for the paper's training schemes.

``tools/stylize_dataset.py`` mirrors a dataset's layout under its output
directory, so the stylized dataset is the clean dataset's config with its
``data_root`` pointing there. :class:`StylizedDataset` does exactly that
and checks that the stylization is complete (its manifest), so a config
for the three schemes of Michaelis et al. (2019) reads::

    clean = dict(type='CocoDataset', data_root='data/coco/', ...)
    stylized = dict(type='StylizedDataset', dataset=clean,
                    stylized_root='data/coco-stylized/')
    combined = dict(type='ConcatDataset', datasets=[clean, stylized])
"""
import copy
import json
import os.path as osp
from typing import Any, List

from mmdet.registry import DATASETS
from mmengine.dataset import ConcatDataset

from ..utils.errors import RobustDetError
from .corrupted import WrappedDataset

MANIFEST = 'stylize_manifest.json'


def replace_data_root(cfg: Any, root: str) -> int:
    """Set every ``data_root`` in a dataset config (nested wrappers too)
    to ``root``, in place; returns how many were set."""
    count = 0
    if isinstance(cfg, dict):
        for key, value in cfg.items():
            if key == 'data_root':
                cfg[key] = root
                count += 1
            else:
                count += replace_data_root(value, root)
    elif isinstance(cfg, (list, tuple)):
        for value in cfg:
            count += replace_data_root(value, root)
    return count


def read_manifest(stylized_root: str) -> dict:
    """The stylization manifest of ``stylized_root``, checked complete."""
    path = osp.join(stylized_root, MANIFEST)
    if not osp.isfile(path):
        raise RobustDetError(
            f'no stylized dataset at {stylized_root} ({MANIFEST} missing); '
            'make it with tools/stylize_dataset.py --out-dir '
            f'{stylized_root} (or pass require_manifest=False for a '
            'stylized copy made elsewhere)')
    with open(path) as f:
        manifest = json.load(f)
    if manifest.get('status') != 'complete':
        raise RobustDetError(
            f'the stylization in {stylized_root} is not finished; rerun '
            'the same tools/stylize_dataset.py command to complete it')
    return manifest


@DATASETS.register_module()
class StylizedDataset(WrappedDataset):
    """A dataset's stylized copy (AdaIN, ``tools/stylize_dataset.py``).

    Args:
        dataset (dict): The clean dataset's config; every ``data_root`` in
            it is replaced by the stylized root.
        stylized_root (str): The ``--out-dir`` of the stylization.
        require_manifest (bool): Refuse a root without a complete
            robustdet stylization manifest (default True).
        lazy_init (bool): Whether to defer loading annotations.
    """

    def __init__(self,
                 dataset: dict,
                 stylized_root: str,
                 require_manifest: bool = True,
                 lazy_init: bool = False) -> None:
        if not isinstance(dataset, dict):
            raise RobustDetError(
                'StylizedDataset takes the clean dataset as a config dict')
        copies = ['.']
        if require_manifest:
            copies = read_manifest(stylized_root).get('copies', ['.'])
        self.stylized_root = stylized_root
        parts: List[Any] = []
        for sub in copies:
            cfg = copy.deepcopy(dataset)
            root = osp.normpath(osp.join(stylized_root, sub)) + '/'
            if not replace_data_root(cfg, root):
                raise RobustDetError(
                    'StylizedDataset needs a dataset config with a '
                    'data_root (the stylized copy mirrors it)')
            parts.append(DATASETS.build(cfg))
        self._wrap(parts[0] if len(parts) == 1 else ConcatDataset(
            parts, lazy_init=True))
        self._finish_init(lazy_init)
