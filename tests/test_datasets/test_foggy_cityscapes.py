# Copyright (c) robustdet contributors. All rights reserved.
"""Foggy Cityscapes on the demo data: same ground truth as clean
Cityscapes, foggy pixels, checked files, evaluated like clean val."""
import json
import os
import os.path as osp
import shutil

import numpy as np
import pytest
import torch

from demo_data.foggy import DEFAULT_AIRLIGHT, add_fog, write_foggy_cityscapes
from robustdet.datasets import (FOGGY_BETAS, FoggyCityscapesDataset,
                                foggy_file_name, parse_foggy_beta)
from robustdet.utils import RobustDetError

CLASSES = ('car', 'truck', 'bus')
VAL_ANN = 'annotations/instancesonly_filtered_gtFine_val.json'
TRAIN_ANN = 'annotations/instancesonly_filtered_gtFine_train.json'
PIPELINE = [
    dict(type='LoadImageFromFile'),
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(type='PackDetInputs')
]


@pytest.fixture(scope='module')
def city_root(demo_dir, tmp_path_factory):
    """A copy of the demo Cityscapes tree with foggy train and val."""
    root = str(tmp_path_factory.mktemp('foggy') / 'cityscapes')
    shutil.copytree(osp.join(demo_dir, 'cityscapes'), root)
    stats = write_foggy_cityscapes(root, splits=('train', 'val'))
    assert stats['written'] == 3 * (8 + 4) and stats['skipped'] == 0
    return root


def build(root, beta, split='val', test_mode=True, **kwargs):
    from mmdet.registry import DATASETS
    cfg = dict(
        type='CityscapesDataset' if beta == 'clean' else
        'FoggyCityscapesDataset',
        data_root=root + '/',
        metainfo=dict(classes=CLASSES),
        ann_file=f'annotations/instancesonly_filtered_gtFine_{split}.json',
        data_prefix=dict(img=f'leftImg8bit/{split}/'),
        test_mode=test_mode,
        pipeline=kwargs.pop('pipeline', []))
    if beta != 'clean':
        cfg.update(beta=beta, foggy_prefix=f'leftImg8bit_foggy/{split}/')
    cfg.update(kwargs)
    return DATASETS.build(cfg)


def infos(ds):
    return [ds.get_data_info(i) for i in range(len(ds))]


def without_path(info):
    return {k: v for k, v in info.items() if k != 'img_path'}


def read_rgb(path):
    import cv2
    return cv2.imread(path)[..., ::-1].astype(np.float64)


def test_parse_beta():
    assert parse_foggy_beta(0.02) == 0.02
    assert parse_foggy_beta('0.005') == 0.005
    assert parse_foggy_beta(' 0.010 ') == 0.01
    for bad in (0.03, '0.03', 'fog', True, None):
        with pytest.raises(RobustDetError) as e:
            parse_foggy_beta(bad)
        assert '0.005, 0.01, 0.02' in str(e.value)
    assert foggy_file_name('c/c_0_1_leftImg8bit.png', '0.01') == \
        'c/c_0_1_leftImg8bit_foggy_beta_0.01.png'
    with pytest.raises(RobustDetError, match='c/x.jpg'):
        foggy_file_name('c/x.jpg', 0.01)


def test_add_fog_koschmieder():
    img = np.full((2, 3, 3), 20, np.uint8)
    depth = np.array([[0.0, 50.0, np.inf]] * 2)
    out = add_fog(img, depth, 0.02, airlight=200.0)
    t = np.exp(-0.02 * 50.0)
    assert (out[:, 0] == 20).all() and (out[:, 2] == 200).all()
    assert (out[:, 1] == round(20 * t + 200 * (1 - t))).all()
    assert (add_fog(img, depth, 0.0) == img).all()
    with pytest.raises(ValueError):
        add_fog(img, depth[:, :2], 0.01)


@pytest.mark.parametrize('split,test_mode', [('val', True),
                                             ('train', False)])
