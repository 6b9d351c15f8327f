# Copyright (c) robustdet contributors. All rights reserved.
"""The reference backend: the ``imagecorruptions`` package.

Installed from ``imagecorruptions-imaug==1.1.5`` (the original
``imagecorruptions==1.1.2`` no longer imports on current setuptools,
scikit-image and numpy). Its functions draw from numpy's global RNG, except
``impulse_noise`` (scikit-image, ``seed=``) and ``glass_blur`` (a numba
kernel with numba's own RNG, ``seed=``). This module seeds all three, and
restores numpy's global state afterwards so no RNG state leaks.

imagecorruptions compiles its glass_blur kernel without numba's on-disk
cache: about 5 s in every process (each dataloader worker too) before its
first glass_blur. This module turns numba's cache on for it (the same
compiled code, kept beside imagecorruptions' source, or in numba's user
cache folder where that is read-only), so that only the first process
compiles it (per cache folder and CPU target).
"""
import threading

import numpy as np

# Corruptions of imagecorruptions that take ``seed=`` directly.
_SEED_KWARG = frozenset({'impulse_noise', 'glass_blur'})
_GLOBAL_RNG_LOCK = threading.Lock()
_cache_on = False


def _cache_glass_blur_kernel(corruptions) -> None:
    """Turn numba's on-disk cache on for imagecorruptions' glass_blur
    kernel, once per process; left uncached where numba finds no
    writable cache folder or the kernel is gone.

    Args:
        corruptions (module): ``imagecorruptions.corruptions``.
    """
    global _cache_on
    if _cache_on:
        return
    _cache_on = True
    kernel = getattr(corruptions, '_shuffle_pixels_njit_glass_blur', None)
    try:
        kernel.enable_caching()
    except (AttributeError, RuntimeError):  # not numba's, or no cache dir
        pass


def corrupt_reference(img: np.ndarray, name: str, severity: int,
                      seed: int) -> np.ndarray:
    """Corrupt an RGB uint8 image with imagecorruptions, reproducibly.

    Args:
        img (np.ndarray): RGB uint8 image, H×W×3, at least 32×32.
        name (str): Corruption name (validated by the caller).
        severity (int): 1-5 (validated by the caller).
        seed (int): Seed in ``[0, 2**32)`` for every generator involved.

    Returns:
        np.ndarray: The corrupted RGB uint8 image, H×W×3.
    """
    from imagecorruptions import corrupt, corruptions
    _cache_glass_blur_kernel(corruptions)
    kwargs = dict(seed=seed) if name in _SEED_KWARG else {}
    with _GLOBAL_RNG_LOCK:
        state = np.random.get_state()
        try:
            np.random.seed(seed)
            out = corrupt(
                img, severity=severity, corruption_name=name, **kwargs)
        finally:
            np.random.set_state(state)
    return out
