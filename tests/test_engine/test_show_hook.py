# Copyright (c) robustdet contributors. All rights reserved.
"""The pictures of ``--show-dir`` in the engine: settings and the dataset
tree, the pixels of backend torch, and the same pictures from both grid
runners (the tools: tests/test_tools/test_show_dir.py)."""
import os
import os.path as osp

import pytest
import torch
from mmdet.registry import DATASETS
from mmengine.registry import LOOPS
from mmengine.runner import loops

from robustdet.apis import RobustnessJob, run_robustness
from robustdet.engine import DeviceImages, ShowSettings
from robustdet.models import CorruptingDataPreprocessor
from robustdet.utils.cli import load_config
from robustdet.utils.errors import RobustDetError


@LOOPS.register_module()
class _ShowTestLoop(loops.TestLoop):
    """mmengine's TestLoop under another name: the grid runs it one cell
    at a time (CellLoopRunner)."""


@pytest.mark.parametrize('fields,expect', [
    (dict(num=0), '--show-num must be at least 1, got 0'),
    (dict(score_thr=1.5), '--show-score-thr must be in [0, 1], got 1.5'),
    (dict(out_dir=''), '--show-dir needs a directory'),
])
def test_bad_settings(fields, expect):
    with pytest.raises(RobustDetError, match=expect.replace('[', r'\[')):
        ShowSettings(**dict(dict(out_dir='show'), **fields))


def test_show_dir_inside_the_dataset_tree(tmp_path):
    wrapped = dict(
        type='CorruptedDataset',
        dataset=dict(
            type='CocoDataset',
            data_root=str(tmp_path / 'coco'),
            data_prefix=dict(img='val2017/')))
    foggy = dict(data_root='', foggy_prefix=str(tmp_path / 'fog'))
    for inside in ('coco', 'coco/val2017/show', 'fog/x'):
        settings = ShowSettings(str(tmp_path / inside))
        with pytest.raises(RobustDetError, match='is inside the test data'):
            settings.check_outside([wrapped, foggy])
    ShowSettings(str(tmp_path / 'cocoa')).check_outside([wrapped, foggy])
    ShowSettings(str(tmp_path / 'work/show')).check_outside([wrapped])


def test_device_images_are_what_the_preprocessor_corrupts(
        small_cfg_factory):
    """Backend torch: the pixels drawn are those the model's data
    preprocessor makes of the decoded image (its seed, channel order and
    device)."""
    cfg = small_cfg_factory()
    dataset = DATASETS.build(
        dict(type='DeferredCorruptionDataset',
             dataset=cfg.test_dataloader.dataset))
    pre = CorruptingDataPreprocessor(
        dict(type='DetDataPreprocessor'), seed=7, channel_order='bgr')
    for cell in (('gaussian_noise', 3), ('clean', 0)):
        pre.set_cell(*cell)
        item = dataset[1]
        expected = item['inputs']
        if cell[1]:
            expected = pre._corrupt([expected], [item['data_samples']],
                                    torch.device('cpu'))[0]
        drawn = DeviceImages(dataset, pre).load(cell, [1])[0]
        assert torch.equal(torch.from_numpy(drawn),
                           expected.flip(0).permute(1, 2, 0)), cell


def _pictures(root):
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = osp.join(folder, name)
            with open(path, 'rb') as f:
                found[osp.relpath(path, root)] = f.read()
    return found


def test_both_grid_runners_draw_the_same_pictures(demo_checkpoint,
                                                  tmp_path):
    """Two cells in one pass (PassRunner) and the config's own loop one
    cell at a time (CellLoopRunner): the same pictures, byte for byte."""
    config, ckpt = demo_checkpoint
    drawn = []
    for name, loop, per_pass in (('pass', None, 2),
                                 ('loop', '_ShowTestLoop', 1)):
        cfg = load_config(config)
        if loop is not None:
            cfg.test_cfg = dict(type=loop)
        show = str(tmp_path / name / 'show')
        job = RobustnessJob(
            config, ckpt, str(tmp_path / name / 'work'), ['gaussian_noise'],
            severities=[0, 2], cells_per_pass=per_pass,
            show=dict(out_dir=show, num=2, score_thr=0.5))
        run_robustness(job, cfg)
        drawn.append(_pictures(show))
    assert drawn[0] == drawn[1]
    assert len(drawn[0]) == 3 * 2 and all(
        osp.basename(p) in ('100001.jpg', '100002.jpg') for p in drawn[0])
