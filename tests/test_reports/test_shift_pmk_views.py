# Copyright (c) robustdet contributors. All rights reserved.
"""The shift and pm-k view models: the splits' cells and their colours,
the mean after the reference, runs side by side, pm-k's cells (issue
33)."""
import json

import pytest

from robustdet.reports.shift_view import shift_runs_view, shift_view
from tests.shift_results import coco_o_result, shift_json

METRIC = 'coco/bbox_mAP'


def test_splits_mean_and_colours(tmp_path):
    results = coco_o_result(tmp_path / 'shift.json')
    view = shift_view(results, index=2)
    assert json.loads(json.dumps(view)) == view
    m = view['metrics'][0]
    assert m['metric'] == METRIC and m['id'] == f'shift-summary-2-{METRIC}'
    assert m['splits'][0] == results['reference']
    p = results['summary'][METRIC]['P']
    second = results['summary'][METRIC]['splits'][m['splits'][1]]
    assert m['ap'][1]['text'] == f'{100 * second:.1f}'
    assert m['ap'][1]['fraction'] == pytest.approx(second / p)
    assert m['rpc'][0]['text'] == '100.0'
    assert m['mean']['name'] == f'{results["mean_name"]} mean'
    assert m['mean']['count'] == len(m['splits']) - 1


def test_no_mean_without_a_mean_name(tmp_path):
    results = json.loads(open(shift_json(
        tmp_path / 'shift.json', 0.4, [0.3, 0.2, 0.1],
        benchmark='foggy-cityscapes')).read())
    view = shift_view(results)
    assert view['mean_name'] is None
    assert view['metrics'][0]['mean'] is None


def test_runs_of_one_benchmark_side_by_side(tmp_path):
    a = coco_o_result(tmp_path / 'a.json')
    b = coco_o_result(tmp_path / 'b.json', level=0.5)
    c = json.loads(open(shift_json(
        tmp_path / 'c.json', 0.4, [0.3, 0.2, 0.1],
        benchmark='foggy-cityscapes')).read())
    tables = shift_runs_view([('a', a), ('b', b), ('c', c)])
    # foggy-cityscapes has one run: no table of it.
    assert [(t['benchmark'], t['metric']) for t in tables] == [
        ('coco-o', METRIC)]
    rows = tables[0]['table']['rows']
    assert [r['cells'][0]['text'] for r in rows] == ['a', 'b']
    assert rows[1]['cells'][1]['text'] == '50.0'


def test_pmk_view_cells_and_dash():
    # The pm-k report's cells: four decimals, the dash for an undefined
    # fraction (as every other report), colours against k = 0.
    import os.path as osp

    from robustdet.reports.pmk_view import pmk_runs_view, pmk_view
    from tests.report_goldens import PMK, ROOT
    with open(osp.join(ROOT, PMK)) as f:
        report = json.load(f)
    view = pmk_view(report, index=4)
    assert json.loads(json.dumps(view)) == view
    assert view['id'] == 'pmk-summary-4'
    first, last = view['ks'][0], view['ks'][-1]
    assert first['map']['fraction'] == 1.0
    assert last['map']['text'] == f'{report["map"][last["k"]]:.4f}'
    texts = [c['text'] for r in view['offsets']['rows'] for c in r['cells']]
    assert '–' in texts and '-' not in texts
    table = pmk_runs_view([('a', report), ('b', report)])
    assert [r['cells'][0]['text'] for r in table['rows']] == ['a', 'b']
