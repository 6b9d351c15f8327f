# Copyright (c) robustdet contributors. All rights reserved.
"""γa / γr arithmetic (Schiappa et al. 2023) on hand-computed grids."""
import pytest

from robustdet.evaluation.functional.gamma import gamma_scores

FAMILIES = {'h264_crf': 'codec', 'freezing': 'temporal'}


def test_hand_computed_values():
    clean = {'m': 0.5}
    cells = {
        'h264_crf': {'1': {'m': 0.4}, '2': {'m': 0.3}},
        'freezing': {'1': {'m': 0.5}, '2': {'m': 0.55}},
        'unlisted': {'1': {'m': 0.0}},
    }
    out = gamma_scores(clean, cells, FAMILIES, 'm')
    # Means of at most 4 float64 terms: the bound is float64 rounding, a
    # few ulps, hence rel=1e-12.
    # codec: 1 - 0.1 = 0.9 and 1 - 0.2 = 0.8 -> γa 0.85; γr 1 - 0.1/0.5
    # = 0.8 and 0.6 -> 0.7.
    assert out['gamma_a']['codec'] == pytest.approx(0.85, rel=1e-12)
    assert out['gamma_r']['codec'] == pytest.approx(0.7, rel=1e-12)
    # temporal: no loss and a gain -> above 1 on average.
    assert out['gamma_a']['temporal'] == pytest.approx(1.025, rel=1e-12)
    assert out['gamma_r']['temporal'] == pytest.approx(1.05, rel=1e-12)
    assert out['gamma_a']['all'] == pytest.approx(
        (0.9 + 0.8 + 1 + 1.05) / 4, rel=1e-12)
    assert out['gamma_r']['all'] == pytest.approx(
        (0.8 + 0.6 + 1 + 1.1) / 4, rel=1e-12)
    assert 'unlisted' not in out['gamma_a']


def test_undefined_values_are_left_out():
    cells = {'h264_crf': {'1': {'m': -1.0}, '2': {'m': 0.2}},
             'freezing': {'1': {}}}
    out = gamma_scores({'m': 0.4}, cells, FAMILIES, 'm')
    # 1 - (0.4 - 0.2) and 1 - (0 - 0.2): float64 rounding, rel=1e-12.
    assert out['gamma_a']['codec'] == pytest.approx(0.8, rel=1e-12)
    assert 'temporal' not in out['gamma_a']
    none = gamma_scores({'m': -1.0}, cells, FAMILIES, 'm')
    assert none['gamma_a']['codec'] is None
    zero = gamma_scores({'m': 0.0}, cells, FAMILIES, 'm')
    assert zero['gamma_a']['codec'] == pytest.approx(1.2, rel=1e-12)
    assert zero['gamma_r']['codec'] is None
