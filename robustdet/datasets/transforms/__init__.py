# Copyright (c) robustdet contributors. All rights reserved.
from .corrupt import (CorruptImage, RecordImageIdentity, corruption_seed,
                      image_identity)
from .resize import DeferredResize

__all__ = [
    'CorruptImage', 'DeferredResize', 'RecordImageIdentity',
    'corruption_seed', 'image_identity'
]
