# Copyright (c) robustdet contributors. All rights reserved.
"""The single table of image corruptions.

Names, order, groups, families and per-severity parameters live here and
nowhere else: CLI choices, configs, the mPC of each family and reports
derive from it. Four families:

* ``benchmark``: the 15 corruptions of the PASCAL-C / COCO-C /
  Cityscapes-C benchmark (Michaelis et al. 2019, after Hendrycks &
  Dietterich 2019) in its four groups noise, blur, weather and digital;
  mPC and rPC are theirs;
* ``holdout``: its 4 hold-out (validation) corruptions (``mPC_holdout``);
* ``cbar``: the 10 of ImageNet-C-bar (Mintun et al. 2021), chosen to be
  unlike the 15 (``mPC_cbar``, mPC-bar), :mod:`.cbar`;
* ``3dcc``: six of 3D Common Corruptions (Kar et al. 2022), three of
  which need a depth map (``mPC_3dcc``), :mod:`.threedcc`.

The selection word ``all`` stays the 19 of 2019, so a ``--corruptions
all`` run means what it meant before the newer families came.
"""
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Tuple

from ..utils.errors import RobustDetError


@dataclass(frozen=True)
class Corruption:
    """One image corruption.

    Args:
        name (str): Name as in its source (imagecorruptions, the C-bar
            csv, 3DCC), e.g. ``'gaussian_noise'``.
        group (str): One of :data:`GROUPS`.
        stochastic (bool): Whether it draws random numbers (needs a seed).
        params (tuple): The per-severity parameters of the reference
            definition (imagecorruptions' ``c`` list; ``alpha`` for
            elastic_transform; ``(start, stop, step)`` of the ``np.arange``
            zoom factors for zoom_blur), severity 1 first. Every backend
            reads them from here; a test checks them against the reference
            library's source. C-bar: the csv's level (0-10 scale) of
            each severity; 3DCC: see :data:`.threedcc.THREEDCC_PARAMS`.
        needs_depth (bool): Whether it needs a per-image depth map.
    """
    name: str
    group: str
    stochastic: bool
    params: Tuple[Any, ...]
    needs_depth: bool = False

    def severity_params(self, severity: int) -> Any:
        """The parameters of severity 1-5."""
        return self.params[check_severity(severity) - 1]

    @property
    def benchmark(self) -> bool:
        """Whether it counts towards mPC (one of the 15)."""
        return self.group in BENCHMARK_GROUPS

    @property
    def family(self) -> str:
        """Its family: ``'benchmark'`` for the 15, else its group."""
        return BENCHMARK_FAMILY if self.benchmark else self.group


BENCHMARK_GROUPS: Tuple[str, ...] = ('noise', 'blur', 'weather', 'digital')
BENCHMARK_FAMILY = 'benchmark'
# The families after the 15, each reported with its own mPC_<family>.
NEWER_FAMILIES: Tuple[str, ...] = ('cbar', '3dcc')
FAMILIES: Tuple[str, ...] = (BENCHMARK_FAMILY, 'holdout') + NEWER_FAMILIES
GROUPS: Tuple[str, ...] = BENCHMARK_GROUPS + ('holdout', ) + NEWER_FAMILIES
SEVERITIES: Tuple[int, ...] = (1, 2, 3, 4, 5)
CLEAN_SEVERITY = 0

