# Copyright (c) robustdet contributors. All rights reserved.
"""The corruption-error section of a robustness report: mCE, relative
mCE and their pooled forms per family, CE and relative CE per corruption,
always with the baseline they were taken against (from the results'
``corruption_errors`` entry, see :func:`robustdet.apis.results.
corruption_errors`)."""
from typing import Optional

from .formatting import percent, with_count

FAMILY_TITLES = dict(
    benchmark='the 15 (mCE)',
    holdout='hold-out',
    cbar='C-bar (mCE-bar)',
    **{'3dcc': '3DCC'})


def mean_with_count(value: Optional[float], count: Optional[int]) -> str:
    """A mean CE in % (one decimal) with the number of corruptions it
    averages, ``'84.2 (15)'``; ``'–'`` when there is no mean.

    Args:
        value (float, optional): The mean, a fraction (1 = the
            baseline's error) or None.
        count (int, optional): How many corruptions it averages.

    Returns:
        str: The cell's text.
    """
    return with_count(percent(value), count)


# The sentence under every table of mean CEs.
COUNT_WORDS = ('(n): the corruptions a mean covers; relative mCE leaves '
               'out the flagged ones.')
