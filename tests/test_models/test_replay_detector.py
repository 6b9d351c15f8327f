# Copyright (c) robustdet contributors. All rights reserved.
"""ReplayDetector, the benchmark instrument of bench_coco_scale.py: it
returns each image's detections from its file through mmdet's test path
(data preprocessor, DetDataSample), rescaled as mmdet's detectors do, and
stops with one line for an image the file does not have."""
import os.path as osp

import numpy as np
import pytest
import torch
from mmdet.registry import MODELS
from mmdet.structures import DetDataSample

from robustdet.models import ReplayDetector, load_detections, save_detections
from robustdet.utils.errors import RobustDetError


def _detections(rng, names, count=5):
    out = {}
    for name in names:
        xy = rng.uniform(0, 300, (count, 2))
        boxes = np.concatenate([xy, xy + rng.uniform(5, 50, (count, 2))], 1)
        out[name] = (boxes.astype(np.float32),
                     rng.random(count).astype(np.float32),
                     rng.integers(0, 80, count))
    return out


def _sample(path, scale=(2.0, 0.5)):
    sample = DetDataSample()
    sample.set_metainfo(dict(img_path=path, img_id=1, ori_shape=(480, 640),
                             img_shape=(240, 1280), scale_factor=scale))
    return sample


def test_file_round_trip_and_bad_files(tmp_path):
    want = _detections(np.random.default_rng(0), ['a.jpg', 'b.jpg'])
    want['empty.jpg'] = (np.zeros((0, 4), np.float32),
                         np.zeros(0, np.float32), np.zeros(0, np.int64))
    path = str(tmp_path / 'dets.npz')
    save_detections(path, want)
    got = load_detections(path)
    assert sorted(got) == sorted(want)
    for name in want:
        for a, b in zip(got[name], want[name]):
            np.testing.assert_array_equal(a, b)
    (tmp_path / 'bad.npz').write_bytes(b'not an npz')
    with pytest.raises(RobustDetError, match='is not a detections file'):
        load_detections(str(tmp_path / 'bad.npz'))
    np.savez(tmp_path / 'object.npz', names=np.array([None], dtype=object),
             offsets=np.zeros(2), bboxes=np.zeros((0, 4)), scores=[],
             labels=[])
    with pytest.raises(RobustDetError, match='is not a detections file'):
        load_detections(str(tmp_path / 'object.npz'))


def test_test_step_replays_the_file(tmp_path):
    dets = _detections(np.random.default_rng(1), ['x.jpg', 'y.jpg'])
    path = str(tmp_path / 'dets.npz')
    save_detections(path, dets)
    model = MODELS.build(
        dict(type='ReplayDetector', detections=path,
             backbone=dict(init_cfg=dict(type='Pretrained')),
             data_preprocessor=dict(type='DetDataPreprocessor',
                                    mean=[0, 0, 0], std=[1, 1, 1],
                                    pad_size_divisor=32)))
    assert isinstance(model, ReplayDetector)
    assert not list(model.parameters())
    samples = [_sample(f'/data/images/{n}') for n in ('y.jpg', 'x.jpg')]
    batch = dict(inputs=[torch.zeros(3, 240, 320, dtype=torch.uint8)] * 2,
                 data_samples=samples)
    out = model.test_step(batch)
    for sample, name in zip(out, ('y.jpg', 'x.jpg')):
        pred = sample.pred_instances
        np.testing.assert_array_equal(pred.bboxes.numpy(), dets[name][0])
        np.testing.assert_array_equal(pred.scores.numpy(), dets[name][1])
        np.testing.assert_array_equal(pred.labels.numpy(), dets[name][2])
    # rescale=False: boxes at the network input's scale, as mmdet's.
    again = model.predict(batch['inputs'], [_sample('/d/x.jpg')],
                          rescale=False)
    np.testing.assert_allclose(again[0].pred_instances.bboxes.numpy(),
                               dets['x.jpg'][0] * [2.0, 0.5, 2.0, 0.5])
    # The file's arrays are not handed out: changing a prediction changes
    # no later one.
    out[0].pred_instances.bboxes += 1
    np.testing.assert_array_equal(
        model.test_step(batch)[0].pred_instances.bboxes.numpy(),
        dets['y.jpg'][0])
    with pytest.raises(RobustDetError) as info:
        model.predict(batch['inputs'], [_sample('/data/images/z.jpg')])
    assert str(info.value) == (
        f'ReplayDetector: no detections for /data/images/z.jpg in {path}')
    with pytest.raises(NotImplementedError):
        model.loss(batch['inputs'], samples)


def test_benchmark_configs_load():
    from robustdet.utils.cli import load_config
    repo = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
    replay = load_config(
        osp.join(repo, 'configs', 'benchmarks', 'replay_coco-scale.py'))
    r50 = load_config(
        osp.join(repo, 'configs', 'benchmarks',
                 'faster-rcnn_r50_fpn_coco-scale.py'))
    for cfg in (replay, r50):
        assert cfg.train_dataloader is None and cfg.val_dataloader is None
        assert cfg.test_cfg == dict(type='TestLoop')
        assert cfg.dataset_type == 'CocoDataset'  # mmdet's script reads it
        assert cfg.test_dataloader.dataset.data_prefix == dict(img='images/')
    assert replay.model.type == 'ReplayDetector'
    assert r50.model.backbone.depth == 50 and r50.model.backbone.init_cfg \
        is None
    assert r50.model.roi_head.bbox_head.num_classes == 80