# In table order: the 15 benchmark corruptions, then the 4 hold-out
# (validation) corruptions (imagecorruptions' order), the 10 of C-bar (the
# order of the source's imagenet_c_bar.csv), then 3DCC (depth-free first).
CORRUPTIONS: Tuple[Corruption, ...] = (
    Corruption('gaussian_noise', 'noise', True,
               (0.08, 0.12, 0.18, 0.26, 0.38)),
    Corruption('shot_noise', 'noise', True, (60, 25, 12, 5, 3)),
    Corruption('impulse_noise', 'noise', True,
               (0.03, 0.06, 0.09, 0.17, 0.27)),
    Corruption('defocus_blur', 'blur', False,
               ((3, 0.1), (4, 0.5), (6, 0.5), (8, 0.5), (10, 0.5))),
    Corruption('glass_blur', 'blur', True,
               ((0.7, 1, 2), (0.9, 2, 1), (1, 2, 3), (1.1, 3, 2),
                (1.5, 4, 2))),
    Corruption('motion_blur', 'blur', True,
               ((10, 3), (15, 5), (15, 8), (15, 12), (20, 15))),
    Corruption('zoom_blur', 'blur', False,
               ((1, 1.11, 0.01), (1, 1.16, 0.01), (1, 1.21, 0.02),
                (1, 1.26, 0.02), (1, 1.31, 0.03))),
    Corruption('snow', 'weather', True,
               ((0.1, 0.3, 3, 0.5, 10, 4, 0.8),
                (0.2, 0.3, 2, 0.5, 12, 4, 0.7),
                (0.55, 0.3, 4, 0.9, 12, 8, 0.7),
                (0.55, 0.3, 4.5, 0.85, 12, 8, 0.65),
                (0.55, 0.3, 2.5, 0.85, 12, 12, 0.55))),
    Corruption('frost', 'weather', True,
               ((1, 0.4), (0.8, 0.6), (0.7, 0.7), (0.65, 0.7), (0.6, 0.75))),
    Corruption('fog', 'weather', True,
               ((1.5, 2), (2.0, 2), (2.5, 1.7), (2.5, 1.5), (3.0, 1.4))),
    Corruption('brightness', 'weather', False, (0.1, 0.2, 0.3, 0.4, 0.5)),
    Corruption('contrast', 'digital', False, (0.4, 0.3, 0.2, 0.1, 0.05)),
    Corruption('elastic_transform', 'digital', True,
               (250 * 0.05, 250 * 0.065, 250 * 0.085, 250 * 0.1,
                250 * 0.12)),
    Corruption('pixelate', 'digital', False, (0.6, 0.5, 0.4, 0.3, 0.25)),
    Corruption('jpeg_compression', 'digital', False, (25, 18, 15, 10, 7)),
    Corruption('speckle_noise', 'holdout', True,
               (0.15, 0.2, 0.35, 0.45, 0.6)),
    Corruption('gaussian_blur', 'holdout', False, (1, 2, 3, 4, 6)),
    Corruption('spatter', 'holdout', True,
               ((0.65, 0.3, 4, 0.69, 0.6, 0), (0.65, 0.3, 3, 0.68, 0.6, 0),
                (0.65, 0.3, 2, 0.68, 0.5, 0), (0.65, 0.3, 1, 0.65, 1.5, 1),
                (0.67, 0.4, 1, 0.65, 1.5, 1))),
    Corruption('saturate', 'holdout', False,
               ((0.3, 0), (0.1, 0), (2, 0), (5, 0.1), (20, 0.2))),
    # ImageNet-C-bar: the csv's level (0-10) of severities 1-5.
    Corruption('caustic_refraction', 'cbar', True,
               (2.35, 3.2, 4.9, 6.6, 9.15)),
    Corruption('inverse_sparkles', 'cbar', True,
               (1.0, 2.0, 4.0, 9.0, 10.0)),
    Corruption('sparkles', 'cbar', True, (1.0, 2.0, 3.0, 5.0, 6.0)),
    Corruption('perlin_noise', 'cbar', True, (4.6, 5.2, 5.8, 7.6, 8.8)),
    Corruption('blue_noise_sample', 'cbar', True,
               (0.8, 1.6, 2.4, 4.0, 5.6)),
    Corruption('plasma_noise', 'cbar', True,
               (4.75, 7.0, 8.5, 9.25, 10.0)),
    Corruption('checkerboard_cutout', 'cbar', True,
               (2.0, 3.0, 4.0, 5.0, 6.0)),
    Corruption('cocentric_sine_waves', 'cbar', True,
               (3.0, 5.0, 8.0, 9.0, 10.0)),
    Corruption('single_frequency_greyscale', 'cbar', True,
               (1.0, 1.5, 2.0, 4.5, 5.0)),
    Corruption('brownish_noise', 'cbar', True, (1.0, 2.0, 3.0, 4.0, 5.0)),
    # 3D Common Corruptions (parameters: .threedcc).
    Corruption('low_light', '3dcc', True,
               ((0.6, 2.0, 120, 0.018), (0.5, 2.0, 120, 0.018),
                (0.4, 2.0, 120, 0.018), (0.3, 2.0, 120, 0.018),
                (0.2, 2.0, 120, 0.018))),
    Corruption('iso_noise', '3dcc', True,
               ((25, 0.056), (25, 0.084), (25, 0.126), (25, 0.182),
                (25, 0.266))),
    Corruption('color_quant', '3dcc', False, (5, 4, 3, 2, 1)),
    Corruption('fog_3d', '3dcc', False, (4.0, 8.0, 12.0, 16.0, 20.0),
               needs_depth=True),
    Corruption('near_focus', '3dcc', False,
               ((3.0, 0), (4.0, 0), (5.0, 0), (6.0, 0), (7.0, 0)),
               needs_depth=True),
    Corruption('far_focus', '3dcc', False,
               ((1.5, 7), (2.5, 7), (3.5, 7), (4.5, 7), (5.5, 7)),
               needs_depth=True),
)
CORRUPTIONS_BY_NAME: Dict[str, Corruption] = {c.name: c for c in CORRUPTIONS}
CORRUPTION_NAMES: Tuple[str, ...] = tuple(c.name for c in CORRUPTIONS)
BENCHMARK_CORRUPTIONS: Tuple[str, ...] = tuple(
    c.name for c in CORRUPTIONS if c.benchmark)
HOLDOUT_CORRUPTIONS: Tuple[str, ...] = tuple(
    c.name for c in CORRUPTIONS if c.group == 'holdout')
