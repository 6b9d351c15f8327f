# Copyright (c) robustdet contributors. All rights reserved.
"""Drawing images, as mmdet keeps its drawing in ``mmdet/visualization``:
the corruption gallery's labelled grids (:mod:`.gallery`) and the
reports' plots (:mod:`.report_plots`).
"""
