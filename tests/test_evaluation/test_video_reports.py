# Copyright (c) robustdet contributors. All rights reserved.
"""Reports of results holding clip (video) corruption cells."""
import csv
import io
import json

import pytest

from robustdet.apis.results import new_results, record_cell
from robustdet.reports import (compare_markdown, csv_report, markdown_report,
                               summary_csv, summary_text, write_reports)
from robustdet.reports.robustness_view import (SUMMARY_COLUMNS,
                                               VIDEO_SUMMARY_COLUMNS)

IDENTITY = dict(
    config_sha256='c' * 64,
    checkpoint_sha256='k' * 64,
    seed=0,
    backend='reference',
    channel_order='rgb')
MAP = 'coco/bbox_mAP'


def _results(image=False, video=True):
    """Clean 0.5; codec cells 0.4, 0.3; temporal cells 0.45, 0.35 (so
    γa spatial 0.85, temporal 0.9, all 0.875; γr 0.7, 0.8, 0.75)."""
    results = new_results(IDENTITY, config='configs/demo/faster_demo.py',
                          checkpoint='x.pth')
    record_cell(results, ('clean', 0), {MAP: 0.5, 'coco/bbox_mAP_l': -1.0},
                1.0)
    cells = []
    if video:
        cells += [('h264_crf', 1, 0.4), ('h264_crf', 2, 0.3),
                  ('frame_rate', 1, 0.45), ('frame_rate', 3, 0.35)]
    if image:
        cells += [('fog', 1, 0.25), ('gaussian_noise', 2, 0.15)]
    for name, sev, value in cells:
        record_cell(results, (name, sev), {
            MAP: value,
            'coco/bbox_mAP_l': -1.0
        }, 1.0)
    return json.loads(json.dumps(results))


def test_video_only_markdown():
    md = markdown_report(_results())
    assert '## Video corruptions' in md
    assert '- video cells: 4/95 (2 of 19 clip corruptions)' in md
    # No image summary, no complaint about the image grid.
    assert '## Summary' not in md and 'incomplete grid' not in md
    assert 'benchmark cells' not in md
    assert (f'| {MAP} | 50.0 | 37.5 | 75.0 | 0.850 | 0.900 | 0.875 | '
            '0.700 | 0.800 | 0.750 |') in md
    assert f'### {MAP} per video family' in md
    assert '| codec | spatial | 35.0 | 0.850 | 0.700 |' in md
    assert '| temporal | temporal | 40.0 | 0.900 | 0.800 |' in md
    assert '| camera |' not in md
    assert f'### {MAP} per video corruption and severity' in md
    assert '| h264_crf | codec | 40.0 | 30.0 | – | – | – | 35.0 |' in md
    assert '| frame_rate | temporal | 45.0 | – | 35.0 | – | – | 40.0 |' in md


def test_image_and_video_markdown():
    md = markdown_report(_results(image=True))
    assert '## Summary' in md and 'benchmark cells: 2/75' in md
    assert 'incomplete grid' in md
    assert '| fog | weather | 25.0 |' in md
    image_part, video_part = md.split('## Video corruptions')
    assert 'h264_crf' not in image_part and 'fog' not in video_part
    assert '| h264_crf | codec |' in video_part


def test_image_only_markdown_has_no_video_section():
    results = _results(image=True, video=False)
    md = markdown_report(results)
    assert 'Video' not in md and 'video' not in md
    assert 'γ' not in summary_text(results)


def test_summary_text():
    text = summary_text(_results())
    assert f'{MAP}: P 50.0' in text.splitlines()
    assert (f'{MAP} video: mPC 37.5  rPC 75.0 %  γa 0.875  γr 0.750'
            in text.splitlines())
    assert 'incomplete grid' not in text
    assert 'incomplete video grid: 4 of 95' in text
    both = summary_text(_results(image=True))
    assert f'{MAP}: P 50.0  mPC 20.0  rPC 40.0 %' in both
    assert 'incomplete grid: 2 of 75' in both


def test_csv_report_groups_video_cells_by_family():
    rows = list(csv.reader(io.StringIO(csv_report(_results(image=True)))))
    assert rows[0] == ['metric', 'corruption', 'group', 'severity', 'value']
    mine = [r for r in rows if r[0] == MAP]
    assert [r[1] for r in mine] == [
        'clean', 'gaussian_noise', 'fog', 'h264_crf', 'h264_crf',
        'frame_rate', 'frame_rate'
    ]
    assert mine[3] == [MAP, 'h264_crf', 'codec', '1', '0.4']
    assert mine[-1] == [MAP, 'frame_rate', 'temporal', '3', '0.35']


