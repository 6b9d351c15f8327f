# Copyright (c) robustdet contributors. All rights reserved.
import subprocess
import sys

from mmengine.registry import DefaultScope

from robustdet.utils import register_all_modules


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


def test_custom_imports_registers_in_a_fresh_process():
    """What a user's config does: custom_imports=['robustdet']."""
    code = '\n'.join([
        'from mmengine.config import Config',
        'from mmdet.registry import DATASETS',
        'assert DATASETS.get("CorruptedDataset") is None',
        'cfg = Config(dict(custom_imports=dict(imports=["robustdet"], '
        'allow_failed_imports=False)))',
        'from mmengine.utils import import_modules_from_strings',
        'import_modules_from_strings(**cfg.custom_imports)',
        'assert DATASETS.get("CorruptedDataset") is not None',
        'print("ok")',
    ])
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'ok'
