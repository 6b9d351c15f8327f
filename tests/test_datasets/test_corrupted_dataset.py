# Copyright (c) robustdet contributors. All rights reserved.
import copy

import numpy as np
import pytest
import torch
from mmdet.datasets.transforms.transforms import Corrupt
from mmdet.registry import DATASETS, TRANSFORMS

from robustdet.corruptions import IMAGENET_C_CORRUPTIONS
from robustdet.datasets import CorruptedDataset, CorruptImage
from robustdet.utils import RobustDetError, derive_seed
from robustdet.utils.cli import load_config
from tests.conftest import REPO, replace_data_root

DATASET_CONFIGS = {
    'coco': 'configs/_base_/datasets/demo_coco_instance.py',
    'voc': 'configs/_base_/datasets/demo_voc.py',
    'cityscapes': 'configs/_base_/datasets/demo_cityscapes_instance.py',
}


def _test_dataset_cfg(layout, demo_dir):
    cfg = load_config(f'{REPO}/{DATASET_CONFIGS[layout]}')
    cfg = replace_data_root(cfg, demo_dir)
    return copy.deepcopy(cfg.test_dataloader.dataset.to_dict())


@pytest.mark.parametrize('layout', ['coco', 'voc', 'cityscapes'])
def test_wrapper_on_all_demo_layouts(demo_dir, layout):
    clean = DATASETS.build(_test_dataset_cfg(layout, demo_dir))
    wrapped = DATASETS.build(
        dict(
            type='CorruptedDataset',
            dataset=_test_dataset_cfg(layout, demo_dir),
            corruption='gaussian_noise',
            severity=3))
    assert isinstance(wrapped, CorruptedDataset)
    assert len(wrapped) == len(clean) > 0
    assert wrapped.metainfo['classes'] == clean.metainfo['classes']
    # Corrupted right after loading, before Resize.
    names = [type(t).__name__ for t in wrapped.dataset.pipeline.transforms]
    assert names.index('CorruptImage') == names.index(
        'LoadImageFromFile') + 1
    assert names.index('CorruptImage') < names.index('Resize')
    for i in range(len(wrapped)):
        a, b = clean[i], wrapped[i]
        # Same annotations, same geometry, different pixels.
        assert a['data_samples'].img_path == b['data_samples'].img_path
        boxes_a = a['data_samples'].gt_instances.bboxes
        boxes_b = b['data_samples'].gt_instances.bboxes
        assert torch.equal(getattr(boxes_a, 'tensor', boxes_a),
                           getattr(boxes_b, 'tensor', boxes_b))
        assert a['inputs'].shape == b['inputs'].shape
        assert not torch.equal(a['inputs'], b['inputs'])
    # Repeatable: the same item twice gives the same pixels.
    assert torch.equal(wrapped[0]['inputs'], wrapped[0]['inputs'])


def test_identity_is_relative_to_data_root(demo_dir):
    ds = DATASETS.build(
        dict(
            type='CorruptedDataset',
            dataset=_test_dataset_cfg('coco', demo_dir),
            corruption='shot_noise',
            severity=2,
            seed=5))
    t = next(t for t in ds.dataset.pipeline.transforms
             if isinstance(t, CorruptImage))
    path = ds.get_data_info(0)['img_path']
    assert t.image_identity(path) == 'val2017/' + path.split('/')[-1]
    # The same file reached through another root keeps its file name.
    assert CorruptImage('fog', 1).image_identity(path) == path.split('/')[-1]


def _loader_images(dataset, num_workers):
    loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=1,
        num_workers=num_workers,
        collate_fn=lambda x: x[0])
    return {
        d['data_samples'].img_path: d['inputs'].clone()
        for d in loader
    }


def test_deterministic_across_worker_counts(demo_dir):
    cfg = dict(
        type='CorruptedDataset',
        dataset=_test_dataset_cfg('coco', demo_dir),
        corruption='glass_blur',
        severity=1,
        seed=3)
    # Read in another order in the second pass: results must not depend on
    # which process or in which order an image is loaded.
    zero = _loader_images(DATASETS.build(copy.deepcopy(cfg)), 0)
    two = _loader_images(DATASETS.build(copy.deepcopy(cfg)), 2)
    assert zero.keys() == two.keys()
    for path in zero:
        assert torch.equal(zero[path], two[path]), path


def _bgr_image(demo_dir):
    import cv2
    ds = DATASETS.build(_test_dataset_cfg('coco', demo_dir))
    path = ds.get_data_info(0)['img_path']
    return path, cv2.imread(path)


