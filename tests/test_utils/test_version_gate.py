# Copyright (c) robustdet contributors. All rights reserved.
import pytest

from robustdet.utils.version_gate import check_versions

GOOD = {'mmengine': '0.10.7', 'mmcv': '2.1.0', 'mmdet': '3.3.0'}


def _versions(**override):
    table = dict(GOOD, **override)
    return lambda name: table.get(name)


def test_installed_stack_passes():
    check_versions()  # the real installed versions


def test_verified_stack_passes():
    check_versions(_versions(), lambda: True)


@pytest.mark.parametrize('name,version,expect', [
    ('mmcv', '2.2.0', 'mmcv>=2.0.0,<2.2.0 but mmcv==2.2.0'),
    ('mmcv', '1.7.1', 'mmcv==1.7.1'),
    ('mmdet', '2.28.2', 'mmdet>=3.3.0,<3.4.0 but mmdet==2.28.2'),
    ('mmengine', '1.0.0', 'mmengine==1.0.0'),
])
def test_incompatible_version_message(name, version, expect):
    with pytest.raises(ImportError) as info:
        check_versions(_versions(**{name: version}), lambda: True)
    msg = str(info.value)
    assert expect in msg
    assert 'install' in msg and '\n' not in msg


def test_missing_package_message():
    with pytest.raises(ImportError, match='mmdet is not installed'):
        check_versions(_versions(mmdet=None), lambda: True)


def test_mmcv_lite_message():
    table = dict(GOOD, mmcv=None)
    table['mmcv-lite'] = '2.1.0'
    with pytest.raises(ImportError, match='mmcv-lite is installed'):
        check_versions(table.get, lambda: True)


def test_mmcv_without_ops_message():
    with pytest.raises(ImportError, match='MMCV_WITH_OPS=1'):
        check_versions(_versions(), lambda: False)
