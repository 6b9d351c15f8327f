# Copyright (c) robustdet contributors. All rights reserved.
"""The robustness view model: every decision of the run's Markdown
report and page section, made once (issue 33)."""
import copy
import json
import os.path as osp

import pytest

from robustdet.apis.results import load_results
from robustdet.reports.robustness_view import robustness_view
from tests.report_goldens import ROOT, RUN_A, RUN_B, RUN_VIDEO

METRIC = 'coco/bbox_mAP'


@pytest.fixture(scope='module')
def runs():
    return {name: load_results(osp.join(ROOT, path))
            for name, path in (('a', RUN_A), ('b', RUN_B),
                               ('video', RUN_VIDEO))}


def _texts(table):
    return [[c['text'] for c in r['cells']] for r in table['rows']]


def test_plain_data(runs):
    # JSON-serialisable: the templates get nothing but data.
    for results in runs.values():
        view = robustness_view(results)
        assert json.loads(json.dumps(view)) == view


def test_summary_cells_written_and_coloured_once(runs):
    results = runs['a']
    view = robustness_view(results, index=3)
    table = view['image']['summary']
    assert table['id'] == 'summary-3'
    assert table['columns'][:4] == ['metric', 'P', 'mPC', 'rPC']
    # Only the families the run has: cbar and 3dcc here.
    assert 'mPC_cbar' in table['columns'] and 'rPC_3dcc' in table['columns']
    row = dict(zip(table['columns'], table['rows'][0]['cells']))
    summary = results['summary'][METRIC]
    assert row['P']['text'] == f'{100 * summary["P"]:.1f}'
    # P has no colour; mPC against P; rPC against 1.
    assert row['P']['fraction'] is None
    assert row['mPC']['fraction'] == pytest.approx(
        summary['mPC'] / summary['P'])
    assert row['rPC']['fraction'] == pytest.approx(summary['rPC'])
    assert all(c['num'] for c in table['rows'][0]['cells'][1:])
    assert not row['metric']['num']


def test_severity_grid(runs):
    results = runs['a']
    grid = robustness_view(results)['image']['grids'][0]
    assert grid['metric'] == METRIC
    table = grid['table']
    assert table['columns'] == ['corruption', 'group', '1', '2', '3', '4',
                                '5', 'mean']
    clean = table['rows'][0]
    assert clean['cls'] == 'clean'
    p = results['clean'][METRIC]
    # The clean value spans the five severities, and is its own mean.
    assert [c['span'] for c in clean['cells']] == [1, 1, 5, 1]
    assert clean['cells'][2]['text'] == clean['cells'][3]['text']
    assert clean['cells'][2]['fraction'] == 1.0
    fog = next(r for r in table['rows'] if r['cells'][0]['text'] == 'fog')
    value = results['cells']['fog']['3'][METRIC]
    assert fog['cells'][1]['text'] == 'weather'
    assert fog['cells'][4]['title'] == (
        f'fog/3: {100 * value:.1f} ({100 * value / p:.0f} % of P)')
    assert [r['cells'][0]['text'] for r in table['rows'][1:4]] == [
        'gaussian_noise', 'shot_noise', 'impulse_noise']


def test_corruption_errors_with_counts(runs):
    ce = robustness_view(runs['a'])['ce']
    assert ce['baseline']['name'] == 'reference-run'
    families = ce['metrics'][0]['families']
    assert families['columns'][:3] == ['family', 'mCE', 'relative mCE']
    texts = _texts(families)
    assert texts[0][0] == 'the 15 (mCE)' and texts[0][1].endswith(' (15)')
    assert [t[0] for t in texts] == ['the 15 (mCE)', 'hold-out',
                                     'C-bar (mCE-bar)', '3DCC']
    assert ce['metrics'][0]['corruptions']['columns'] == [
        'corruption', 'CE', 'relative CE']
    assert robustness_view(runs['b'])['ce'] is None


def test_facts(runs):
    view = robustness_view(runs['b'])
    # The reference backend's CPU-dependent cells, in table order.
    assert view['cpu_dependent'] == ['defocus_blur', 'motion_blur', 'snow',
                                     'frost', 'spatter']
    assert view['warning'] is None and view['region'] is None
    assert view['coverage']['incomplete'] is None
    results = copy.deepcopy(runs['b'])
    for sev in ('4', '5'):
        del results['cells']['fog'][sev]
    results['region'] = 'objects'
    from robustdet.apis.results import refresh_summary
    refresh_summary(results)
    view = robustness_view(results)
    assert view['coverage']['incomplete'] == dict(
        done=73, total=75, missing='fog/4-5')
    assert view['region'] == dict(name='objects', where='inside')


def test_video_section(runs):
    view = robustness_view(runs['video'])
    assert view['warning'].startswith('trained with RandomCorrupt on '
                                      'benchmark corruptions (fog)')
    video = view['video']
    assert (video['done'], video['total']) == (10, 95)
    assert video['summary']['columns'][:4] == ['metric', 'P', 'mPC_video',
                                               'rPC_video']
    assert [f['table']['rows'][0]['cells'][0]['text']
            for f in video['families']] == ['codec']
    assert video['grids'][0]['table']['columns'][1] == 'family'
    assert robustness_view(runs['a'])['video'] is None


def test_empty_run():
    results = load_results(osp.join(ROOT, RUN_B))
    results.update(clean=None, cells={}, summary={}, coverage=None)
    view = robustness_view(results)
    assert view['metrics'] == [] and not view['has_image_cells']
    assert view['image']['summary']['rows'] == []
    assert view['coverage'] is None and view['video'] is None


def test_runs_side_by_side_carry_training_warnings(runs):
    from robustdet.reports import compare_markdown
    from robustdet.reports.html import ReportRun, runs_comparison
    from robustdet.reports.robustness_view import runs_view
    named = [('standard', runs['a']), ('robust', runs['video'])]
    view = runs_view(named)
    assert view['video']
    assert [w['name'] for w in view['warnings']] == ['robust']
    table = view['tables'][0]['table']
    assert table['id'] == f'compare-{METRIC}'
    assert table['columns'][0] == 'run' and table['columns'][-2:] == [
        'γa', 'γr']
    assert _texts(table)[0][0] == 'standard'
    # Both formats say it, before the tables.
    md = compare_markdown(named)
    assert md.startswith('- **robust: trained with RandomCorrupt on '
                         'benchmark corruptions (fog)')
    assert '| model | P |' in md
    page = runs_comparison([ReportRun('robustness', n, f'{n}.json', r)
                            for n, r in named])
    assert page.startswith('<ul><li><span class="warn">robust: trained '
                           'with RandomCorrupt')
    assert runs_view(named[:1])['warnings'] == []
