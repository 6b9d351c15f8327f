# Copyright (c) robustdet contributors. All rights reserved.
"""Drawing images, as mmdet keeps its drawing in ``mmdet/visualization``:
the corruption gallery's labelled grids (:mod:`.gallery`), the
reports' plots (:mod:`.report_plots`) and the ``--show-dir`` strips the
HTML report embeds (:mod:`.strips`).
"""
