# Copyright (c) robustdet contributors. All rights reserved.
"""Check, before anything imports them, that the installed OpenMMLab
packages are versions robustdet works with.

mmdet itself asserts on the mmcv version with a bare ``AssertionError``
deep inside its import; robustdet checks first and says exactly what to
install.
"""
import importlib.metadata
import importlib.util
from typing import Callable, Dict, Optional, Tuple

from packaging.version import Version

# name -> (minimum inclusive, maximum exclusive). Verified stack: see
# docs/development.md. mmdet 3.3 asserts mmcv < 2.2.0.
REQUIRED_VERSIONS: Dict[str, Tuple[str, str]] = {
    'mmengine': ('0.10.0', '1.0.0'),
    'mmcv': ('2.0.0', '2.2.0'),
    'mmdet': ('3.3.0', '3.4.0'),
}
VERIFIED_VERSIONS = {
    'mmengine': '0.10.7',
    'mmcv': '2.1.0',
    'mmdet': '3.3.0',
}
MMCV_INSTALL_HINT = ('MMCV_WITH_OPS=1 pip install --no-build-isolation '
                     '"mmcv==2.1.0" (after pip install "setuptools<70" '
                     'wheel ninja psutil), or run tools/install.sh')


def _installed_version(name: str) -> Optional[str]:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _has_mmcv_ops() -> bool:
    return importlib.util.find_spec('mmcv._ext') is not None


def check_versions(
        get_version: Callable[[str], Optional[str]] = _installed_version,
        has_mmcv_ops: Callable[[], bool] = _has_mmcv_ops) -> None:
    """Raise ``ImportError`` with an install instruction if the stack is
    incompatible.

    Args:
        get_version (Callable): Returns the installed version of a
            distribution name, or None when it is not installed.
        has_mmcv_ops (Callable): Returns whether mmcv's compiled ops
            (``mmcv._ext``) are importable.

    Raises:
        ImportError: One line naming the package, the installed version
            and the versions to install.
    """
    for name, (low, high) in REQUIRED_VERSIONS.items():
        wanted = f'{name}>={low},<{high}'
        installed = get_version(name)
        if installed is None and name == 'mmcv' and get_version(
                'mmcv-lite') is not None:
            raise ImportError(
                'robustdet needs mmcv with compiled ops, but mmcv-lite is '
                f'installed; uninstall it and install {wanted}: '
                f'{MMCV_INSTALL_HINT}')
        if installed is None:
            raise ImportError(
                f'robustdet needs {wanted} (verified: '
                f'{name}=={VERIFIED_VERSIONS[name]}), but {name} is not '
                'installed; run tools/install.sh or pip install -r '
                'requirements.txt')
        if not Version(low) <= Version(installed) < Version(high):
            hint = (MMCV_INSTALL_HINT if name == 'mmcv' else
                    f'pip install "{name}=={VERIFIED_VERSIONS[name]}"')
            raise ImportError(
                f'robustdet needs {wanted} but {name}=={installed} is '
                f'installed; install a compatible version: {hint}')
    if not has_mmcv_ops():
        raise ImportError(
            f'robustdet needs mmcv with compiled ops, but mmcv=='
            f'{get_version("mmcv")} has no mmcv._ext (built without '
            f'MMCV_WITH_OPS=1?); reinstall it: {MMCV_INSTALL_HINT}')
