# Copyright (c) robustdet contributors. All rights reserved.
from .gamma import gamma_scores
from .pmk import (PmkData, clopper_pearson, error_vs_offset, frame_predictions,
                  load_labels, load_pmk_data, per_image_ap, pmk_classification,
                  pmk_map)
from .robustness import class_mean_rpc, grid_coverage, robustness_summary
from .video_robustness import video_coverage, video_summary

__all__ = [
    'PmkData', 'class_mean_rpc', 'clopper_pearson', 'error_vs_offset',
    'frame_predictions', 'gamma_scores', 'grid_coverage', 'load_labels',
    'load_pmk_data', 'per_image_ap', 'pmk_classification', 'pmk_map',
    'robustness_summary', 'video_coverage', 'video_summary'
]
