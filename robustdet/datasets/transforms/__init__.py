# Copyright (c) robustdet contributors. All rights reserved.
from .corrupt import CorruptImage

__all__ = ['CorruptImage']
