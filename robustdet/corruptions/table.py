# Copyright (c) robustdet contributors. All rights reserved.
"""The single table of image corruptions.

Names, benchmark order, groups and severities of the PASCAL-C / COCO-C /
Cityscapes-C benchmark (Michaelis et al. 2019, after Hendrycks & Dietterich
2019) live here and nowhere else: CLI choices, configs, mPC aggregation
and reports derive from it.
"""
from dataclasses import dataclass
from typing import Dict, Iterable, List, Tuple

from ..utils.errors import RobustDetError


@dataclass(frozen=True)
class Corruption:
    """One corruption of the benchmark.

    Args:
        name (str): Name as in imagecorruptions, e.g. ``'gaussian_noise'``.
        group (str): One of :data:`GROUPS`.
        stochastic (bool): Whether it draws random numbers (needs a seed).
    """
    name: str
    group: str
    stochastic: bool

    @property
    def benchmark(self) -> bool:
        """Whether it counts towards mPC (the 15, not the hold-out 4)."""
        return self.group != 'holdout'


BENCHMARK_GROUPS: Tuple[str, ...] = ('noise', 'blur', 'weather', 'digital')
GROUPS: Tuple[str, ...] = BENCHMARK_GROUPS + ('holdout', )
SEVERITIES: Tuple[int, ...] = (1, 2, 3, 4, 5)
CLEAN_SEVERITY = 0

# In benchmark order: the 15 benchmark corruptions, then the 4 hold-out
# (validation) corruptions.
CORRUPTIONS: Tuple[Corruption, ...] = (
    Corruption('gaussian_noise', 'noise', True),
    Corruption('shot_noise', 'noise', True),
    Corruption('impulse_noise', 'noise', True),
    Corruption('defocus_blur', 'blur', False),
    Corruption('glass_blur', 'blur', True),
    Corruption('motion_blur', 'blur', True),
    Corruption('zoom_blur', 'blur', False),
    Corruption('snow', 'weather', True),
    Corruption('frost', 'weather', True),
    Corruption('fog', 'weather', True),
    Corruption('brightness', 'weather', False),
    Corruption('contrast', 'digital', False),
    Corruption('elastic_transform', 'digital', True),
    Corruption('pixelate', 'digital', False),
    Corruption('jpeg_compression', 'digital', False),
    Corruption('speckle_noise', 'holdout', True),
    Corruption('gaussian_blur', 'holdout', False),
    Corruption('spatter', 'holdout', True),
    Corruption('saturate', 'holdout', False),
)
CORRUPTIONS_BY_NAME: Dict[str, Corruption] = {c.name: c for c in CORRUPTIONS}
CORRUPTION_NAMES: Tuple[str, ...] = tuple(c.name for c in CORRUPTIONS)
BENCHMARK_CORRUPTIONS: Tuple[str, ...] = tuple(
    c.name for c in CORRUPTIONS if c.benchmark)
HOLDOUT_CORRUPTIONS: Tuple[str, ...] = tuple(
    c.name for c in CORRUPTIONS if not c.benchmark)

# Selection words accepted wherever a list of corruptions is asked for.
SELECTIONS: Dict[str, Tuple[str, ...]] = {
    'all': CORRUPTION_NAMES,
    'benchmark': BENCHMARK_CORRUPTIONS,
    **{
        g: tuple(c.name for c in CORRUPTIONS if c.group == g)
        for g in GROUPS
    },
}


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
        tokens (Iterable[str]): Names and/or selection words (``all``,
            ``benchmark``, ``holdout``, ``noise``, ``blur``, ``weather``,
            ``digital``).

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
