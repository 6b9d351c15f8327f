# Copyright (c) robustdet contributors. All rights reserved.
"""A config whose formatted text is made once per content.

mmengine's ``Runner`` asks for ``cfg.pretty_text`` four times while it
starts (the config it dumps into the work dir, the visualizer's copy, the
environment log and the runtime-info hook), and each time yapf formats the
whole config anew: 0.7 s each for the demo config on a 2-core AMD EPYC,
about a third of a short run's time after the imports. The formatted text
depends only on the unformatted one, so :class:`FormattedOnceConfig` keeps
it per unformatted text: the same bytes as mmengine's, made once.
"""
import collections
import copy
from typing import Any

from mmengine.config import Config

# Unformatted text -> mmengine's formatted text, the latest few.
_FORMATTED: 'collections.OrderedDict[str, str]' = collections.OrderedDict()
_KEEP = 8


class FormattedOnceConfig(Config):
    """An mmengine ``Config`` whose :attr:`pretty_text` is formatted by
    yapf once for each content (mmengine's own text, byte for byte).

    Deep copies (as ``Runner`` makes) keep the class. A change of the
    config changes its unformatted text, so it is formatted anew.
    """

    @property
    def pretty_text(self) -> str:
        formats = self._format_python_code
        # mmengine sets its private attributes this way (``__setattr__``
        # writes config keys).
        object.__setattr__(self, '_format_python_code', False)
        try:
            raw = Config.pretty_text.fget(self)
        finally:
            object.__setattr__(self, '_format_python_code', formats)
        if not formats:
            return raw
        text = _FORMATTED.get(raw)
        if text is None:
            text = Config.pretty_text.fget(self)
            _FORMATTED[raw] = text
            while len(_FORMATTED) > _KEEP:
                _FORMATTED.popitem(last=False)
        else:
            _FORMATTED.move_to_end(raw)
        return text


def format_once(cfg: Any) -> FormattedOnceConfig:
    """A deep copy of ``cfg`` as a :class:`FormattedOnceConfig`.

    Args:
        cfg (mmengine.Config): The config.

    Returns:
        FormattedOnceConfig: The same content, text formatted once.
    """
    cfg = copy.deepcopy(cfg)
    if isinstance(cfg, FormattedOnceConfig):
        return cfg
    other = FormattedOnceConfig.__new__(FormattedOnceConfig)
    other.__dict__.update(cfg.__dict__)
    return other
