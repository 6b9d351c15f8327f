# Copyright (c) robustdet contributors. All rights reserved.
"""Where a dataset's per-image depth comes from.

The depth-aware 3D Common Corruptions (``fog_3d``, ``near_focus``,
``far_focus`` of :mod:`robustdet.corruptions.threedcc`) need an H×W depth
map per image. A :class:`DepthSource` says where it is and how to read it;
it is a small frozen value that travels in configs and results JSON
(:meth:`DepthSource.to_cfg`, :meth:`DepthSource.from_cfg`). There is no
fallback: an image whose depth cannot be read is a one-line
:class:`~robustdet.utils.errors.RobustDetError` naming the missing file,
never a depth-free fog.

Two kinds:

``kind='cityscapes'``: stereo disparity with the camera calibration,
giving metric depth. ``root`` is the Cityscapes root (default: the
dataset's ``data_root``). The image
``{any}/{split}/{city}/{stem}_leftImg8bit{variant}.png`` (``stem`` is
``{city}_{seq:0>6}_{frame:0>6}``) reads::

    {root}/disparity/{split}/{city}/{stem}_disparity.png
    {root}/camera/{split}/{city}/{stem}_camera.json

``variant`` is empty for ``leftImg8bit/`` and e.g. ``_foggy_beta_0.02``
for Foggy Cityscapes (``leftImg8bit_foggy/``, see
:mod:`robustdet.datasets.foggy_cityscapes`): a rendering of the same left
view has the same geometry, so the same disparity. The disparity PNG is
16-bit; a pixel value ``p > 0`` is the disparity ``d = (p - 1) / 256``
pixels and ``p = 0`` an invalid measurement (cityscapesScripts
``README.md``, entry ``disparity``). The camera JSON holds
``{"extrinsic": {"baseline": 0.209313, ...}, "intrinsic": {"fx":
2262.52, ...}}`` (baseline in metres, focal length in pixels; the
calibration is documented in cityscapesScripts ``docs/csCalibration.pdf``).
Depth is the stereo relation ``baseline * fx / d`` metres
(:func:`~robustdet.corruptions.threedcc.depth_from_cityscapes_disparity`;
the formula cityscapesScripts issues #55 and #91 give); ``p = 0`` and
``p = 1`` (zero disparity) are unknown.

``kind='folder'``: any folder of depth maps named like the images, for
example precomputed monocular depth. The depth map of an image is its path
relative to the image root (``image_root``, default ``data_root``) under
``root``, with the file ending replaced: the extension, or the first of
``img_suffix`` the name ends with (e.g. ``'_leftImg8bit.png'``), is
replaced by ``suffix`` (e.g. ``'.npy'`` or ``'_depth.png'``). The
extension of ``suffix`` says how the file is read:

* ``.png``: single-channel 8- or 16-bit integers (``cv2.IMREAD_UNCHANGED``).
* ``.npy``: a real-valued ``numpy`` array, H×W (also 1×H×W or H×W×1).
* ``.tif``/``.tiff``: a single-channel image of any depth, float32 too.

The stored value ``v`` gives the depth ``v * scale``: a 16-bit PNG in
millimetres has ``scale=0.001``, an array in metres ``scale=1.0``. With
``inverse=True`` the stored value is inverse depth (disparity-like,
larger is nearer, as the relative depth of MiDaS or Depth Anything) and
the depth is ``1 / (v * scale)``. The scale must be stated; for relative
depth any positive value serves, since the corruptions divide depth by the
image's own far depth (only the unit cancels: an affine shift in the
inverse depth of a monocular network is not undone here).

Invalid pixels: every stored value that is 0, negative, NaN or infinite is
unknown, and the loaded depth is ``inf`` there, as
:func:`~robustdet.corruptions.threedcc.depth_from_cityscapes_disparity`
gives; the corruptions take unknown depth as far (``_normalised_depth``
maps it to 1). Known depth is finite and positive, float32.

The image size is not checked here: :func:`corrupt_3dcc` raises a
:class:`RobustDetError` naming both shapes when depth and image differ.
"""
import io
import json
import math
import os.path as osp
import re
from dataclasses import dataclass, fields
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import cv2
import numpy as np
from mmengine import fileio
from mmengine.utils import is_abs

from ..corruptions.table import DEFAULT_CALIBRATION, check_calibration
from ..corruptions.threedcc import depth_from_cityscapes_disparity
from ..utils.errors import RobustDetError

