# Copyright (c) robustdet contributors. All rights reserved.
"""Confidence intervals of proportions."""
import numpy as np

__all__ = ['clopper_pearson']


def clopper_pearson(correct, total, alpha: float = 0.05):
    """Clopper-Pearson (exact binomial) interval.

    Args:
        correct (int or array-like): Successes x.
        total (int or array-like): Trials n (> 0).
        alpha (float): 1 - confidence level.

    Returns:
        tuple: ``(low, high)``; low is 0 when x = 0, high is 1 when x = n.
    """
    from scipy.stats import beta
    x = np.asarray(correct, dtype=np.float64)
    n = np.asarray(total, dtype=np.float64)
    with np.errstate(invalid='ignore', divide='ignore'):
        low = np.where(x > 0, beta.ppf(alpha / 2, x, n - x + 1), 0.0)
        high = np.where(x < n, beta.ppf(1 - alpha / 2, x + 1, n - x), 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high
