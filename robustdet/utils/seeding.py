# Copyright (c) robustdet contributors. All rights reserved.
"""Stable seeds derived from what is being done, never from global state."""
import hashlib
from typing import Any

SEED_BITS = 32


def derive_seed(*parts: Any) -> int:
    """Derive a 32-bit seed from its parts with a stable hash.

    The same parts give the same seed in every process, on every machine,
    whatever ``PYTHONHASHSEED`` is: use it for (run seed, item identity,
    what is being done).

    Args:
        *parts: Values whose ``str()`` identifies the random choice, e.g.
            ``(seed, 'val/img_001.jpg', 'gaussian_noise', 3)``.

    Returns:
        int: A seed in ``[0, 2**32)``, valid for ``np.random.seed``.
    """
    text = '\x1f'.join(f'{type(p).__name__}:{p}' for p in parts)
    digest = hashlib.blake2b(text.encode('utf-8'), digest_size=8).digest()
    return int.from_bytes(digest, 'little') % (1 << SEED_BITS)
