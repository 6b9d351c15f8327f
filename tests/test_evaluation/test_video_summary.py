# Copyright (c) robustdet contributors. All rights reserved.
import pytest

from robustdet.evaluation import (robustness_summary, video_coverage,
                                  video_summary)
from robustdet.video import (CLIP_CORRUPTIONS, FAMILIES, SEVERITIES,
                             SPATIAL_FAMILIES, TEMPORAL_FAMILIES)


def _cells():
    """Clean 0.5; codec 0.4, 0.3; transmission 0.2 and an undefined cell;
    temporal 0.45, 0.35; an image cell that must not count."""
    return {
        'fog': {'1': {'m': 0.0}},
        'h264_crf': {'1': {'m': 0.4}, '2': {'m': 0.3}},
        'packet_loss': {'1': {'m': 0.2}, '3': {'m': -1.0}},
        'frame_rate': {'1': {'m': 0.45}, '5': {'m': 0.35}},
    }


def test_hand_computed_row():
    row = video_summary({'m': 0.5}, _cells())['m']
    assert row['P'] == 0.5
    # All values here are means of a few float64 numbers and their ratios
    # to P: float64 rounding, a few ulps, so rel=1e-12.
    assert row['mPC_video'] == pytest.approx(1.7 / 5, rel=1e-12)
    assert row['rPC_video'] == pytest.approx(0.68, rel=1e-12)
    assert row['mPC_codec'] == pytest.approx(0.35, rel=1e-12)
    assert row['mPC_transmission'] == pytest.approx(0.2, rel=1e-12)
    assert row['mPC_temporal'] == pytest.approx(0.4, rel=1e-12)
    for family in ('blur', 'weather', 'camera'):
        assert row[f'mPC_{family}'] is None
    expect_a = dict(codec=0.85, transmission=0.7, temporal=0.9, spatial=0.8,
                    all=0.84)
    expect_r = dict(codec=0.7, transmission=0.4, temporal=0.8, spatial=0.6,
                    all=0.68)
    assert set(row['gamma_a']) == set(FAMILIES) | {'spatial', 'temporal',
                                                   'all'}
    for key, value in expect_a.items():
        assert row['gamma_a'][key] == pytest.approx(value, rel=1e-12), key
    for key, value in expect_r.items():
        assert row['gamma_r'][key] == pytest.approx(value, rel=1e-12), key
    assert row['gamma_a']['camera'] is None
    assert row['gamma_r']['blur'] is None
    # γr averaged over all cells is rPC (a mean of P_c,s / P).
    assert row['gamma_r']['all'] == pytest.approx(row['rPC_video'],
                                                  rel=1e-12)


def test_spatial_and_temporal_split_every_family():
    assert set(SPATIAL_FAMILIES) | set(TEMPORAL_FAMILIES) == set(FAMILIES)
    assert not set(SPATIAL_FAMILIES) & set(TEMPORAL_FAMILIES)
    # One cell per corruption: value 0.1 for spatial, 0.3 for temporal.
    cells = {
        c.name: {'1': {'m': 0.3 if c.family in TEMPORAL_FAMILIES else 0.1}}
        for c in CLIP_CORRUPTIONS
    }
    row = video_summary({'m': 0.5}, cells)['m']
    # Means of at most 19 float64 values: rounding < 1e-14 relative.
    assert row['gamma_a']['spatial'] == pytest.approx(0.6, rel=1e-12)
    assert row['gamma_a']['temporal'] == pytest.approx(0.8, rel=1e-12)
    assert row['gamma_r']['spatial'] == pytest.approx(0.2, rel=1e-12)
    n_temporal = sum(c.family in TEMPORAL_FAMILIES for c in CLIP_CORRUPTIONS)
    n = len(CLIP_CORRUPTIONS)
    mpc = (0.3 * n_temporal + 0.1 * (n - n_temporal)) / n
    assert row['mPC_video'] == pytest.approx(mpc, rel=1e-12)
    assert row['gamma_a']['all'] == pytest.approx(1 - (0.5 - mpc), rel=1e-12)


def test_undefined_and_missing_cells_are_left_out():
    cells = {
        'rain': {'1': {'m': -1.0}, '2': {'m': 0.2}, '6': {'m': 0.9}},
        'static_rotation': {'1': {'m': -1.0}},
    }
    row = video_summary({'m': 0.4}, cells)['m']
    # One defined cell: its mean is the value itself, exactly; γ is float64
    # rounding of a subtraction and a division (rel=1e-12).
    assert row['mPC_video'] == 0.2
    assert row['mPC_weather'] == 0.2
    assert row['mPC_camera'] is None
    assert row['gamma_a']['camera'] is None
    assert row['gamma_a']['spatial'] == pytest.approx(0.8, rel=1e-12)
    assert row['gamma_r']['all'] == pytest.approx(0.5, rel=1e-12)
    assert row['gamma_a']['temporal'] is None


def test_zero_or_undefined_clean():
    cells = {'h264_crf': {'1': {'m': 0.0}}}
    row = video_summary({'m': 0.0}, cells)['m']
    assert row['mPC_video'] == 0.0 and row['rPC_video'] is None
    assert row['gamma_a']['all'] == 1.0  # 1 - (0 - 0), exact in floats
    assert all(v is None for v in row['gamma_r'].values())
    row = video_summary({'m': -1.0}, cells)['m']
    assert row['P'] is None and row['rPC_video'] is None
    assert row['gamma_a']['all'] is None
    row = video_summary({}, cells)['m']
    assert row['P'] is None and row['mPC_video'] == 0.0


def test_no_video_cells():
    assert video_summary({'m': 0.5}, {}) == {}
    assert video_summary({'m': 0.5}, {'fog': {'1': {'m': 0.2}}}) == {}
    assert video_summary({'m': 0.5}, {'rain': {}}) == {}


def test_video_cells_do_not_enter_the_image_summary():
    row = robustness_summary({'m': 0.5}, _cells())['m']
    assert row['mPC'] == 0.0 and row['mPC_holdout'] is None


def test_video_coverage():
    expected = len(CLIP_CORRUPTIONS) * len(SEVERITIES)
    assert expected == 95
    cov = video_coverage(_cells())
    assert cov['video'] == [6, expected] and not cov['complete']
    assert len(cov['missing']) == expected - 6
    first = CLIP_CORRUPTIONS[0].name
    assert cov['missing'][0] == f'{first}/3'
    assert 'packet_loss/3' not in cov['missing']
    assert 'fog/1' not in cov['missing']
    full = {
        c.name: {str(s): {'m': 0.1} for s in SEVERITIES}
        for c in CLIP_CORRUPTIONS
    }
    assert video_coverage(full) == dict(video=[95, 95], complete=True,
                                        missing=[])
    assert video_coverage({})['video'] == [0, 95]
