# Copyright (c) robustdet contributors. All rights reserved.
import functools

from robustdet.utils import cli


@functools.lru_cache(maxsize=None)
def load_config(path):
    """The config as the tools load it
    (:func:`robustdet.utils.cli.load_config`: mmengine's
    ``Config.fromfile``, the YAML files it reads for ``mmdet::`` bases
    parsed once per process), once per process: deep-copy it before
    changing it."""
    return cli.load_config(path)
