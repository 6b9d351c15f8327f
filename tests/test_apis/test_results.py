# Copyright (c) robustdet contributors. All rights reserved.
import json

import pytest

from robustdet.apis.results import (FORMAT, check_same_run, load_results,
                                    merge_results, new_results, ordered_cells,
                                    parse_shard, record_cell, refresh_summary)
from robustdet.corruptions import BENCHMARK_CORRUPTIONS
from robustdet.corruptions.grid import grid_cells, shard_cells
from robustdet.utils import RobustDetError

IDENTITY = dict(
    config_sha256='c' * 64,
    checkpoint_sha256='k' * 64,
    seed=0,
    backend='reference',
    channel_order='rgb')


@pytest.mark.parametrize('text,expect', [(None, (1, 1)), ('1/1', (1, 1)),
                                         ('2/4', (2, 4)), ('4/4', (4, 4))])
def test_parse_shard(text, expect):
    assert parse_shard(text) == expect


@pytest.mark.parametrize('text', ['3/2', '0/2', '1/0', '1-2', 'a/b', '2'])
def test_parse_shard_rejects(text):
    with pytest.raises(RobustDetError, match='--shard'):
        parse_shard(text)


def test_shards_partition_the_grid():
    cells = grid_cells(['gaussian_noise', 'fog', 'zoom_blur'],
                       [0, 1, 2, 3, 4, 5])
    assert cells[0] == ('clean', 0) and len(cells) == 16
    for n in (1, 2, 3, 5, 16, 20):
        parts = [shard_cells(cells, i, n) for i in range(1, n + 1)]
        flat = [c for p in parts for c in p]
        assert sorted(flat) == sorted(cells) and len(flat) == len(cells)


def _fake_metrics(name, sev):
    return {'m/mAP': (len(name) % 7) / 10 + sev / 100}


def test_merge_equals_single_run():
    cells = grid_cells(list(BENCHMARK_CORRUPTIONS[:5]), range(6))
    single = new_results(IDENTITY)
    for c in cells:
        record_cell(single, c, _fake_metrics(*c), 1.0)
    parts = []
    for i in (1, 2, 3):
        part = new_results(IDENTITY)
        for c in shard_cells(cells, i, 3):
            record_cell(part, c, _fake_metrics(*c), 1.0)
        parts.append(part)
    merged = merge_results(parts, ['a', 'b', 'c'])
    for key in ('clean', 'cells', 'summary', 'coverage'):
        assert merged[key] == single[key], key
    assert json.dumps(merged['cells']) == json.dumps(single['cells'])


def test_merge_refuses_other_runs():
    a = new_results(IDENTITY)
    b = new_results(dict(IDENTITY, seed=1))
    with pytest.raises(RobustDetError, match='seed'):
        merge_results([a, b], ['a.json', 'b.json'])


def test_check_same_run_names_differences():
    existing = new_results(IDENTITY)
    with pytest.raises(RobustDetError) as info:
        check_same_run(existing, dict(IDENTITY, backend='fast'), 'r.json',
                       'pass --overwrite')
    msg = str(info.value)
    assert "backend: 'reference' there, 'fast' now" in msg
    assert '--overwrite' in msg
    check_same_run(existing, dict(IDENTITY), 'r.json', '')


def test_corruption_device_is_part_of_the_identity():
    """Backend torch's noise pixels depend on the device it corrupts on;
    files without the key (older runs, other backends) mean None."""
    old = new_results(IDENTITY)
    del old['corruption_device']
    check_same_run(old, IDENTITY, 'r.json', '')
    assert new_results(IDENTITY)['corruption_device'] is None
    cpu = new_results(dict(IDENTITY, backend='torch', corruption_device='cpu'))
    with pytest.raises(RobustDetError,
                       match="corruption_device: 'cpu' there, 'cuda' now"):
        check_same_run(cpu, dict(IDENTITY, backend='torch',
                                 corruption_device='cuda'), 'r.json', '')
    merged = merge_results([old, new_results(IDENTITY)], ['a', 'b'])
    assert merged['corruption_device'] is None
    with pytest.raises(RobustDetError, match='corruption_device'):
        merge_results([cpu, dict(cpu, corruption_device='cuda')], ['a', 'b'])


