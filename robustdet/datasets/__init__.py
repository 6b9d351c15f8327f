# Copyright (c) robustdet contributors. All rights reserved.
from .corrupted import (CorruptedDataset, insert_after_loading,
                        iter_leaf_datasets)
from .neighbor_builder import build_neighbor_sets, frame_labels
from .neighbor_sets import (IMAGENET_VID_CLASSES, IMAGENET_VID_WNIDS,
                            NeighborSetDataset)
from .transforms import CorruptImage

__all__ = [
    'CorruptImage', 'CorruptedDataset', 'IMAGENET_VID_CLASSES',
    'IMAGENET_VID_WNIDS', 'NeighborSetDataset', 'build_neighbor_sets',
    'frame_labels', 'insert_after_loading', 'iter_leaf_datasets'
]
