# Copyright (c) robustdet contributors. All rights reserved.
from .robustness import (compact_cells, compare_markdown, csv_report,
                         main_metrics, markdown_report, metric_keys,
                         plot_metric, report_names, run_name, summary_csv,
                         summary_text, write_region_report, write_reports)

__all__ = [
    'compact_cells', 'compare_markdown', 'csv_report', 'main_metrics',
    'markdown_report', 'metric_keys', 'plot_metric', 'report_names',
    'run_name',
    'summary_csv', 'summary_text', 'write_region_report', 'write_reports'
]