#: The kinds of :class:`DepthSource`.
DEPTH_KINDS: Tuple[str, ...] = ('cityscapes', 'folder')
#: File extensions a ``kind='folder'`` depth map may have.
DEPTH_EXTENSIONS: Tuple[str, ...] = ('.png', '.npy', '.tif', '.tiff')

# A Cityscapes left image, clean or rendered (Foggy Cityscapes: the
# variant '_foggy_beta_0.02').
_CITYSCAPES_IMAGE = re.compile(
    r'^(?P<stem>.+_\d{6}_\d{6})_leftImg8bit(?P<variant>_[^/\\]*)?\.png$')
_FOLDER_ONLY = ('suffix', 'scale', 'inverse', 'img_suffix', 'image_root')


@dataclass(frozen=True)
class DepthSource:
    """Where the depth map of each image of a dataset is.

    Args:
        kind (str): ``'cityscapes'`` (disparity PNGs and camera JSONs of a
            Cityscapes tree) or ``'folder'`` (depth maps named like the
            images).
        root (str): The Cityscapes root (holding ``disparity/`` and
            ``camera/``) or the depth folder; relative to ``data_root``
            unless absolute. For ``'cityscapes'`` it defaults to
            ``data_root``; ``'folder'`` needs it.
        suffix (str, optional): ``'folder'`` only, required: the end of a
            depth map's file name that replaces the image's extension (or
            ``img_suffix``), e.g. ``'.npy'`` or ``'_depth.png'``. Its
            extension is one of :data:`DEPTH_EXTENSIONS`.
        scale (float, optional): ``'folder'`` only, required: depth is
            stored value × ``scale`` (e.g. 0.001 for millimetres).
        inverse (bool): ``'folder'`` only: the stored value is inverse
            depth, and depth is ``1 / (value * scale)``. Defaults to False.
        img_suffix (str | Sequence[str]): ``'folder'`` only: endings of
            image file names (extension included) to replace by
            ``suffix``, e.g. ``'_leftImg8bit.png'``; the longest that
            matches is replaced, and an image matching none is an error.
            Empty (the default): the extension is replaced.
        image_root (str, optional): ``'folder'`` only: the directory the
            depth folder mirrors, relative to ``data_root`` unless
            absolute. Defaults to ``data_root``.
        calibration (str, optional): How the corruptions normalise this
            depth (:data:`robustdet.corruptions.DEPTH_CALIBRATIONS`):
            ``'taskonomy'`` (3DCC's source, metric depth), ``'midas'``
            (its convention for a network's inverse depth; needs
            ``inverse``) or ``'percentile'`` (per image). Defaults to
            ``'midas'`` for inverse depth, else ``'taskonomy'``.
    """

    kind: str
    root: str = ''
    suffix: Optional[str] = None
    scale: Optional[float] = None
    inverse: bool = False
    img_suffix: Union[str, Tuple[str, ...]] = ()
    image_root: Optional[str] = None
    calibration: Optional[str] = None

    def __post_init__(self) -> None:
        if self.kind not in DEPTH_KINDS:
            raise RobustDetError(
                f'unknown depth source kind {self.kind!r}; valid: '
                f'{", ".join(DEPTH_KINDS)}')
        if self.root is None:
            object.__setattr__(self, 'root', '')
        if not isinstance(self.root, str):
            raise RobustDetError(
                f'depth source root must be a path string, got '
                f'{self.root!r}')
        img_suffix = self.img_suffix
        if isinstance(img_suffix, str):
            img_suffix = (img_suffix, ) if img_suffix else ()
        elif isinstance(img_suffix, (list, tuple)):
            img_suffix = tuple(img_suffix)
        else:
            raise RobustDetError(
                f'depth source img_suffix must be a string or a list of '
                f'strings, got {img_suffix!r}')
        object.__setattr__(self, 'img_suffix', img_suffix)
        if self.kind == 'cityscapes':
            self._check_cityscapes()
        else:
            self._check_folder()
        self._check_calibration()

    def _check_calibration(self) -> None:
        calibration = self.calibration
        if calibration is None:
            calibration = 'midas' if self.inverse else DEFAULT_CALIBRATION
        check_calibration(calibration)
        where = (f'depth folder {self.root!r}'
                 if self.kind == 'folder' else 'Cityscapes depth')
        if self.inverse and calibration == 'taskonomy':
            raise RobustDetError(
                f"depth calibration 'taskonomy' is for metric depth, but the "
                f'{where} holds inverse depth (--depth-inverse): use '
                f"'midas' or 'percentile'")
        if not self.inverse and calibration == 'midas':
            raise RobustDetError(
                f"depth calibration 'midas' is for a folder of inverse depth "
                f'(--depth-inverse), but the {where} is metric: use '
                f"'taskonomy' or 'percentile'")
        object.__setattr__(self, 'calibration', calibration)

    def _check_cityscapes(self) -> None:
        defaults = {f.name: f.default for f in fields(self)}
        for name in _FOLDER_ONLY:
            if getattr(self, name) != defaults[name]:
                raise RobustDetError(
                    f"depth source kind 'cityscapes' takes no {name} "
                    f"(only kind 'folder' does); got "
                    f'{name}={getattr(self, name)!r}')

    def _check_folder(self) -> None:
        if not self.root:
            raise RobustDetError(
                "depth source kind 'folder' needs root: the folder of "
                'depth maps')
        suffix = self.suffix
        if (not isinstance(suffix, str)
                or not suffix.lower().endswith(DEPTH_EXTENSIONS)
                or _has_separator(suffix)):
            raise RobustDetError(
                f"depth source kind 'folder' needs suffix: the end of the "
                f'depth file names, ending in one of '
                f'{", ".join(DEPTH_EXTENSIONS)} (e.g. \'.npy\'); got '
                f'{suffix!r}')
        scale = self.scale
        if (isinstance(scale, bool) or not isinstance(scale, (int, float))
                or not math.isfinite(scale) or scale <= 0):
            raise RobustDetError(
                f"depth source kind 'folder' needs scale, a positive "
                f'number: depth = stored value × scale (e.g. 0.001 for a '
                f'16-bit PNG in millimetres, 1.0 for metres); got '
                f'{scale!r}')
        object.__setattr__(self, 'scale', float(scale))
        if not isinstance(self.inverse, bool):
            raise RobustDetError(
                f'depth source inverse must be true or false, got '
                f'{self.inverse!r}')
        for ending in self.img_suffix:
            if (not isinstance(ending, str) or not ending
                    or _has_separator(ending)):
                raise RobustDetError(
                    f'depth source img_suffix must hold file name endings, '
                    f'got {ending!r}')
        if self.image_root is not None and not isinstance(
                self.image_root, str):
            raise RobustDetError(
                f'depth source image_root must be a path string, got '
                f'{self.image_root!r}')

    @classmethod
    def from_cfg(cls, cfg: Union[Dict[str, Any],
                                 'DepthSource']) -> 'DepthSource':
        """Build a depth source from its config dict.

        Args:
            cfg (dict | DepthSource): The keys of :meth:`to_cfg` (lists for
                tuples, as JSON gives them), or a ``DepthSource``, returned
                as it is.

        Returns:
            DepthSource: The checked depth source.
        """
        if isinstance(cfg, cls):
            return cfg
        if not isinstance(cfg, dict):
            raise RobustDetError(
                f'a depth source config must be a dict with kind '
                f'({", ".join(DEPTH_KINDS)}), got {cfg!r}')
        names = [f.name for f in fields(cls)]
        unknown = sorted(str(k) for k in cfg if k not in names)
        if unknown:
            raise RobustDetError(
                f'unknown depth source key(s) {", ".join(unknown)}; valid: '
                f'{", ".join(names)}')
        if 'kind' not in cfg:
            raise RobustDetError(
                f'a depth source config needs kind '
                f'({", ".join(DEPTH_KINDS)}), got {cfg!r}')
        return cls(**cfg)

    def to_cfg(self) -> Dict[str, Any]:
        """The config dict of this source, plain JSON types only.

        Returns:
            dict: ``kind`` and ``root``; for ``'folder'`` also ``suffix``,
            ``scale``, ``inverse``, ``img_suffix`` (a list) and
            ``image_root`` (when set); ``calibration`` always.
        """
        cfg: Dict[str, Any] = dict(
            kind=self.kind, root=self.root, calibration=self.calibration)
        if self.kind == 'folder':
            cfg.update(
                suffix=self.suffix,
                scale=self.scale,
                inverse=self.inverse,
                img_suffix=list(self.img_suffix))
            if self.image_root is not None:
                cfg['image_root'] = self.image_root
        return cfg

    def paths(self,
              img_path: str,
              data_root: Optional[str] = None) -> Tuple[str, ...]:
        """The files the depth of one image is read from.

        Args:
            img_path (str): The image's path, as the dataset gives it
                (``img_path`` of its data info).
            data_root (str, optional): The dataset's ``data_root``.

        Returns:
            tuple[str, ...]: ``(disparity PNG, camera JSON)`` for
            ``'cityscapes'``, ``(depth map, )`` for ``'folder'``.
        """
        if self.kind == 'cityscapes':
            return self._cityscapes_paths(img_path, data_root)
        return (self._folder_path(img_path, data_root), )

    def load(self,
             img_path: str,
             data_root: Optional[str] = None,
             backend_args: Optional[dict] = None) -> np.ndarray:
        """Read the depth map of one image.

        Args:
            img_path (str): The image's path, as the dataset gives it.
            data_root (str, optional): The dataset's ``data_root``.
            backend_args (dict, optional): mmengine file backend arguments.

        Returns:
            np.ndarray: float32 H×W depth (metres for ``'cityscapes'``,
            stored value × ``scale`` for ``'folder'``), finite and positive
            where known, ``inf`` where unknown.
        """
        if self.kind == 'cityscapes':
            disparity_path, camera_path = self._cityscapes_paths(
                img_path, data_root)
            return _load_cityscapes(img_path, disparity_path, camera_path,
                                    backend_args)
        path = self._folder_path(img_path, data_root)
        values = _read_values(img_path, path, backend_args)
        return _values_to_depth(values, self.scale, self.inverse)

    def _cityscapes_paths(self, img_path: str,
                          data_root: Optional[str]) -> Tuple[str, str]:
        name = osp.basename(img_path)
        match = _CITYSCAPES_IMAGE.match(name)
        city_dir = osp.dirname(img_path)
        city = osp.basename(city_dir)
        split = osp.basename(osp.dirname(city_dir))
        if match is None or not split or not match['stem'].startswith(
                city + '_'):
            raise RobustDetError(
                f'{img_path} is not a Cityscapes left image '
                f'({{split}}/{{city}}/{{city}}_{{seq}}_{{frame}}'
                f'_leftImg8bit[_variant].png): depth source kind '
                f"'cityscapes' cannot find its disparity")
        root = _under(data_root, self.root)
        if not root:
            raise RobustDetError(
                f"depth source kind 'cityscapes' needs root or the "
                f"dataset's data_root (the Cityscapes root) for {img_path}")
        stem = match['stem']
        return (fileio.join_path(root, 'disparity', split, city,
                                 f'{stem}_disparity.png'),
                fileio.join_path(root, 'camera', split, city,
                                 f'{stem}_camera.json'))

    def _folder_path(self, img_path: str, data_root: Optional[str]) -> str:
        image_root = (
            data_root if self.image_root is None else _under(
                data_root, self.image_root))
        rel = _relative(img_path, image_root or '')
        endings = sorted(self.img_suffix, key=len, reverse=True)
        if endings:
            ending = next((e for e in endings if rel.endswith(e)), None)
            if ending is None:
                raise RobustDetError(
                    f'image {img_path} ends in none of the depth source '
                    f'img_suffix {", ".join(endings)}')
        else:
            ending = osp.splitext(rel)[1]
        rel = rel[:len(rel) - len(ending)] + self.suffix
        return fileio.join_path(_under(data_root, self.root), rel)


