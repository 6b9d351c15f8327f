# Copyright (c) robustdet contributors. All rights reserved.
from .bdd100k import BDD100K_CLASSES, BDD100kDataset, write_coco_annotations
from .corrupted import (CorruptedDataset, insert_after_loading,
                        iter_leaf_datasets, loading_index)
from .deferred_corrupted import (HOST_KEY, DeferredCorruptionDataset,
                                 attach_host_inputs, defer_pipeline)
from .epoch_position import EpochPositionDataset
from .foggy_cityscapes import (FOGGY_BETAS, FoggyCityscapesDataset,
                               foggy_file_name, parse_foggy_beta)
from .multi_corrupted import MultiCellPipeline, MultiCorruptedDataset
from .neighbor_builder import build_neighbor_sets, frame_labels
from .neighbor_sets import (IMAGENET_VID_CLASSES, IMAGENET_VID_WNIDS,
                            NeighborSetDataset)
from .stylized import StylizedDataset
from .transforms import (CorruptImage, DeferredResize, RandomCorrupt,
                         RecordImageIdentity, corruption_seed, image_identity,
                         with_random_corrupt)
from .video_corrupted import (MultiVideoCorruptedDataset,
                              VideoCorruptedDataset, move_instances)

__all__ = [
    'BDD100K_CLASSES', 'BDD100kDataset', 'CorruptImage', 'CorruptedDataset',
    'DeferredCorruptionDataset', 'HOST_KEY', 'attach_host_inputs',
    'DeferredResize', 'EpochPositionDataset', 'FOGGY_BETAS',
    'FoggyCityscapesDataset',
    'IMAGENET_VID_CLASSES', 'IMAGENET_VID_WNIDS',
    'MultiCellPipeline', 'MultiCorruptedDataset', 'NeighborSetDataset',
    'MultiVideoCorruptedDataset', 'RandomCorrupt',
    'RecordImageIdentity', 'StylizedDataset',
    'VideoCorruptedDataset', 'move_instances', 'build_neighbor_sets',
    'corruption_seed', 'defer_pipeline', 'frame_labels', 'image_identity',
    'insert_after_loading', 'iter_leaf_datasets', 'loading_index',
    'foggy_file_name', 'parse_foggy_beta', 'with_random_corrupt',
    'write_coco_annotations'
]
