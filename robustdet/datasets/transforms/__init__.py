# Copyright (c) robustdet contributors. All rights reserved.
from .corrupt import (CorruptImage, RecordImageIdentity, corruption_seed,
                      image_identity)
from .random_corrupt import (DEFAULT_TRAIN_CORRUPTIONS, RandomCorrupt,
                             RandomCorruptHook)
from .resize import DeferredResize

__all__ = [
    'CorruptImage', 'DEFAULT_TRAIN_CORRUPTIONS', 'DeferredResize',
    'RandomCorrupt', 'RandomCorruptHook', 'RecordImageIdentity',
    'corruption_seed', 'image_identity'
]