def test_summary_csv_video_columns():
    rows = list(csv.DictReader(io.StringIO(summary_csv(_results()))))
    row = next(r for r in rows if r['metric'] == MAP)
    assert list(row) == ['metric', *SUMMARY_COLUMNS, *VIDEO_SUMMARY_COLUMNS]
    assert len(set(row)) == len(row)
    assert float(row['P']) == 0.5 and row['mPC'] == ''
    # The CSV holds repr(float), which reads back exactly; the values are
    # means of at most 4 float64 numbers: rounding only, rel=1e-12.
    assert float(row['mPC_video']) == pytest.approx(0.375, rel=1e-12)
    assert float(row['mPC_video_codec']) == pytest.approx(0.35, rel=1e-12)
    assert row['mPC_blur'] == '' and row['mPC_video_blur'] == ''
    assert float(row['gamma_a_spatial']) == pytest.approx(0.85, rel=1e-12)
    assert float(row['gamma_r_temporal']) == pytest.approx(0.8, rel=1e-12)
    assert float(row['gamma_r_all']) == pytest.approx(0.75, rel=1e-12)
    assert row['gamma_a_camera'] == ''
    # Image-only results keep the image columns only.
    header = summary_csv(_results(image=True, video=False)).splitlines()[0]
    assert header == ','.join(['metric', *SUMMARY_COLUMNS])


def test_write_reports_plots(tmp_path):
    video = tmp_path / 'video'
    paths = write_reports(_results(), str(video))
    names = sorted(p.rsplit('/', 1)[1] for p in paths)
    assert names == [
        'robustness.csv', 'robustness.md', 'robustness_summary.csv',
        'robustness_video_coco_bbox_mAP.png'
    ]
    png = (video / 'robustness_video_coco_bbox_mAP.png').read_bytes()
    assert png.startswith(b'\x89PNG')
    both = tmp_path / 'both'
    paths = write_reports(_results(image=True), str(both))
    assert {p.rsplit('/', 1)[1] for p in paths} >= {
        'robustness_coco_bbox_mAP.png', 'robustness_video_coco_bbox_mAP.png'
    }
    image = tmp_path / 'image'
    paths = write_reports(_results(image=True, video=False), str(image))
    assert not any('video' in p.rsplit('/', 1)[1] for p in paths)


def test_older_file_without_video_entries():
    results = _results()
    del results['video_summary'], results['video_coverage']
    assert markdown_report(results) == markdown_report(_results())
    assert summary_csv(results) == summary_csv(_results())


def test_compare_adds_video_columns():
    image = _results(image=True, video=False)
    table = compare_markdown([('a', image), ('b', image)])
    assert 'mPC_video' not in table
    both = compare_markdown([('a', image), ('b', _results(image=True))])
    lines = both.splitlines()
    # The newer families' columns only where a run has their cells.
    image_columns = [c for c in SUMMARY_COLUMNS
                     if not c.endswith(('_cbar', '_3dcc'))]
    assert lines[2] == ('| model | ' + ' | '.join(image_columns) +
                        ' | mPC_video | rPC_video | γa | γr |')
    assert lines[4].endswith('| – | – | – | – |')
    assert lines[5].endswith('| 37.5 | 75.0 | 0.875 | 0.750 |')
    # Video-only runs: only P of the image columns.
    only = compare_markdown([('v', _results())]).splitlines()
    assert only[2] == '| model | P | mPC_video | rPC_video | γa | γr |'
    assert only[4] == '| v | 50.0 | 37.5 | 75.0 | 0.875 | 0.750 |'


def test_main_metrics_of_pmk_results():
    """pm-k results have no '...mAP' key: the headline is pm-k mAP at k = 0
    and at the largest k, not all 44 metrics."""
    from robustdet.evaluation.functional.run_results import main_metrics
    keys = [f'pmk/{m}_k{k}' for m in ('mAP', 'loc_mAP', 'acc')
            for k in range(11)] + ['pmk/delta_k10']
    results = dict(clean={k: 0.5 for k in keys}, cells={})
    assert main_metrics(results) == ['pmk/mAP_k0', 'pmk/mAP_k10']
    results = dict(clean={'coco/bbox_mAP': 0.5, 'coco/bbox_mAP_50': 0.7},
                   cells={})
    assert main_metrics(results) == ['coco/bbox_mAP']
    results = dict(clean={'acc': 0.5}, cells={})
    assert main_metrics(results) == ['acc']