# The 19 of 2019 (imagecorruptions' 'all').
IMAGENET_C_CORRUPTIONS: Tuple[str, ...] = (BENCHMARK_CORRUPTIONS +
                                           HOLDOUT_CORRUPTIONS)
NEEDS_DEPTH: Tuple[str, ...] = tuple(c.name for c in CORRUPTIONS
                                     if c.needs_depth)

# Selection words accepted wherever a list of corruptions is asked for.
SELECTIONS: Dict[str, Tuple[str, ...]] = {
    'all': IMAGENET_C_CORRUPTIONS,
    'benchmark': BENCHMARK_CORRUPTIONS,
    **{
        g: tuple(c.name for c in CORRUPTIONS if c.group == g)
        for g in GROUPS
    },
    '3dcc_depth_free': tuple(c.name for c in CORRUPTIONS
                             if c.group == '3dcc' and not c.needs_depth),
}


def family_corruptions(family: str) -> Tuple[str, ...]:
    """The corruptions of a family of :data:`FAMILIES`, table order."""
    return tuple(c.name for c in CORRUPTIONS if c.family == family)


def get_corruption(name: str) -> Corruption:
    """Look a corruption up by name.

    Args:
        name (str): A corruption name.

    Returns:
        Corruption: Its table entry.

    Raises:
        RobustDetError: The name is unknown; the message lists valid ones.
    """
    try:
        return CORRUPTIONS_BY_NAME[name]
    except (KeyError, TypeError):
        raise RobustDetError(
            f'unknown corruption {name!r}; valid: '
            f'{", ".join(CORRUPTION_NAMES)}') from None


def resolve_corruptions(tokens: Iterable[str]) -> List[str]:
    """Expand selection words and names into corruption names.

    Args:
        tokens (Iterable[str]): Names and/or selection words of
            :data:`SELECTIONS` (``all`` = the 19 of 2019, ``benchmark``,
            ``noise``, ``blur``, ``weather``, ``digital``, ``holdout``,
            ``cbar``, ``3dcc``, ``3dcc_depth_free``).

    Returns:
        list[str]: Unique names in benchmark (table) order.

    Raises:
        RobustDetError: A token is neither a name nor a selection word.
    """
    chosen = set()
    for token in tokens:
        if token in SELECTIONS:
            chosen.update(SELECTIONS[token])
        elif token in CORRUPTIONS_BY_NAME:
            chosen.add(token)
        else:
            raise RobustDetError(
                f'unknown corruption {token!r}; valid: '
                f'{", ".join(SELECTIONS)} or a name: '
                f'{", ".join(CORRUPTION_NAMES)}')
    return [n for n in CORRUPTION_NAMES if n in chosen]


# The input contract of every backend.
CHANNEL_ORDERS = ('rgb', 'bgr')
# How the depth-aware corruptions normalise depth (see .threedcc):
# 'taskonomy' (metric depth, the source's default), 'midas' (the inverse
# depth of a monocular network, the source's ImageNet convention) and
# 'percentile' (per image, robustdet before 2026-11-27).
DEPTH_CALIBRATIONS = ('taskonomy', 'midas', 'percentile')
DEFAULT_CALIBRATION = 'taskonomy'
MIN_SIDE = 32


def check_calibration(calibration: str) -> str:
    """Check a depth calibration name (:data:`DEPTH_CALIBRATIONS`).

    Args:
        calibration (str): The name.

    Returns:
        str: The name.
    """
    if calibration not in DEPTH_CALIBRATIONS:
        raise RobustDetError(
            f'unknown depth calibration {calibration!r}; valid: '
            f'{", ".join(DEPTH_CALIBRATIONS)}')
    return calibration


def check_channel_order(channel_order: str) -> str:
    """``channel_order`` if it is one of :data:`CHANNEL_ORDERS`, else a
    user error."""
    if channel_order not in CHANNEL_ORDERS:
        raise RobustDetError(f'unknown channel order {channel_order!r}; '
                             f'valid: {", ".join(CHANNEL_ORDERS)}')
    return channel_order


def check_image_size(height: int, width: int) -> None:
    """A user error for an image with a side under :data:`MIN_SIDE`."""
    if min(height, width) < MIN_SIDE:
        raise RobustDetError(
            f'image of size {width}×{height} is too small: the corruptions '
            f'need at least {MIN_SIDE} pixels on each side')


def check_severity(severity: int, allow_clean: bool = False) -> int:
    """Validate a severity.

    Args:
        severity (int): The severity, 1-5 (or 0 = clean if allowed).
        allow_clean (bool): Whether 0 is accepted.

    Returns:
        int: The severity.

    Raises:
        RobustDetError: It is outside the valid range.
    """
    valid = ((CLEAN_SEVERITY, ) if allow_clean else ()) + SEVERITIES
    if isinstance(severity, bool) or severity not in valid:
        raise RobustDetError(
            f'severity {severity!r} is out of range; valid: '
            f'{", ".join(map(str, valid))}')
    return int(severity)
