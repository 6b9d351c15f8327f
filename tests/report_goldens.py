# Copyright (c) robustdet contributors. All rights reserved.
"""Golden files of every report robustdet writes (issue 33).

``tests/data/reports/inputs/`` holds results files made once by
:func:`make_inputs` (a robustness run with the 19, C-bar and 3DCC cells,
its mCE against a second, reference-backend run, a run with clip cells
and a training mark, three regions, one of them incomplete, a COCO-O
shift run, a pm-k report and an imported published pickle).
:func:`render` writes every text report of them, as the tools do, into a
folder;
``tests/data/reports/golden/`` is that folder as made before the reports
became a view model and templates, and
``tests/test_reports/test_golden.py`` holds each output to it byte for
byte. Plots (PNG) are left out, and the HTML page's embedded images are
replaced by their MIME type: their bytes follow matplotlib's version.

Regenerate, only where a change of a report is the point (say so in the
commit)::

    python -m tests.report_goldens            # golden/ from inputs/
    python -m tests.report_goldens --inputs   # inputs/ too (new data)
"""
import argparse
import json
import os
import os.path as osp
import pathlib
import re
import shutil

import numpy as np

from robustdet.apis import results as results_api
from robustdet.apis.ce_baseline import load_ce_baseline
from robustdet.apis.import_results import import_results
from robustdet.apis.report_inputs import load_run
from robustdet.baselines import get_baseline
from robustdet.corruptions import CORRUPTIONS, SEVERITIES
from robustdet.evaluation.functional.comparison import comparison
from robustdet.evaluation.functional.effective_robustness import er_report
from robustdet.evaluation.functional.pmk import load_pmk_data
from robustdet.evaluation.functional.pmk_report import pmk_report
from robustdet.reports import (compare, summary_text, write_region_report,
                               write_reports)
from robustdet.reports.effective_robustness import write_er_report
from robustdet.reports.html import html_report
from robustdet.reports.pmk import write_pmk_reports
from robustdet.reports.shift import write_shift_reports

ROOT = osp.join(osp.dirname(osp.abspath(__file__)), 'data', 'reports')
INPUTS = 'inputs'
GOLDEN = osp.join(ROOT, 'golden')
METRICS = ('coco/bbox_mAP', 'coco/bbox_mAP_50', 'coco/bbox_mAP_l')
FRCNN = 'michaelis2019/coco/faster-rcnn_r50_fpn/standard/bbox'
IDENTITY = dict(config_sha256='c0' * 32, checkpoint_sha256='e1' * 32,
                seed=7, channel_order='rgb')
# Every path in a report is relative to ROOT: render() runs there.
RUN_A = f'{INPUTS}/standard/robustness.json'
RUN_B = f'{INPUTS}/reference-run/robustness.json'
RUN_VIDEO = f'{INPUTS}/video/robustness.json'
REGIONS = ('all', 'objects', 'background')
SHIFT = f'{INPUTS}/shift/shift.json'
SHIFT_B = f'{INPUTS}/shift-b/shift.json'
SHIFT_C = f'{INPUTS}/shift-c/shift.json'
PMK = f'{INPUTS}/pmk/pmk.json'
IMPORTED = f'{INPUTS}/imported/robustness.json'


def _metrics(rng, level):
    """Three metrics around ``level``, rounded as COCO prints them;
    mAP_l undefined (-1) now and then."""
    m = round(float(np.clip(level + rng.normal(0, 0.01), 0, 1)), 3)
    return {
        METRICS[0]: m,
        METRICS[1]: round(min(1.0, m * 1.6), 3),
        METRICS[2]: -1.0 if rng.random() < 0.1 else round(m * 1.2, 3),
    }


def _robustness(path, rng, clean, backend, names, skip=(), region='all',
                **extra):
    """A results file with ``names``' cells falling with the severity."""
    r = results_api.new_results(
        dict(IDENTITY, backend=backend, region=region),
        config='configs/demo/frcnn.py',
        checkpoint='work_dirs/demo/epoch_3.pth', shard='1/1', **extra)
    results_api.record_cell(r, ('clean', 0), _metrics(rng, clean), 60.0)
    for i, name in enumerate(names):
        for sev in SEVERITIES:
            if (name, sev) in skip:
                continue
            level = clean * (1 - 0.09 * sev - 0.01 * (i % 7))
            results_api.record_cell(r, (name, sev), _metrics(rng, level),
                                    12.0 + i)
    results_api.refresh_summary(r)
    os.makedirs(osp.dirname(path), exist_ok=True)
    results_api.save_results(r, path)
    return r


def _group(group):
    return [c.name for c in CORRUPTIONS if c.group == group]


