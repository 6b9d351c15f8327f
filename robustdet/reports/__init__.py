# Copyright (c) robustdet contributors. All rights reserved.
from ..evaluation.functional.run_results import (compact_cells, main_metrics,
                                                 metric_keys, run_name)
from ..visualization.report_plots import plot_metric
from .robustness import (compare_markdown, csv_report, markdown_report,
                         report_names, summary_csv, summary_text,
                         write_region_report, write_reports)

__all__ = [
    'compact_cells', 'compare_markdown', 'csv_report', 'main_metrics',
    'markdown_report', 'metric_keys', 'plot_metric', 'report_names',
    'run_name',
    'summary_csv', 'summary_text', 'write_region_report', 'write_reports'
]