def test_same_ground_truth(city_root, split, test_mode):
    # filter_cfg drops images in train mode only; with min_size=97 it
    # drops every 96 px high image, so the train-mode lists are empty
    # (which mmengine can only hold unserialized).
    for filter_cfg in (None, dict(filter_empty_gt=True, min_size=32),
                       dict(filter_empty_gt=True, min_size=97)):
        kwargs = dict(filter_cfg=filter_cfg, serialize_data=False)
        clean = infos(build(city_root, 'clean', split, test_mode, **kwargs))
        for beta in (None, ) + FOGGY_BETAS:
            foggy = infos(build(city_root, beta, split, test_mode, **kwargs))
            assert [without_path(i) for i in foggy] == \
                [without_path(i) for i in clean]
            for c, f in zip(clean, foggy):
                if beta is None:
                    assert f['img_path'] == c['img_path']
                    continue
                assert f['img_path'] == c['img_path'].replace(
                    'leftImg8bit/', 'leftImg8bit_foggy/').replace(
                        '_leftImg8bit.png',
                        f'_leftImg8bit_foggy_beta_{beta}.png')
                assert osp.isfile(f['img_path'])
        if test_mode or filter_cfg is None:
            assert len(clean) == (4 if split == 'val' else 8)
    assert len(clean) == (4 if split == 'val' else 0)


def local_contrast(img):
    """Mean absolute difference of neighbouring pixels."""
    return (np.abs(np.diff(img, axis=0)).mean() +
            np.abs(np.diff(img, axis=1)).mean())


def test_denser_fog_is_foggier(city_root):
    clean = infos(build(city_root, 'clean'))
    imgs = {
        beta: [read_rgb(i['img_path']) for i in infos(build(city_root, beta))]
        for beta in FOGGY_BETAS
    }
    for i, info in enumerate(clean):
        ref = read_rgb(info['img_path'])
        # Every pixel moves towards the airlight, more so in denser fog,
        # and edges fade.
        dist = [np.abs(ref - DEFAULT_AIRLIGHT).mean()]
        contrast = [local_contrast(ref)]
        for beta in FOGGY_BETAS:
            img = imgs[beta][i]
            assert img.shape == ref.shape and (img != ref).any()
            dist.append(np.abs(img - DEFAULT_AIRLIGHT).mean())
            contrast.append(local_contrast(img))
        assert dist == sorted(dist, reverse=True) and len(set(dist)) == 4
        assert contrast == sorted(contrast, reverse=True)
        assert len(set(contrast)) == 4


def test_writer_is_deterministic_and_resumes(city_root, tmp_path):
    root = str(tmp_path / 'cityscapes')
    shutil.copytree(osp.join(city_root, 'leftImg8bit'),
                    osp.join(root, 'leftImg8bit'))
    shutil.copytree(osp.join(city_root, 'gtFine'), osp.join(root, 'gtFine'))
    assert write_foggy_cityscapes(root, betas=['0.02'])['written'] == 4
    stats = write_foggy_cityscapes(root)
    assert (stats['written'], stats['skipped']) == (8, 4)
    for sub, _, files in os.walk(osp.join(root, 'leftImg8bit_foggy')):
        for name in files:
            path = osp.join(sub, name)
            ref = path.replace(root, city_root)
            with open(path, 'rb') as a, open(ref, 'rb') as b:
                assert a.read() == b.read()
    with pytest.raises(RobustDetError, match='0.03'):
        write_foggy_cityscapes(root, betas=(0.03, ))
    with pytest.raises(RobustDetError, match='test'):
        write_foggy_cityscapes(root, splits=('test', ))


def test_pipeline_loads_foggy_images(city_root):
    ds = build(city_root, 0.01, pipeline=PIPELINE)
    item = ds[0]
    sample = item['data_samples']
    assert item['inputs'].shape == (3, 96, 128)
    assert sample.img_path.endswith('_leftImg8bit_foggy_beta_0.01.png')
    assert len(sample.gt_instances) == len(ds.get_data_info(0)['instances'])