def _has_separator(name: str) -> bool:
    return '/' in name or osp.sep in name


def _under(data_root: Optional[str], path: Optional[str]) -> str:
    """``path`` joined to ``data_root`` unless absolute or empty."""
    if not path:
        return data_root or ''
    if data_root and not is_abs(path):
        return fileio.join_path(data_root, path)
    return path


def _normalise(path: str) -> str:
    if '://' in path:
        scheme, rest = path.split('://', 1)
        return scheme + '://' + osp.normpath(rest).replace(osp.sep, '/')
    return osp.abspath(path).replace(osp.sep, '/')


def _relative(img_path: str, root: str) -> str:
    """The image's path relative to ``root``, with ``/`` separators."""
    if not root:
        if is_abs(img_path):
            raise RobustDetError(
                f'cannot place image {img_path} in the depth folder: give '
                f"the depth source image_root or the dataset's data_root")
        return osp.normpath(img_path).replace(osp.sep, '/')
    full, prefix = _normalise(img_path), _normalise(root).rstrip('/') + '/'
    if not full.startswith(prefix):
        raise RobustDetError(
            f'image {img_path} is not under {root}, the image root the '
            f'depth folder mirrors (depth source image_root, default '
            f'data_root)')
    return full[len(prefix):]


def _read_bytes(img_path: str, path: str, what: str,
                backend_args: Optional[dict]) -> bytes:
    try:
        return fileio.get(path, backend_args=backend_args)
    except FileNotFoundError:
        raise RobustDetError(f'no {what} for image {img_path}: {path} does '
                             f'not exist') from None
    except OSError as e:
        raise RobustDetError(
            f'cannot read {what} {path} (for image {img_path}): '
            f'{_one_line(e.strerror or e)}') from None


