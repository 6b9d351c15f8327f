# Copyright (c) robustdet contributors. All rights reserved.
from .corrupting_preprocessor import (CorruptingDataPreprocessor,
                                      find_corrupting_preprocessor,
                                      resize_like_cv2)

__all__ = [
    'CorruptingDataPreprocessor', 'find_corrupting_preprocessor',
    'resize_like_cv2'
]
