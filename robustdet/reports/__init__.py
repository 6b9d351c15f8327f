# Copyright (c) robustdet contributors. All rights reserved.
from .robustness import (compare_markdown, csv_report, markdown_report,
                         plot_metric, report_names, summary_csv, summary_text,
                         write_region_report, write_reports)
from .runs import compact_cells, main_metrics, metric_keys, run_name

__all__ = [
    'compact_cells', 'compare_markdown', 'csv_report', 'main_metrics',
    'markdown_report', 'metric_keys', 'plot_metric', 'report_names',
    'run_name',
    'summary_csv', 'summary_text', 'write_region_report', 'write_reports'
]
