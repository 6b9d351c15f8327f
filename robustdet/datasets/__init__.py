# Copyright (c) robustdet contributors. All rights reserved.
from .corrupted import (CorruptedDataset, insert_after_loading,
                        iter_leaf_datasets, loading_index)
from .multi_corrupted import MultiCellPipeline, MultiCorruptedDataset
from .neighbor_builder import build_neighbor_sets, frame_labels
from .neighbor_sets import (IMAGENET_VID_CLASSES, IMAGENET_VID_WNIDS,
                            NeighborSetDataset)
from .transforms import CorruptImage

__all__ = [
    'CorruptImage', 'CorruptedDataset', 'IMAGENET_VID_CLASSES',
    'IMAGENET_VID_WNIDS', 'MultiCellPipeline', 'MultiCorruptedDataset',
    'NeighborSetDataset', 'build_neighbor_sets', 'frame_labels',
    'insert_after_loading', 'iter_leaf_datasets', 'loading_index'
]
