# Copyright (c) robustdet contributors. All rights reserved.
"""robustdet: how far mmdetection detectors can be trusted when images get
worse.

Importing the package registers its transforms, datasets, hooks, metrics
and data preprocessor into mmdet's registries, so
``custom_imports = dict(imports=['robustdet'])`` in a config is all that is
needed.
"""
from .utils.version_gate import check_versions

check_versions()

from . import (corruptions, datasets, engine,  # noqa: E402,F401,E501
               evaluation, models)
from .utils import register_all_modules  # noqa: E402
from .version import __version__, version_info  # noqa: E402

__all__ = ['__version__', 'version_info', 'register_all_modules']
