# Copyright (c) robustdet contributors. All rights reserved.
from .corrupt import (CorruptImage, RecordImageIdentity, corruption_seed,
                      image_identity)
from .random_corrupt import (DEFAULT_TRAIN_CORRUPTIONS, RandomCorrupt,
                             with_random_corrupt)
from .resize import DeferredResize
from .sample_context import SampleContext, current_sample

__all__ = [
    'CorruptImage', 'DEFAULT_TRAIN_CORRUPTIONS', 'DeferredResize',
    'RandomCorrupt', 'RecordImageIdentity', 'SampleContext',
    'corruption_seed', 'current_sample', 'image_identity',
    'with_random_corrupt'
]
