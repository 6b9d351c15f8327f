# Copyright (c) robustdet contributors. All rights reserved.
"""Drawing images: the corruption gallery's labelled grids
(:mod:`.gallery`), as mmdet keeps its drawing in ``mmdet/visualization``.
"""
