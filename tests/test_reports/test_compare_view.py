# Copyright (c) robustdet contributors. All rights reserved.
"""The view model of runs beside the published results (issue 33): the
table's cells, marks and colours decided once, and the runs' training
warnings in compare.md and on the page."""
import json
import os.path as osp

import pytest

from robustdet.apis.results import load_results
from robustdet.evaluation.functional.comparison import comparison
from robustdet.reports.compare import comparison_markdown
from robustdet.reports.compare_view import compare_view
from robustdet.reports.html import ReportRun, published_comparison
from tests.report_goldens import ROOT, RUN_A, RUN_VIDEO


@pytest.fixture(scope='module')
def data():
    runs = [(name, path, load_results(osp.join(ROOT, path)))
            for name, path in (('standard', RUN_A), ('robust', RUN_VIDEO))]
    return comparison(runs), runs


def test_rows_and_marks(data):
    data, _ = data
    view = compare_view(data)
    assert json.loads(json.dumps(view)) == view
    assert view['columns'] == ['model', 'P', 'mPC', 'rPC', 'ΔP', 'ΔmPC',
                               'ΔrPC', 'source']
    run = view['rows'][0]
    assert run['run'] and run['label'] == 'standard'
    assert run['source'] == RUN_A
    p, mpc, rpc = run['cells'][:3]
    row = data['rows'][0]
    assert p['text'] == f'{row["P"]:.1f}' and p['fraction'] is None
    assert mpc['fraction'] == pytest.approx(row['mPC'] / row['P'])
    assert rpc['fraction'] == pytest.approx(row['rPC'] / 100)
    # The robust run has 2 corruptions only: an incomplete grid.
    assert view['rows'][1]['incomplete']
    assert view['incomplete'][0]['label'] == 'robust'
    assert [r['baseline'] for r in view['rows']].count(True) == 1
    # Published rows with notes get daggers, in order.
    daggers = [r['dagger'] for r in view['rows'] if r['dagger']]
    assert daggers == ['†' * (i + 1) for i in range(len(daggers))]
    assert view['citations'] and view['ce'] is None


def test_training_warnings_in_both_formats(data):
    data, runs = data
    assert 'warning' not in data['rows'][0]
    assert data['rows'][1]['warning'].startswith('trained with '
                                                 'RandomCorrupt')
    assert compare_view(data)['warnings'] == [
        dict(name='robust', warning=data['rows'][1]['warning'])]
    md = comparison_markdown(data)
    assert (f'- **robust: {data["rows"][1]["warning"]}**\n\n| model |'
            in md)
    page = published_comparison(
        [ReportRun('robustness', n, p, r) for n, p, r in runs])
    assert ('<li><span class="warn">robust: trained with RandomCorrupt'
            in page)
