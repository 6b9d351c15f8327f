# Copyright (c) robustdet contributors. All rights reserved.
import imagecorruptions
import pytest

from robustdet.corruptions import (BENCHMARK_CORRUPTIONS, CORRUPTION_NAMES,
                                   CORRUPTIONS, FAMILIES, GROUPS,
                                   HOLDOUT_CORRUPTIONS, IMAGENET_C_CORRUPTIONS,
                                   NEEDS_DEPTH, SELECTIONS, check_severity,
                                   family_corruptions, get_corruption,
                                   resolve_corruptions)
from robustdet.utils import RobustDetError


def test_counts_and_order():
    assert len(CORRUPTIONS) == 19 + 10 + 6
    assert BENCHMARK_CORRUPTIONS == CORRUPTION_NAMES[:15]
    assert HOLDOUT_CORRUPTIONS == ('speckle_noise', 'gaussian_blur',
                                   'spatter', 'saturate')
    # The benchmark order is the reference library's.
    assert IMAGENET_C_CORRUPTIONS == CORRUPTION_NAMES[:19]
    assert list(IMAGENET_C_CORRUPTIONS) == \
        imagecorruptions.get_corruption_names('all')
    assert list(BENCHMARK_CORRUPTIONS) == \
        imagecorruptions.get_corruption_names('common')


@pytest.mark.parametrize('group', ['noise', 'blur', 'weather', 'digital'])
def test_groups_match_reference(group):
    assert list(SELECTIONS[group]) == imagecorruptions.get_corruption_names(
        group)


def test_groups_partition_the_table():
    assert GROUPS == ('noise', 'blur', 'weather', 'digital', 'holdout',
                      'cbar', '3dcc')
    names = [n for g in GROUPS for n in SELECTIONS[g]]
    assert sorted(names) == sorted(CORRUPTION_NAMES)
    assert [len(SELECTIONS[g]) for g in GROUPS] == [3, 4, 4, 4, 4, 10, 6]


def test_families_partition_the_table():
    assert FAMILIES == ('benchmark', 'holdout', 'cbar', '3dcc')
    assert family_corruptions('benchmark') == BENCHMARK_CORRUPTIONS
    assert family_corruptions('holdout') == HOLDOUT_CORRUPTIONS
    names = [n for f in FAMILIES for n in family_corruptions(f)]
    assert names == list(CORRUPTION_NAMES)
    # Only the 15 count towards mPC.
    assert [c.name for c in CORRUPTIONS if c.benchmark] == list(
        BENCHMARK_CORRUPTIONS)


def test_newer_family_selections():
    # The source's names, the csv's order.
    assert resolve_corruptions(['cbar']) == [
        'caustic_refraction', 'inverse_sparkles', 'sparkles',
        'perlin_noise', 'blue_noise_sample', 'plasma_noise',
        'checkerboard_cutout', 'cocentric_sine_waves',
        'single_frequency_greyscale', 'brownish_noise'
    ]
    assert resolve_corruptions(['3dcc']) == [
        'low_light', 'iso_noise', 'color_quant', 'fog_3d', 'near_focus',
        'far_focus'
    ]
    assert resolve_corruptions(['3dcc_depth_free']) == [
        'low_light', 'iso_noise', 'color_quant'
    ]
    assert NEEDS_DEPTH == ('fog_3d', 'near_focus', 'far_focus')
    # 'all' keeps meaning the 19 of 2019.
    assert resolve_corruptions(['all']) == list(IMAGENET_C_CORRUPTIONS)
    assert resolve_corruptions(['fog', 'cbar', 'all']) == list(
        IMAGENET_C_CORRUPTIONS) + list(SELECTIONS['cbar'])


def test_resolve_selection_words_and_names():
    assert resolve_corruptions(['all']) == list(IMAGENET_C_CORRUPTIONS)
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


def _reference_params():
    """The per-severity lists of imagecorruptions' functions, read from its
    source (the first ``c = [...]`` / ``alpha = [...]`` of each)."""
    import ast
    import inspect

    import numpy as np
    from imagecorruptions import corruptions as ref
    tree = ast.parse(inspect.getsource(ref))
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for stmt in node.body:
            if (isinstance(stmt, ast.Assign)
                    and getattr(stmt.targets[0], 'id', None) in ('c',
                                                                 'alpha')
                    and isinstance(stmt.value, ast.Subscript)):
                found[node.name] = eval(  # the reference's own literals
                    compile(ast.Expression(stmt.value.value), 'ref', 'eval'),
                    {'np': np})
                break
    return found


@pytest.mark.parametrize(
    'corruption', [get_corruption(n) for n in IMAGENET_C_CORRUPTIONS],
    ids=lambda c: c.name)
def test_severity_params_match_reference_source(corruption):
    import numpy as np
    ref = _reference_params()[corruption.name]
    assert len(corruption.params) == len(ref) == 5
    for sev in range(1, 6):
        ours, theirs = corruption.severity_params(sev), ref[sev - 1]
        if corruption.name == 'zoom_blur':
            np.testing.assert_array_equal(np.arange(*ours), theirs)
        else:
            assert np.array_equal(np.asarray(ours), np.asarray(theirs)), sev
