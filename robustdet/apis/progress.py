# Copyright (c) robustdet contributors. All rights reserved.
"""Deprecated: :class:`GridProgressHook` moved to
:mod:`robustdet.engine.hooks`. This path works for one release."""
import warnings

from ..engine.hooks import GridProgressHook

__all__ = ['GridProgressHook']

warnings.warn(
    'robustdet.apis.progress is deprecated; import GridProgressHook from '
    'robustdet.engine', DeprecationWarning, stacklevel=2)
