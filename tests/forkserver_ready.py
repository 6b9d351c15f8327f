# Copyright (c) robustdet contributors. All rights reserved.
"""Imported last in the forkserver of ``tests/tool_process.py``, after
the preloaded modules: readies what every forked run inherits.

* mmdet's metafiles (about a hundred YAML files, which mmengine reads to
  look up each ``mmdet::`` base of a config) are parsed once here, by
  loading the demo config as the tools load theirs
  (:func:`robustdet.utils.cli.load_config`; its
  :func:`~robustdet.utils.config_text.yaml_parsed_once` keeps each
  text's parse for the process). A child's config load copies the parses
  instead of parsing again: 0.13 s instead of 0.27 s of CPU for the demo
  config, 0.20 s instead of 0.36 s for the Mask R-CNN COCO-C one, on the
  2-core EPYC. A fresh interpreter parses them at its first load, as
  ``tests/test_utils/test_config_text.py`` checks in its own process.
  Its text is formatted here too, so that a child formats only the
  top-level assignments its config changed
  (:class:`~robustdet.utils.config_text.FormattedOnceConfig`): for the
  demo config on other data, in another work dir, 0.10-0.16 s of CPU
  instead of 0.20-0.30 s on the EPYC.
* The objects of the imports (about 500,000: torch, mmdet, robustdet)
  are taken out of the garbage collector's scans (``gc.freeze``), as
  Python's documentation advises before forking without exec. A forked
  child otherwise walks all of them, copying their pages, at every full
  collection: 0.44-0.62 s each on the EPYC, and mmengine runs one for
  every dataset it builds (mmdet's ``test_robustness.py``, which tests
  compare with, builds one per cell). robustdet's tools freeze the same
  objects themselves when their ``main`` starts
  (:func:`robustdet.utils.cli.freeze_imports`); other scripts (mmdet's,
  the benchmarks) do not.
* The finalizers of the preloaded objects (``weakref.finalize``: torch's
  operator libraries, about 240) are not run when a child exits: 42-46 ms
  of each run on the EPYC (4 ms without them), spent undoing
  registrations in a process about to end. A fresh interpreter runs them
  at exit, with nothing to observe after; the finalizers a child makes
  itself (temporary folders) still run.

A fresh interpreter starts with nothing frozen: a test that checks what a
tool freezes unfreezes first (``tests/test_utils/test_cli_entry.py``).
"""
import gc
import os.path as osp
import weakref

from robustdet.utils.cli import load_config

DEMO_CONFIG = osp.join(
    osp.dirname(osp.dirname(osp.abspath(__file__))), 'configs', 'demo',
    'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')


def _ready() -> None:
    load_config(DEMO_CONFIG).pretty_text  # noqa: B018 (formats, keeps)
    for obj in gc.get_objects():
        if type(obj) is weakref.finalize:
            obj.atexit = False
    gc.collect()
    gc.freeze()


_ready()
