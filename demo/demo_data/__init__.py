# Copyright (c) robustdet contributors. All rights reserved.
"""Seeded synthetic detection data for demos and tests."""
from .layouts import (CITYSCAPES_CITIES, CITYSCAPES_LABELS, LAYOUTS, META_FILE,
                      SPLITS, cityscapes_label_order, cityscapes_stem,
                      demo_data_paths, demo_scenes, generate_demo_data,
                      image_stem, split_rng)
from .scene import (DEMO_CLASSES, DEMO_PALETTE, Scene, SceneObject,
                    background_horizon, object_polygon, polygon_area,
                    render_background, render_scene, sample_scene,
                    scene_annotations, size_range)

__all__ = [
    'DEMO_CLASSES', 'DEMO_PALETTE', 'Scene', 'SceneObject',
    'background_horizon', 'object_polygon', 'polygon_area',
    'render_background', 'render_scene', 'sample_scene', 'scene_annotations',
    'size_range', 'CITYSCAPES_CITIES', 'CITYSCAPES_LABELS', 'LAYOUTS',
    'META_FILE', 'SPLITS', 'cityscapes_label_order', 'cityscapes_stem',
    'demo_data_paths', 'demo_scenes', 'generate_demo_data', 'image_stem',
    'split_rng'
]