def _one_line(message: Any) -> str:
    return ' '.join(str(message).split())


def _decode_image(buf: bytes, path: str) -> np.ndarray:
    try:
        array = cv2.imdecode(
            np.frombuffer(buf, dtype=np.uint8), cv2.IMREAD_UNCHANGED)
    except cv2.error:
        array = None
    if array is None:
        raise RobustDetError(f'cannot decode {path} as an image')
    if array.ndim != 2:
        raise RobustDetError(
            f'{path} is not a single-channel depth map (shape '
            f'{array.shape})')
    return array


def _load_cityscapes(img_path: str, disparity_path: str, camera_path: str,
                     backend_args: Optional[dict]) -> np.ndarray:
    disparity = _decode_image(
        _read_bytes(img_path, disparity_path, 'Cityscapes disparity',
                    backend_args), disparity_path)
    if disparity.dtype != np.uint16:
        raise RobustDetError(
            f'{disparity_path} is not a 16-bit disparity PNG (got '
            f'{disparity.dtype})')
    buf = _read_bytes(img_path, camera_path, 'Cityscapes camera JSON',
                      backend_args)
    try:
        camera = json.loads(buf)
    except ValueError as e:
        raise RobustDetError(
            f'cannot parse {camera_path} as JSON: {_one_line(e)}') from None
    calibration = {}
    for group, key in (('extrinsic', 'baseline'), ('intrinsic', 'fx')):
        section = camera.get(group) if isinstance(camera, dict) else None
        value = section.get(key) if isinstance(section, dict) else None
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or value <= 0):
            found = 'missing' if value is None else repr(value)
            raise RobustDetError(
                f'camera file {camera_path} needs {group}.{key}, a positive '
                f'number; got {found}')
        calibration[key] = float(value)
    return depth_from_cityscapes_disparity(disparity,
                                           calibration['baseline'],
                                           calibration['fx'])