def test_load_results_rejects_other_files(tmp_path):
    bad = tmp_path / 'other.json'
    bad.write_text(json.dumps({'coco/bbox_mAP': 0.5}))
    with pytest.raises(RobustDetError, match='not a robustdet robustness'):
        load_results(str(bad))
    broken = tmp_path / 'broken.json'
    broken.write_text('{"format": "' + FORMAT)
    with pytest.raises(RobustDetError, match='not a readable'):
        load_results(str(broken))
    with pytest.raises(RobustDetError, match='not found'):
        load_results(str(tmp_path / 'nope.json'))


def test_cells_without_detections_count_as_zero():
    """mmdet's CocoMetric returns {} when a cell has no detection at all;
    such a cell must enter mPC as 0, not be left out."""
    clean = {'coco/bbox_mAP': 0.5, 'coco/bbox_mAP_l': -1.0}
    results = new_results(IDENTITY)
    record_cell(results, ('fog', 1), {'coco/bbox_mAP': 0.2,
                                      'coco/bbox_mAP_l': -1.0}, 1.0, 12)
    # Recorded before the clean cell (shards): filled from another cell.
    record_cell(results, ('fog', 2), {}, 1.0, num_predictions=0)
    assert results['cells']['fog']['2'] == {'coco/bbox_mAP': 0.0,
                                            'coco/bbox_mAP_l': -1.0}
    record_cell(results, ('clean', 0), clean, 1.0, 30)
    assert results['empty_cells'] == ['fog/2']
    # (0.2 + 0.0) / 2: exact in float64 (halving 0.2 gives 0.1)
    assert results['summary']['coco/bbox_mAP']['mPC'] == 0.1
    assert results['summary']['coco/bbox_mAP_l']['mPC'] is None
    # Merging keeps the record.
    merged = merge_results([results], ['a'])
    assert merged['empty_cells'] == ['fog/2']
    assert merged['cells'] == results['cells']


def test_empty_cell_waits_for_a_template():
    results = new_results(IDENTITY)
    record_cell(results, ('fog', 3), {}, 1.0, num_predictions=0)
    assert results['cells']['fog']['3'] == {}
    record_cell(results, ('fog', 1), {'m/mAP': 0.4}, 1.0, 5)
    assert results['cells']['fog']['3'] == {'m/mAP': 0.0}


def test_zero_local_predictions_with_metrics_is_not_empty():
    """In a distributed run rank 0 may have no detection while the others
    do; the evaluator's metrics then decide."""
    results = new_results(IDENTITY)
    record_cell(results, ('fog', 1), {'m/mAP': 0.3}, 1.0, num_predictions=0)
    assert results['empty_cells'] == []
    assert results['cells']['fog']['1'] == {'m/mAP': 0.3}


def test_video_cells_are_kept_in_table_order():
    """Clip corruptions share the grid: ordered_cells keeps them after the
    image corruptions, in CLIP_CORRUPTIONS order (it used to drop every
    name outside the image table)."""
    results = new_results(IDENTITY)
    record_cell(results, ('clean', 0), {'m/mAP': 0.5}, 1.0)
    record_cell(results, ('frame_rate', 2), {'m/mAP': 0.3}, 1.0)
    record_cell(results, ('h264_crf', 1), {'m/mAP': 0.4}, 1.0)
    record_cell(results, ('fog', 1), {'m/mAP': 0.2}, 1.0)
    record_cell(results, ('frame_rate', 1), {'m/mAP': 0.4}, 1.0)
    assert list(results['cells']) == ['fog', 'h264_crf', 'frame_rate']
    assert list(results['cells']['frame_rate']) == ['1', '2']
    assert results['summary']['m/mAP']['mPC'] == 0.2  # one value: exact
    assert results['video_coverage']['video'] == [3, 95]
    row = results['video_summary']['m/mAP']
    # Means of at most 3 float64 values: float64 rounding, rel=1e-12.
    assert row['mPC_video'] == pytest.approx(1.1 / 3, rel=1e-12)
    assert row['gamma_a']['temporal'] == pytest.approx(0.85, rel=1e-12)
    assert row['gamma_a']['spatial'] == pytest.approx(0.9, rel=1e-12)
    # Unknown names are kept too, last.
    assert list(ordered_cells({'zz': {}, 'rain': {}, 'fog': {}})) == [
        'fog', 'rain', 'zz'
    ]


