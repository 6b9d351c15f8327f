# Copyright (c) robustdet contributors. All rights reserved.
from .corrupted import (CorruptedDataset, insert_after_loading,
                        iter_leaf_datasets)
from .transforms import CorruptImage

__all__ = [
    'CorruptImage', 'CorruptedDataset', 'insert_after_loading',
    'iter_leaf_datasets'
]