def make_inputs():
    """Write the results files of ``inputs/`` (run in ROOT)."""
    from tests.result_pickles import published_like
    from tests.shift_results import coco_o_result
    from tests.test_evaluation.test_pmk import random_dataset
    rng = np.random.default_rng(33)
    shutil.rmtree(INPUTS, ignore_errors=True)
    image19 = [c.name for c in CORRUPTIONS if c.group in (
        'noise', 'blur', 'weather', 'digital', 'holdout')]
    names = image19 + _group('cbar') + ['low_light', 'color_quant']
    _robustness(RUN_B, rng, 0.36, 'reference', names)
    _robustness(RUN_A, rng, 0.41, 'fast', names,
                ce_baseline=load_ce_baseline(RUN_B))
    video = _robustness(RUN_VIDEO, rng, 0.33, 'fast',
                        ['fog', 'gaussian_noise', 'h264_crf', 'frame_rate'])
    video['training_corruptions'] = dict(
        transform='RandomCorrupt', corruptions=['fog', 'h264_crf'],
        benchmark=['fog'])
    results_api.save_results(video, RUN_VIDEO)
    for region in REGIONS:
        # One region's grid is incomplete.
        skip = {('fog', 5), ('sparkles', 2)} if region == 'objects' else ()
        _robustness(f'{INPUTS}/region-{region}/robustness.json', rng, 0.41,
                    'fast', ['fog', 'motion_blur', 'sparkles'], skip=skip,
                    region=region)
    coco_o_result(pathlib.Path(SHIFT), step=0.031)
    coco_o_result(pathlib.Path(SHIFT_B), level=0.47, step=0.022)
    coco_o_result(pathlib.Path(SHIFT_C), level=0.45, step=0.012)
    os.makedirs(osp.dirname(PMK))
    files = []
    for name, obj in zip(('sets', 'gt', 'preds'), random_dataset(0)):
        files.append(f'{INPUTS}/pmk/{name}.json')
        with open(files[-1], 'w') as f:
            json.dump(obj, f)
    report = pmk_report(load_pmk_data(*files), range(4),
                        sources=dict(sets=files[0]))
    with open(PMK, 'w') as f:
        json.dump(report, f)
    os.makedirs(f'{INPUTS}/published')
    pickle = published_like(pathlib.Path(f'{INPUTS}/published'),
                            get_baseline(FRCNN))
    import_results([pickle], 'coco', osp.dirname(IMPORTED),
                   name='paper-frcnn')
    # import_results records the pickle's absolute path: made relative.
    with open(IMPORTED) as f:
        text = f.read().replace(ROOT + os.sep, '')
    with open(IMPORTED, 'w') as f:
        f.write(text)
    # Only the results files: the imported run's own reports are
    # outputs, not inputs.
    for dirpath, _, files in os.walk(INPUTS):
        for name in files:
            if not name.endswith('.json'):
                os.remove(osp.join(dirpath, name))


_DATA_URI = re.compile(r'data:(image/[a-z]+);base64,[A-Za-z0-9+/=]+')


def render(out_dir):
    """Write every text report of ``inputs/`` into ``out_dir`` (run in
    ROOT), as the tools write them; plots are removed.

    Args:
        out_dir (str): An empty folder.
    """
    load = results_api.load_results
    for name, path in (('standard', RUN_A), ('reference-run', RUN_B),
                       ('video', RUN_VIDEO), ('imported', IMPORTED)):
        results = load(path)
        write_reports(results, osp.join(out_dir, name))
        with open(osp.join(out_dir, name, 'summary.txt'), 'w',
                  encoding='utf-8') as f:
            f.write(summary_text(results) + '\n')
    regions = [(region, load(f'{INPUTS}/region-{region}/robustness.json'))
               for region in REGIONS]
    write_region_report(regions, out_dir)
    runs = [(name, path, load(path)) for name, path in (
        ('standard', RUN_A), ('reference-run', RUN_B),
        ('paper-frcnn', IMPORTED))]
    data = comparison(runs, ce_baseline=load_ce_baseline(RUN_B))
    compare.write_comparison(data, osp.join(out_dir, 'compare'))
    with open(SHIFT) as f:
        write_shift_reports(json.load(f), osp.join(out_dir, 'shift'))
    runs = []
    for name, path in (('a', SHIFT), ('b', SHIFT_B), ('c', SHIFT_C)):
        with open(path) as f:
            runs.append((name, path, json.load(f)))
    # The line over a and b; c is measured against it.
    er = er_report(runs, fit=['a', 'b'])
    write_er_report(er, osp.join(out_dir, 'effective_robustness'))
    with open(PMK) as f:
        write_pmk_reports(json.load(f), osp.join(out_dir, 'pmk'))
    page = html_report([
        load_run(RUN_A), load_run(RUN_B, name='published'),
        load_run(SHIFT), load_run(PMK), load_run(IMPORTED)
    ])
    with open(osp.join(out_dir, 'robustness.html'), 'w',
              encoding='utf-8') as f:
        f.write(_DATA_URI.sub(r'data:\1;base64,IMAGE', page))
    for dirpath, _, files in os.walk(out_dir):
        for name in files:
            if name.endswith('.png'):
                os.remove(osp.join(dirpath, name))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--inputs', action='store_true',
                        help='also write inputs/ anew')
    args = parser.parse_args()
    os.makedirs(ROOT, exist_ok=True)
    os.chdir(ROOT)
    if args.inputs:
        make_inputs()
    shutil.rmtree(GOLDEN, ignore_errors=True)
    os.makedirs(GOLDEN)
    render(GOLDEN)


if __name__ == '__main__':
    main()