def test_merge_keeps_video_cells():
    cells = grid_cells(['fog', 'h264_crf', 'packet_loss', 'reversal'],
                       range(6))
    single = new_results(IDENTITY)
    for c in cells:
        record_cell(single, c, _fake_metrics(*c), 1.0)
    parts = []
    for i in (1, 2):
        part = new_results(IDENTITY)
        for c in shard_cells(cells, i, 2):
            record_cell(part, c, _fake_metrics(*c), 1.0)
        parts.append(part)
    merged = merge_results(parts, ['a', 'b'])
    for key in ('clean', 'cells', 'summary', 'coverage', 'video_summary',
                'video_coverage'):
        assert merged[key] == single[key], key
    assert list(merged['cells']) == ['fog', 'h264_crf', 'packet_loss',
                                     'reversal']
    assert merged['video_coverage']['video'] == [15, 95]
    assert set(merged['seconds']) == {
        'clean', *(f'{n}/{s}' for n, s in cells if s)}


def test_image_only_results_have_no_video_entries():
    results = new_results(IDENTITY)
    record_cell(results, ('fog', 1), {'m/mAP': 0.2}, 1.0)
    assert results['video_coverage'] is None
    assert results['video_summary'] == {}


def test_files_without_video_entries_load_and_refresh(tmp_path):
    """A file written before the video entries existed (and before the
    identity grew) loads, merges and refreshes; the refresh adds them."""
    old = new_results(IDENTITY)
    record_cell(old, ('clean', 0), {'m/mAP': 0.5}, 1.0)
    record_cell(old, ('fog', 1), {'m/mAP': 0.2}, 1.0)
    for key in ('video_coverage', 'video_summary', 'video_clips',
                'ground_truth', 'corruption_device'):
        del old[key]
    path = tmp_path / 'robustness.json'
    path.write_text(json.dumps(old))
    loaded = load_results(str(path))
    summary = loaded['summary']
    refresh_summary(loaded)
    assert loaded['summary'] == summary
    assert loaded['video_coverage'] is None and loaded['video_summary'] == {}
    record_cell(loaded, ('rain', 1), {'m/mAP': 0.4}, 1.0)
    # 1 - (0.5 - 0.4) / 0.5 in float64: rounding only
    assert loaded['video_summary']['m/mAP']['gamma_r']['weather'] == \
        pytest.approx(0.8, rel=1e-12)
    merged = merge_results([load_results(str(path)), loaded], ['a', 'b'])
    assert list(merged['cells']) == ['fog', 'rain']
    assert merged['video_coverage']['video'] == [1, 95]


def test_crf_cells_of_the_former_codec_settings_are_computed_again():
    """Files written before h264_crf / h265_crf became plain encodes (no
    clip_codecs key) lose those cells on resume and merge; new files keep
    them, and other cells are kept."""
    from robustdet.apis.results import CLIP_CODECS, drop_stale_codec_cells
    results = new_results(IDENTITY)
    assert results['clip_codecs'] == CLIP_CODECS == 2
    for cell in [('clean', 0), ('fog', 1), ('h264_crf', 1), ('h265_crf', 5),
                 ('h264_abr', 1)]:
        record_cell(results, cell, {'coco/bbox_mAP': 0.5}, 1.0)
    current = json.loads(json.dumps(results))
    assert drop_stale_codec_cells(current, 'f', '') == []
    assert current == results
    old = json.loads(json.dumps(results))
    del old['clip_codecs']
    assert drop_stale_codec_cells(old, 'f', '') == ['h264_crf/1',
                                                 'h265_crf/5']
    assert set(old['cells']) == {'fog', 'h264_abr'}
    assert set(old['seconds']) == {'clean', 'fog/1', 'h264_abr/1'}
    assert old['clip_codecs'] == 2
    old = json.loads(json.dumps(results))
    del old['clip_codecs']
    merged = merge_results([old, json.loads(json.dumps(results))],
                           ['a', 'b'])
    assert set(merged['cells']) == set(results['cells'])


@pytest.mark.parametrize('module, name, new', [
    ('robustdet.apis.results', 'grid_cells', 'robustdet.corruptions.grid'),
    ('robustdet.apis.results', 'shard_cells', 'robustdet.corruptions.grid'),
    ('robustdet.reports.pmk', 'pmk_report',
     'robustdet.evaluation.functional.pmk_report'),
    ('robustdet.reports.effective_robustness', 'er_report',
     'robustdet.evaluation.functional.effective_robustness'),
    ('robustdet.reports.compare', 'comparison',
     'robustdet.evaluation.functional.comparison'),
])
def test_moved_names_still_answer(module, name, new):
    """Names that moved keep their old module for one release, with a
    DeprecationWarning naming the new one."""
    import importlib
    with pytest.warns(DeprecationWarning, match=new):
        old = getattr(importlib.import_module(module), name)
    assert old is getattr(importlib.import_module(new), name)