def test_errors(city_root, tmp_path):
    with pytest.raises(RobustDetError, match=r'0\.03.*0\.005, 0\.01, 0\.02'):
        build(city_root, 0.03)
    with pytest.raises(RobustDetError, match='needs beta'):
        FoggyCityscapesDataset(
            data_root=city_root, ann_file=VAL_ANN, metainfo=dict(
                classes=CLASSES))

    foggy = str(tmp_path / 'foggy_val')
    shutil.copytree(osp.join(city_root, 'leftImg8bit_foggy', 'val'), foggy)
    # An absolute foggy_prefix is used as it is.
    assert len(build(city_root, 0.02, foggy_prefix=foggy)) == 4

    name = 'demoburg/demoburg_000000_100002_leftImg8bit_foggy_beta_0.02.png'
    os.rename(osp.join(foggy, name), osp.join(tmp_path, 'moved.png'))
    with pytest.raises(RobustDetError) as e:
        build(city_root, 0.02, foggy_prefix=foggy)
    assert osp.join(foggy, name) in str(e.value)
    assert '\n' not in str(e.value)
    # Other betas are complete.
    assert len(build(city_root, '0.01', foggy_prefix=foggy)) == 4

    os.rename(osp.join(tmp_path, 'moved.png'), osp.join(foggy, name))
    extra = 'demoburg/demoburg_000000_100099_leftImg8bit_foggy_beta_0.02.png'
    shutil.copy(osp.join(foggy, name), osp.join(foggy, extra))
    with pytest.raises(RobustDetError) as e:
        build(city_root, 0.02, foggy_prefix=foggy)
    assert osp.join(foggy, extra) in str(e.value)
    assert 'no ground truth' in str(e.value)
    # The extra image is of beta 0.02 only.
    assert len(build(city_root, 0.005, foggy_prefix=foggy)) == 4

    with pytest.raises(RobustDetError, match='leftImg8bit_trainvaltest_foggy'):
        build(city_root, 0.02, foggy_prefix=str(tmp_path / 'nowhere'))
    # The train split has no foggy images under the val prefix.
    with pytest.raises(RobustDetError, match='missing foggy image'):
        build(city_root, 0.02, 'train', foggy_prefix=foggy)


def evaluate_ground_truth(ds, ann_file):
    """CocoMetric results of ``ds`` with its ground truth as predictions
    (perfect boxes and masks), fed through the test pipeline."""
    from mmdet.evaluation import CocoMetric
    metric = CocoMetric(ann_file=ann_file, metric=['bbox', 'segm'])
    metric.dataset_meta = ds.metainfo
    for i in range(len(ds)):
        sample = ds[i]['data_samples']
        gt = sample.gt_instances
        metric.process({}, [
            dict(
                img_id=sample.img_id,
                ori_shape=sample.ori_shape,
                pred_instances=dict(
                    bboxes=gt.bboxes.tensor,
                    labels=gt.labels,
                    scores=torch.ones(len(gt)),
                    masks=torch.from_numpy(gt.masks.to_ndarray()).bool()))
        ])
    return metric.evaluate(len(ds))


def test_coco_metric_like_clean_val(city_root, tmp_path):
    # mmdet's converter numbers annotations from 0, and pycocotools'
    # COCOeval never matches a ground truth whose id is 0, so with the
    # converted file even perfect predictions miss one box (on clean val
    # alike); a copy with ids from 1 gives AP 1.0.
    ann_file = osp.join(city_root, VAL_ANN)
    with open(ann_file) as f:
        coco = json.load(f)
    for ann in coco['annotations']:
        ann['id'] += 1
    shifted = str(tmp_path / 'val_ids_from_1.json')
    with open(shifted, 'w') as f:
        json.dump(coco, f)

    clean = evaluate_ground_truth(
        build(city_root, 'clean', pipeline=PIPELINE), ann_file)
    for beta in (None, 0.02):
        ds = build(city_root, beta, pipeline=PIPELINE)
        assert evaluate_ground_truth(ds, ann_file) == clean
        res = evaluate_ground_truth(ds, shifted)
        # exact: every box and mask IoU is 1, every precision 1
        assert res['coco/bbox_mAP'] == 1.0
        assert res['coco/segm_mAP'] == 1.0
