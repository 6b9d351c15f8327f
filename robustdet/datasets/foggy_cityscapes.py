# Copyright (c) robustdet contributors. All rights reserved.
"""Foggy Cityscapes (Sakaridis et al., 2018) as an mmdet dataset.

Foggy Cityscapes renders synthetic fog of three densities (attenuation
coefficients :data:`FOGGY_BETAS`, in 1/m) into every Cityscapes image and
keeps Cityscapes' ``gtFine`` annotations. The foggy image of
``leftImg8bit/{split}/{city}/{stem}_leftImg8bit.png`` is
``leftImg8bit_foggy/{split}/{city}/{stem}_leftImg8bit_foggy_beta_{beta}.png``.

:class:`FoggyCityscapesDataset` reads the same COCO-format annotation file
as clean Cityscapes (``instancesonly_filtered_gtFine_{split}.json`` from
mmdet's converter) and only swaps each image path for its foggy version.
Ground truth and image ids are therefore identical to those of the clean
split, and ``CocoMetric`` with the clean ``ann_file`` evaluates it exactly
like clean Cityscapes val (Michaelis et al., 2019, section 3.5)::

    foggy = dict(
        type='FoggyCityscapesDataset',
        beta=0.02,  # or None for the clean reference images
        data_root='data/cityscapes/',
        ann_file='annotations/instancesonly_filtered_gtFine_val.json',
        data_prefix=dict(img='leftImg8bit/val/'),
        foggy_prefix='leftImg8bit_foggy/val/',
        test_mode=True,
        pipeline=test_pipeline)

The real images are the package ``leftImg8bit_trainvaltest_foggy.zip`` of
https://www.cityscapes-dataset.com (unpack it next to ``leftImg8bit``).
"""
import math
import os.path as osp
from typing import Any, List, Optional, Sequence, Union

from mmdet.datasets import CityscapesDataset
from mmdet.registry import DATASETS
from mmengine.fileio import isdir, join_path, list_dir_or_file
from mmengine.utils import is_abs

from ..utils.errors import RobustDetError

#: Fog densities of Foggy Cityscapes: attenuation coefficients in 1/m
#: (meteorological optical range 600, 300 and 150 m).
FOGGY_BETAS = (0.005, 0.01, 0.02)
#: Suffix of a clean Cityscapes image file.
CLEAN_SUFFIX = '_leftImg8bit.png'
#: Where to get the real foggy images.
FOGGY_PACKAGE = ('leftImg8bit_trainvaltest_foggy.zip from '
                 'https://www.cityscapes-dataset.com')

_REQUIRED = object()


def parse_foggy_beta(beta: Any) -> float:
    """Check a Foggy Cityscapes fog density.

    Args:
        beta (float | str): One of :data:`FOGGY_BETAS`, as a number or a
            string such as ``'0.01'``.

    Returns:
        float: The matching entry of :data:`FOGGY_BETAS`.

    Raises:
        RobustDetError: If ``beta`` is not a Foggy Cityscapes density.
    """
    value = None
    if isinstance(beta, (int, float)) and not isinstance(beta, bool):
        value = float(beta)
    elif isinstance(beta, str):
        try:
            value = float(beta.strip())
        except ValueError:
            value = None
    for valid in FOGGY_BETAS:
        if value is not None and math.isclose(value, valid, rel_tol=1e-9):
            return valid
    raise RobustDetError(
        f'unknown Foggy Cityscapes beta {beta!r}; valid: '
        f'{", ".join(str(b) for b in FOGGY_BETAS)}')


def foggy_suffix(beta: Any) -> str:
    """File name suffix of the foggy images of one density.

    Args:
        beta (float | str): One of :data:`FOGGY_BETAS`.

    Returns:
        str: e.g. ``'_leftImg8bit_foggy_beta_0.02.png'``.
    """
    return f'_leftImg8bit_foggy_beta_{parse_foggy_beta(beta)}.png'


def foggy_file_name(file_name: str, beta: Any) -> str:
    """Foggy counterpart of a clean Cityscapes image file name.

    Args:
        file_name (str): Clean image path ending in ``_leftImg8bit.png``,
            e.g. ``'lindau/lindau_000000_000019_leftImg8bit.png'``.
        beta (float | str): One of :data:`FOGGY_BETAS`.

    Returns:
        str: The same path with the foggy suffix, e.g.
        ``'lindau/lindau_000000_000019_leftImg8bit_foggy_beta_0.02.png'``.

    Raises:
        RobustDetError: If ``file_name`` is not a clean Cityscapes image name
            or ``beta`` is unknown.
    """
    if not file_name.endswith(CLEAN_SUFFIX):
        raise RobustDetError(
            f'{file_name!r} is not a Cityscapes image name (*{CLEAN_SUFFIX})')
    return file_name[:-len(CLEAN_SUFFIX)] + foggy_suffix(beta)