def _read_values(img_path: str, path: str,
                 backend_args: Optional[dict]) -> np.ndarray:
    buf = _read_bytes(img_path, path, 'depth map', backend_args)
    if not path.lower().endswith('.npy'):
        return _decode_image(buf, path)
    try:
        array = np.load(io.BytesIO(buf), allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise RobustDetError(
            f'cannot read {path} as a .npy array: {_one_line(e)}') from None
    if not isinstance(array, np.ndarray) or not (
            np.issubdtype(array.dtype, np.integer)
            or np.issubdtype(array.dtype, np.floating)):
        raise RobustDetError(
            f'{path} does not hold a real-valued array (got '
            f'{getattr(array, "dtype", type(array).__name__)})')
    if array.ndim == 3 and 1 in (array.shape[0], array.shape[-1]):
        array = array.reshape(
            _squeezed(array.shape, 0 if array.shape[0] == 1 else 2))
    if array.ndim != 2:
        raise RobustDetError(
            f'{path} is not an H×W depth map (shape {array.shape})')
    return array


def _squeezed(shape: Sequence[int], axis: int) -> Tuple[int, ...]:
    return tuple(n for i, n in enumerate(shape) if i != axis)


def _values_to_depth(values: np.ndarray, scale: float,
                     inverse: bool) -> np.ndarray:
    """Depth ``values * scale`` (or its inverse), ``inf`` where unknown.

    Args:
        values (np.ndarray): H×W stored values; unknown where 0, negative,
            NaN or infinite.
        scale (float): Positive factor.
        inverse (bool): Whether ``values * scale`` is inverse depth.

    Returns:
        np.ndarray: float32 H×W, finite and positive where known, ``inf``
        elsewhere.
    """
    v = values.astype(np.float64)
    with np.errstate(invalid='ignore', divide='ignore', over='ignore'):
        known = np.isfinite(v) & (v > 0)
        v = v * scale
        if inverse:
            v = 1.0 / v
        depth = v.astype(np.float32)
        known &= np.isfinite(depth) & (depth > 0)
    depth[~known] = np.inf
    return depth
