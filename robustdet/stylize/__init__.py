# Copyright (c) robustdet contributors. All rights reserved.
"""AdaIN stylization of detection datasets (``tools/stylize_dataset.py``).

Not imported by ``import robustdet``: the training configs only need
:class:`~robustdet.datasets.StylizedDataset`.
"""
from .adain import (AdaIN, adaptive_instance_norm, build_decoder,
                    build_encoder, calc_mean_std, load_adain, save_weights,
                    weight_paths)
from .demo_weights import make_demo_adain
from .job import StylizeJob, Stylizer, assign_style, list_styles, run_stylize
from .layouts import CityscapesLayout, CocoLayout, VocLayout

__all__ = [
    'AdaIN', 'CityscapesLayout', 'CocoLayout', 'StylizeJob', 'Stylizer',
    'VocLayout', 'adaptive_instance_norm', 'assign_style', 'build_decoder',
    'build_encoder', 'calc_mean_std', 'list_styles', 'load_adain',
    'make_demo_adain', 'run_stylize', 'save_weights', 'weight_paths'
]