# mmdet's Corrupt runs imagecorruptions: the 19.
@pytest.mark.parametrize('name', IMAGENET_C_CORRUPTIONS)
def test_bgr_mode_equals_mmdet_corrupt(demo_dir, name):
    """channel_order='bgr' is mmdet's Corrupt, pixel for pixel. For
    stochastic corruptions mmdet's transform is seeded the way robustdet
    seeds the reference library (global numpy RNG, or seed= for
    impulse_noise/glass_blur)."""
    path, img = _bgr_image(demo_dir)
    ours = CorruptImage(
        name, 2, seed=11, backend='reference', channel_order='bgr')
    out = ours.transform(dict(img=img.copy(), img_path=path))['img']
    seed = derive_seed(11, ours.image_identity(path), name, 2)
    if name in ('impulse_noise', 'glass_blur'):
        from imagecorruptions import corrupt
        theirs = corrupt(img.copy(), severity=2, corruption_name=name,
                         seed=seed)
    else:
        mmdet_corrupt = TRANSFORMS.build(
            dict(type='Corrupt', corruption=name, severity=2))
        assert isinstance(mmdet_corrupt, Corrupt)
        state = np.random.get_state()
        np.random.seed(seed)
        theirs = mmdet_corrupt(dict(img=img.copy()))['img']
        np.random.set_state(state)
    np.testing.assert_array_equal(out, theirs)
    if name in ('frost', 'snow', 'jpeg_compression', 'saturate'):
        # The published RGB definitions differ from mmdet's BGR use.
        rgb = CorruptImage(name, 2, seed=11, backend='reference').transform(
            dict(img=img.copy(), img_path=path))['img']
        assert not np.array_equal(rgb, out)


def test_pipeline_without_loader_is_refused(demo_dir):
    cfg = _test_dataset_cfg('coco', demo_dir)
    cfg['pipeline'] = [dict(type='PackDetInputs')]
    with pytest.raises(RobustDetError, match='no image loading step'):
        DATASETS.build(
            dict(type='CorruptedDataset', dataset=cfg, corruption='fog',
                 severity=1))


def test_double_corruption_is_refused(demo_dir):
    inner = DATASETS.build(_test_dataset_cfg('coco', demo_dir))
    CorruptedDataset(inner, 'fog', 1)
    with pytest.raises(RobustDetError, match='already corrupts'):
        CorruptedDataset(inner, 'snow', 1)


def test_bad_wrapper_arguments(demo_dir):
    with pytest.raises(RobustDetError, match="unknown corruption 'fgo'"):
        CorruptedDataset(_test_dataset_cfg('coco', demo_dir), 'fgo', 1)
    with pytest.raises(RobustDetError, match='out of range'):
        CorruptedDataset(_test_dataset_cfg('coco', demo_dir), 'fog', 9)


def _transform_input(img, instances):
    return dict(img=img.copy(), img_path='/data/a/b.jpg', instances=instances)


def test_region_objects_and_background_split_the_change():
    from robustdet.corruptions import corrupt
    from robustdet.datasets.transforms import CorruptImage
    img = np.random.default_rng(0).integers(0, 256, (64, 96, 3), np.uint8)
    box = dict(bbox=[20.0, 10.0, 60.0, 40.0], bbox_label=0, ignore_flag=0)
    out = {
        region: CorruptImage('gaussian_noise', 3, seed=5, region=region)(
            _transform_input(img, [box]))
        for region in ('all', 'objects', 'background')
    }
    assert out['objects']['region'] == 'objects'
    # The whole image corrupted, BGR in and out, as corrupt() on RGB.
    whole = corrupt(img[..., ::-1].copy(), 'gaussian_noise', 3,
                    seed=_seed(5, 'b.jpg'))[..., ::-1]
    np.testing.assert_array_equal(out['all']['img'], whole)
    inside = np.zeros(img.shape[:2], bool)
    inside[10:40, 20:60] = True
    far = np.ones(img.shape[:2], bool)
    far[5:45, 15:65] = False  # beyond the soft edge
    objects, background = out['objects']['img'], out['background']['img']
    np.testing.assert_array_equal(objects[inside], whole[inside])
    np.testing.assert_array_equal(objects[far], img[far])
    np.testing.assert_array_equal(background[far], whole[far])
    np.testing.assert_array_equal(background[inside], img[inside])
    # No instance: nothing is an object.
    none = CorruptImage('gaussian_noise', 3, seed=5, region='objects')(
        _transform_input(img, []))
    np.testing.assert_array_equal(none['img'], img)


def _seed(seed, identity):
    from robustdet.datasets.transforms.corrupt import corruption_seed
    return corruption_seed(seed, identity, 'gaussian_noise', 3)


def test_region_and_depth_errors():
    from robustdet.datasets.transforms import CorruptImage
    from robustdet.utils import RobustDetError
    img = np.zeros((40, 40, 3), np.uint8)
    with pytest.raises(RobustDetError, match="unknown region 'object'"):
        CorruptImage('fog', 1, region='object')
    with pytest.raises(RobustDetError, match="has no 'instances'"):
        CorruptImage('fog', 1, region='objects')(
            dict(img=img, img_path='x.jpg'))
    with pytest.raises(RobustDetError, match='fog_3d needs a depth map'):
        CorruptImage('fog_3d', 1)(dict(img=img, img_path='x.jpg'))
