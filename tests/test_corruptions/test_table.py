# Copyright (c) robustdet contributors. All rights reserved.
import imagecorruptions
import pytest

from robustdet.corruptions import (BENCHMARK_CORRUPTIONS, CORRUPTION_NAMES,
                                   CORRUPTIONS, GROUPS, HOLDOUT_CORRUPTIONS,
                                   SELECTIONS, check_severity, get_corruption,
                                   resolve_corruptions)
from robustdet.utils import RobustDetError


def test_counts_and_order():
    assert len(CORRUPTIONS) == 19
    assert BENCHMARK_CORRUPTIONS == CORRUPTION_NAMES[:15]
    assert HOLDOUT_CORRUPTIONS == ('speckle_noise', 'gaussian_blur',
                                   'spatter', 'saturate')
    # The benchmark order is the reference library's.
    assert list(CORRUPTION_NAMES) == imagecorruptions.get_corruption_names(
        'all')
    assert list(BENCHMARK_CORRUPTIONS) == \
        imagecorruptions.get_corruption_names('common')


@pytest.mark.parametrize('group', ['noise', 'blur', 'weather', 'digital'])
def test_groups_match_reference(group):
    assert list(SELECTIONS[group]) == imagecorruptions.get_corruption_names(
        group)


def test_groups_partition_the_table():
    assert GROUPS == ('noise', 'blur', 'weather', 'digital', 'holdout')
    names = [n for g in GROUPS for n in SELECTIONS[g]]
    assert sorted(names) == sorted(CORRUPTION_NAMES)
    assert [len(SELECTIONS[g]) for g in GROUPS] == [3, 4, 4, 4, 4]


def test_resolve_selection_words_and_names():
    assert resolve_corruptions(['all']) == list(CORRUPTION_NAMES)
    assert resolve_corruptions(['benchmark']) == list(BENCHMARK_CORRUPTIONS)
    # Table order, no duplicates.
    assert resolve_corruptions(['fog', 'noise', 'gaussian_noise']) == [
        'gaussian_noise', 'shot_noise', 'impulse_noise', 'fog'
    ]


def test_unknown_name_lists_valid_ones():
    with pytest.raises(RobustDetError) as info:
        resolve_corruptions(['gausian_noise'])
    msg = str(info.value)
    assert "'gausian_noise'" in msg and 'gaussian_noise' in msg
    assert 'benchmark' in msg
    with pytest.raises(RobustDetError, match='valid: gaussian_noise'):
        get_corruption('nope')


@pytest.mark.parametrize('sev', [-1, 6, 1.5, '3', True])
def test_bad_severity(sev):
    with pytest.raises(RobustDetError, match='out of range'):
        check_severity(sev, allow_clean=True)


def test_clean_severity():
    assert check_severity(0, allow_clean=True) == 0
    with pytest.raises(RobustDetError):
        check_severity(0)
