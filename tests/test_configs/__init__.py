# Copyright (c) robustdet contributors. All rights reserved.
import functools

from mmengine.config import Config


@functools.lru_cache(maxsize=None)
def load_config(path):
    """``Config.fromfile(path)``, once per process (a config that inherits
    a whole mmdet config costs mmengine a parse of every mmdet metafile):
    deep-copy it before changing it."""
    return Config.fromfile(path)
