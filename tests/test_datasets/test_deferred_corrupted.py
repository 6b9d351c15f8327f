# Copyright (c) robustdet contributors. All rights reserved.
"""The CPU side of backend torch: the pipeline decodes and packs only, with
the metainfo and annotations the config's Resize gives."""
import copy

import numpy as np
import pytest
import torch
from mmdet.registry import DATASETS, TRANSFORMS
from mmdet.structures.bbox import HorizontalBoxes

from robustdet.datasets import (CorruptImage, DeferredCorruptionDataset,
                                DeferredResize, corruption_seed,
                                image_identity)
from robustdet.utils import RobustDetError, derive_seed
from robustdet.utils.cli import load_config
from tests.conftest import REPO, replace_data_root


def _dataset_cfg(demo_dir, layout='coco_detection'):
    cfg = load_config(
        f'{REPO}/configs/_base_/datasets/demo_{layout}.py')
    cfg = replace_data_root(cfg, demo_dir)
    return copy.deepcopy(cfg.test_dataloader.dataset.to_dict())


@pytest.mark.parametrize('resize', [
    dict(scale=(320, 240), keep_ratio=True),
    dict(scale=(100, 70), keep_ratio=True),
    dict(scale=(1333, 800), keep_ratio=True),
    dict(scale=(77, 150), keep_ratio=False),
    dict(scale_factor=0.5, keep_ratio=True),
    dict(scale_factor=(1.5, 0.7), keep_ratio=False),
])
def test_deferred_resize_sets_what_resize_sets(resize):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (97, 131, 3), dtype=np.uint8)
    boxes = HorizontalBoxes(
        torch.tensor([[3., 5., 60., 90.], [100., 10., 131., 97.]]))
    results = dict(img=img, img_shape=img.shape[:2], ori_shape=img.shape[:2],
                   gt_bboxes=boxes)
    real = TRANSFORMS.build(dict(type='Resize', **resize))
    expected = real(copy.deepcopy(results))
    deferred = DeferredResize.from_resize(real)
    got = deferred(copy.deepcopy(results))
    assert got['img'].shape == img.shape and np.array_equal(got['img'], img)
    assert got['img_shape'] == expected['img'].shape[:2]
    for key in ('img_shape', 'scale', 'scale_factor', 'keep_ratio'):
        assert got[key] == expected[key], key
    assert np.array_equal(got['homography_matrix'],
                          expected['homography_matrix'])
    assert torch.equal(got['gt_bboxes'].tensor, expected['gt_bboxes'].tensor)
    assert repr(deferred).startswith('DeferredResize(')


def test_pipeline_decodes_and_packs_only(demo_dir):
    cpu = DATASETS.build(_dataset_cfg(demo_dir))
    dev = DATASETS.build(
        dict(type='DeferredCorruptionDataset',
             dataset=_dataset_cfg(demo_dir)))
    assert isinstance(dev, DeferredCorruptionDataset)
    assert len(dev) == len(cpu) and dev.metainfo == cpu.metainfo
    names = [type(t).__name__ for t in dev.dataset.pipeline.transforms]
    assert names == ['LoadImageFromFile', 'RecordImageIdentity',
                     'DeferredResize', 'LoadAnnotations', 'PackDetInputs']
    root = dev.dataset.data_root
    for i in range(len(dev)):
        a, b = cpu[i], dev[i]
        meta_a, meta_b = a['data_samples'].metainfo, b['data_samples'].metainfo
        # The image at its original resolution, the metainfo of Resize.
        assert tuple(b['inputs'].shape[1:]) == meta_b['ori_shape']
        assert tuple(a['inputs'].shape[1:]) == meta_a['img_shape']
        assert meta_a['img_shape'] != meta_a['ori_shape']
        identity = meta_b.pop('img_identity')
        assert meta_a == meta_b
        assert identity == image_identity(meta_a['img_path'], root)
        assert identity.startswith('val2017/')
        assert torch.equal(a['data_samples'].gt_instances.bboxes.tensor,
                           b['data_samples'].gt_instances.bboxes.tensor)


def test_seed_is_the_one_corrupt_image_uses(tmp_path):
    t = CorruptImage('fog', 3, seed=7, path_root=str(tmp_path))
    path = str(tmp_path / 'a' / 'b.jpg')
    assert t.image_identity(path) == image_identity(path, str(tmp_path)) \
        == 'a/b.jpg'
    assert image_identity('/elsewhere/c.jpg', str(tmp_path)) == 'c.jpg'
    assert corruption_seed(7, 'a/b.jpg', 'fog', 3) == derive_seed(
        7, 'a/b.jpg', 'fog', 3)


def _refused(demo_dir, pipeline, expect):
    cfg = _dataset_cfg(demo_dir)
    cfg['pipeline'] = pipeline
    with pytest.raises(RobustDetError, match=expect):
        DeferredCorruptionDataset(cfg, lazy_init=True)


LOAD = dict(type='LoadImageFromFile')
RESIZE = dict(type='Resize', scale=(320, 240), keep_ratio=True)
PACK = dict(type='PackDetInputs')


@pytest.mark.parametrize('pipeline,expect', [
    ([LOAD, RESIZE, dict(type='Pad', size_divisor=32), PACK],
     r'it has Pad \(step 3\), which would see the image before it is '
     'corrupted; use backend fast'),
    ([LOAD, dict(type='RandomChoiceResize', scales=[(320, 240)]), PACK],
     r'it has RandomChoiceResize \(step 2\)'),
    ([LOAD, dict(RESIZE, interpolation='bicubic'), PACK],
     r"Resize \(step 2\) with interpolation='bicubic'"),
    ([LOAD, dict(RESIZE, backend='pillow'), PACK],
     r"Resize \(step 2\) with backend='pillow'"),
    ([LOAD, RESIZE, RESIZE, PACK], r'it resizes twice \(Resize \(step 3\)\)'),
    ([LOAD, RESIZE], 'it has no PackDetInputs'),
    ([RESIZE, PACK], 'no image loading step'),
])
def test_refused_pipelines(demo_dir, pipeline, expect):
    _refused(demo_dir, pipeline, expect)


def test_no_resize_keeps_the_size(demo_dir):
    cfg = _dataset_cfg(demo_dir)
    cfg['pipeline'] = [LOAD, dict(type='LoadAnnotations'), PACK]
    sample = DeferredCorruptionDataset(cfg)[0]
    meta = sample['data_samples'].metainfo
    assert meta['img_shape'] == meta['ori_shape'] == tuple(
        sample['inputs'].shape[1:])