@DATASETS.register_module()
class FoggyCityscapesDataset(CityscapesDataset):
    """Foggy Cityscapes: Cityscapes ground truth on the foggy images.

    Every other argument is that of mmdet's ``CityscapesDataset``; with the
    same ``ann_file``, ``filter_cfg`` and ``test_mode`` the data list equals
    the clean one except for ``img_path``, in train and test mode alike.

    When the annotations are loaded, the foggy directory is listed once
    (one listing per city) and must hold exactly the foggy images of the
    annotated images for ``beta``: a missing foggy image, or a foggy image
    that has no entry in ``ann_file``, is an error.

    Args:
        beta (float | str, optional): Fog density, one of
            :data:`FOGGY_BETAS` (``'0.02'`` is accepted too), or None for
            the clean images (then the dataset is a plain
            ``CityscapesDataset``, so one config type serves the reference
            split). Required.
        foggy_prefix (str): Directory of the foggy images of the split,
            relative to ``data_root`` unless absolute. Defaults to
            ``'leftImg8bit_foggy/val/'``.
        *args: Arguments of ``CityscapesDataset``.
        **kwargs: Keyword arguments of ``CityscapesDataset``.
    """

    def __init__(self,
                 *args,
                 beta: Union[float, str, None] = _REQUIRED,
                 foggy_prefix: str = 'leftImg8bit_foggy/val/',
                 **kwargs) -> None:
        if beta is _REQUIRED:
            raise RobustDetError(
                'FoggyCityscapesDataset needs beta: one of '
                f'{", ".join(str(b) for b in FOGGY_BETAS)}, or None for the '
                'clean images')
        self.beta: Optional[float] = (None if beta is None else
                                      parse_foggy_beta(beta))
        if not isinstance(foggy_prefix, str):
            raise RobustDetError(
                f'foggy_prefix must be a path string, got {foggy_prefix!r}')
        self.foggy_prefix = foggy_prefix
        super().__init__(*args, **kwargs)

    def _join_prefix(self) -> None:
        """Join ``data_root`` with the prefixes, ``foggy_prefix`` too."""
        super()._join_prefix()
        if self.data_root and not is_abs(self.foggy_prefix):
            self.foggy_prefix = join_path(self.data_root, self.foggy_prefix)

    def parse_data_info(self, raw_data_info: dict) -> Union[dict, List[dict]]:
        """Parse one image's annotations; the image is the foggy one.

        Args:
            raw_data_info (dict): Raw image and annotation information.

        Returns:
            dict: The data info of ``CityscapesDataset`` with ``img_path``
            pointing at the foggy image (unchanged when ``beta`` is None).
        """
        data_info = super().parse_data_info(raw_data_info)
        if self.beta is not None:
            file_name = raw_data_info['raw_img_info']['file_name']
            try:
                name = foggy_file_name(file_name, self.beta)
            except RobustDetError as e:
                raise RobustDetError(f'{self.ann_file}: {e}') from None
            data_info['img_path'] = join_path(self.foggy_prefix, name)
        return data_info

    def load_data_list(self) -> List[dict]:
        """Load the clean annotations and check the foggy images.

        The check runs on the whole annotation file, before
        ``filter_data``, so train and test mode see the same files.

        Returns:
            list[dict]: The data list.
        """
        data_list = super().load_data_list()
        if self.beta is not None:
            self._check_foggy_images(
                [info['img_path'] for info in data_list])
        return data_list

    def _check_foggy_images(self, expected_paths: Sequence[str]) -> None:
        """Match the foggy images on disk with the annotated images.

        Args:
            expected_paths (Sequence[str]): Foggy image path of each
                annotated image.

        Raises:
            RobustDetError: If the foggy directory is missing, an annotated
                image has no foggy image, or a foggy image of ``beta`` has
                no entry in ``ann_file``.
        """
        root = self.foggy_prefix
        if not isdir(root, backend_args=self.backend_args):
            raise RobustDetError(
                f'no foggy image directory {root} (beta={self.beta}); '
                f'download {FOGGY_PACKAGE} and unpack it into data_root, or '
                'set foggy_prefix')
        suffix = foggy_suffix(self.beta)
        present = {
            _posix(rel)
            for rel in list_dir_or_file(
                root,
                list_dir=False,
                suffix=suffix,
                recursive=True,
                backend_args=self.backend_args)
        }
        start = len(join_path(root, ''))
        expected = {_posix(path[start:]): path for path in expected_paths}
        missing = sorted(set(expected) - present)
        if missing:
            hint = ('; do foggy_prefix and ann_file name the same split?'
                    if len(missing) == len(expected) else '')
            raise RobustDetError(
                f'missing foggy image {expected[missing[0]]} for an image '
                f'of {self.ann_file} ({len(missing)} of {len(expected)} '
                f'missing for beta={self.beta}){hint}')
        extra = sorted(present - set(expected))
        if extra:
            raise RobustDetError(
                f'foggy image {join_path(root, extra[0])} has no ground '
                f'truth in {self.ann_file} ({len(extra)} of the '
                f'{len(present)} beta={self.beta} images in {root} have '
                'none)')


def _posix(path: str) -> str:
    """A relative path with ``/`` separators, normalised."""
    return osp.normpath(path).replace(osp.sep, '/')
