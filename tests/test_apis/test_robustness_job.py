# Copyright (c) robustdet contributors. All rights reserved.
"""What a benchmark job accepts, and the import paths it keeps."""
import importlib
import inspect
import sys
import warnings

import pytest
import torch
from mmengine.config import Config

from robustdet import engine
from robustdet.apis import RobustnessJob
from robustdet.apis.robustness import _test_loop_cfg
from robustdet.corruptions import grid
from robustdet.engine import cell_dataloader_cfg
from robustdet.utils import RobustDetError


def test_custom_test_loop_runs_one_cell_per_pass(tmp_path):
    def job(k):
        return RobustnessJob('c.py', 'c.pth', str(tmp_path), ['fog'],
                             cells_per_pass=k)

    plain = Config(dict(test_cfg=dict()))
    assert _test_loop_cfg(plain, job(3)) == (dict(type='TestLoop'), True)
    custom = Config(dict(test_cfg=dict(type='ValLoop')))
    assert _test_loop_cfg(custom, job(1)) == (dict(type='ValLoop'), False)
    with pytest.raises(RobustDetError, match="--cells-per-pass 3 needs "
                       "mmengine's TestLoop, but test_cfg has "
                       "type='ValLoop'"):
        _test_loop_cfg(custom, job(3))
    with pytest.raises(RobustDetError, match='got 0'):
        job(0)


def test_corruption_device_of_a_job(tmp_path):
    def job(**kwargs):
        return RobustnessJob('c.py', 'c.pth', str(tmp_path), ['fog'],
                             **kwargs)

    assert job().corruption_device_type() is None
    assert not job().corrupts_on_device
    torch_job = job(backend='torch', corruption_device='cpu')
    assert torch_job.corrupts_on_device
    assert torch_job.corruption_device_type() == 'cpu'
    assert job(backend='torch').corruption_device_type() == (
        'cuda' if torch.cuda.is_available() else 'cpu')
    with pytest.raises(RobustDetError, match='--corruption-device is for '
                       '--backend torch, not --backend fast'):
        job(corruption_device='cpu')
    with pytest.raises(RobustDetError, match="invalid device 'tpu'"):
        job(backend='torch', corruption_device='tpu')
    # Test loops other than TestLoop get the decoding dataset, which also
    # computes the cell's CPU part in the dataloader workers.
    dl = dict(dataset=dict(type='DeferredCorruptionDataset'))
    assert cell_dataloader_cfg(dl, ('fog', 3), torch_job) == dict(
        dataset=dict(type='DeferredCorruptionDataset', host_cells=[['fog', 3]],
                     seed=torch_job.seed, channel_order='rgb'))
    assert cell_dataloader_cfg(dl, ('clean', 0), torch_job) == dl
    assert cell_dataloader_cfg(dl, ('fog', 3), job())['dataset'][
        'type'] == 'CorruptedDataset'


@pytest.mark.parametrize('module, names', [
    ('robustdet.apis.passes', [
        'PassRunner', 'PassBatchSampler', 'GridDataset', 'PassCollate',
        'DecodedOnce', 'CellRouter', 'pass_dataset', 'build_grid_dataloader',
        'metrics_ignore_order', 'resolve_collate_fn', 'plan_passes',
        'check_cells_per_pass'
    ]),
    ('robustdet.apis.progress', ['GridProgressHook']),
])
def test_moved_modules_still_import(module, names):
    """The pass machinery moved to robustdet.engine; the old modules
    still give every name for one release, with a DeprecationWarning."""
    sys.modules.pop(module, None)
    with pytest.warns(DeprecationWarning, match='robustdet.engine'):
        old = importlib.import_module(module)
    for name in names:
        if name == 'PassRunner':
            # The engine's runner with its former signature and run().
            assert issubclass(old.PassRunner, engine.PassRunner)
            assert list(inspect.signature(old.PassRunner).parameters) == [
                'runner', 'job', 'dl_cfg', 'test_cfg', 'evaluator_cfg',
                'progress', 'results'
            ]
            continue
        assert getattr(old, name) is getattr(
            engine if hasattr(engine, name) else grid, name)


def test_moved_function_still_answers():
    import robustdet.apis.robustness as robustness
    with pytest.warns(DeprecationWarning, match='cell_dataloader_cfg'):
        assert robustness.corrupted_dataloader_cfg is cell_dataloader_cfg
    assert not hasattr(robustness, 'no_such_name')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert robustness.run_robustness is not None
