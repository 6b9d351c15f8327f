# Copyright (c) robustdet contributors. All rights reserved.
from .corrupting_preprocessor import (CorruptingDataPreprocessor,
                                      find_corrupting_preprocessor,
                                      resize_like_cv2)
from .replay_detector import ReplayDetector, load_detections, save_detections

__all__ = [
    'CorruptingDataPreprocessor', 'ReplayDetector',
    'find_corrupting_preprocessor', 'load_detections', 'resize_like_cv2',
    'save_detections'
]
