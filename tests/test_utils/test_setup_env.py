# Copyright (c) robustdet contributors. All rights reserved.
import json
import subprocess
import sys

from mmengine.registry import DefaultScope

from robustdet.utils import register_all_modules
from tests.conftest import REPO
from tests.tool_process import PRELOAD


def test_register_all_modules():
    from mmdet.registry import DATASETS, METRICS, MODELS, TRANSFORMS
    register_all_modules()
    assert DefaultScope.get_current_instance().scope_name == 'mmdet'
    # robustdet's modules live in mmdet's registries, no scope of their own.
    assert TRANSFORMS.get('CorruptImage').__module__.startswith('robustdet')
    assert DATASETS.get('CorruptedDataset').__module__.startswith(
        'robustdet')
    assert MODELS.get('CorruptingDataPreprocessor').__module__.startswith(
        'robustdet')
    # and mmdet's own modules are there too.
    assert DATASETS.get('CocoDataset') is not None
    assert METRICS.get('CocoMetric') is not None


# One fresh interpreter, three checks (each start imports torch and mmdet:
# about 8 s here): what a user's config does, custom_imports=['robustdet'];
# robustdet.apis then loads no numba kernel (those load with the backends
# that run them: compiled on their first load after an install); and what
# the tools' forkserver imports (tests/tool_process.py) prints nothing, so
# that forked runs hide no import-time warning from the tests that read
# stderr.
FRESH = """
import json, sys
from mmengine.config import Config
from mmdet.registry import DATASETS
before = DATASETS.get('CorruptedDataset')
cfg = Config(dict(custom_imports=dict(imports=['robustdet'],
                                      allow_failed_imports=False)))
from mmengine.utils import import_modules_from_strings
import_modules_from_strings(**cfg.custom_imports)
after = DATASETS.get('CorruptedDataset')
import robustdet.apis
kernels = 'robustdet.corruptions.kernels' in sys.modules
for name in {preload!r}:
    __import__(name)
print(json.dumps(dict(before=before is None, after=after is not None,
                      kernels=kernels)))
"""


def test_a_fresh_interpreter():
    """custom_imports registers robustdet's modules; robustdet.apis loads
    no numba kernel; the forkserver's imports print nothing."""
    proc = subprocess.run(
        [sys.executable, '-c', FRESH.format(preload=PRELOAD)],
        capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr == ''
    assert proc.stdout.splitlines() == [json.dumps(dict(
        before=True, after=True, kernels=False))]
