# Copyright (c) robustdet contributors. All rights reserved.
import hashlib
import json
import os
import os.path as osp

import cv2
import numpy as np
import pytest

from demo_data import (CITYSCAPES_LABELS, DEMO_CLASSES, META_FILE,
                       cityscapes_label_order, demo_scenes, generate_demo_data,
                       image_stem, object_polygon, render_background,
                       render_scene, sample_scene, scene_annotations)
from tests.tool_process import run_tool

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
SMALL = dict(num_train=6, num_val=4, size=(128, 96))


def _digests(root: str) -> dict:
    """Map every file below ``root`` (relative path) to its sha256."""
    out = {}
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = osp.join(dirpath, name)
            with open(path, 'rb') as f:
                out[osp.relpath(path, root)] = hashlib.sha256(
                    f.read()).hexdigest()
    return out


def _expected_boxes(split: str, num: int, size=SMALL['size']) -> dict:
    """Generated ``(labels, boxes)`` of each image stem of a split."""
    out = {}
    for i, scene in enumerate(demo_scenes(0, split, num, size)):
        anns = scene_annotations(scene)
        out[image_stem(split, i)] = (np.array([a['label'] for a in anns]),
                                     np.array([a['bbox'] for a in anns
                                               ]).reshape(-1, 4))
    return out


def _sorted(labels, boxes):
    """Sort instances by label then box for order-free comparison."""
    labels = np.asarray(labels)
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    order = np.lexsort((boxes[:, 1], boxes[:, 0], labels))
    return labels[order], boxes[order]


@pytest.fixture(scope='module')
def demo(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp('demo') / 'data'
    return generate_demo_data(str(out_dir), seed=0, **SMALL)


def test_same_seed_identical_different_seed_differs(demo, tmp_path):
    again = generate_demo_data(str(tmp_path / 'again'), seed=0, **SMALL)
    ref = _digests(demo['out_dir'])
    assert len(ref) > 4 * (SMALL['num_train'] + SMALL['num_val'])
    assert _digests(again['out_dir']) == ref

    other = generate_demo_data(
        str(tmp_path / 'other'), seed=1, layouts=['coco'], **SMALL)
    other_digests = _digests(other['coco_val_img_dir'])
    ref_digests = _digests(demo['coco_val_img_dir'])
    assert other_digests.keys() == ref_digests.keys()
    assert all(other_digests[k] != ref_digests[k] for k in ref_digests)


def test_val_independent_of_num_train(demo, tmp_path):
    paths = generate_demo_data(
        str(tmp_path / 'fewer'),
        seed=0,
        num_train=2,
        num_val=SMALL['num_val'],
        size=SMALL['size'],
        layouts=('coco', ))
    assert _digests(paths['coco_val_img_dir']) == _digests(
        demo['coco_val_img_dir'])
    with open(paths['coco_val_ann']) as f1, open(demo['coco_val_ann']) as f2:
        assert f1.read() == f2.read()
    assert len(os.listdir(paths['coco_train_img_dir'])) == 2


def test_scene_geometry():
    rng = np.random.default_rng(123)
    for width, height in ((320, 240), (128, 96), (96, 160)):
        for _ in range(40):
            scene = sample_scene(rng, width, height)
            assert 1 <= len(scene.objects) <= 5
            occupied = np.zeros((height, width), np.int32)
            for obj, ann in zip(scene.objects, scene_annotations(scene)):
                poly = object_polygon(obj)
                assert poly.dtype == np.float64
                assert len(poly) == {0: 32, 1: 4, 2: 3}[obj.label]
                assert poly.min() >= 0
                assert (poly[:, 0] <= width).all()
                assert (poly[:, 1] <= height).all()
                flat = np.array(ann['polygon']).reshape(-1, 2)
                # Rounded to 2 decimals: 0.005, plus float rounding.
                np.testing.assert_allclose(flat, poly, rtol=0,
                                           atol=0.005 + 1e-9)
                x1, y1, x2, y2 = ann['bbox']
                assert [x1, y1] == flat.min(0).tolist()
                assert [x2, y2] == flat.max(0).tolist()
                assert ann['area'] > 0
                mask = np.zeros_like(occupied, np.uint8)
                cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
                occupied += mask
            assert occupied.max() <= 1, 'objects overlap'
            for i, a in enumerate(scene.objects):
                for b in scene.objects[i + 1:]:
                    dist = np.hypot(a.cx - b.cx, a.cy - b.cy)
                    assert dist > (a.size + b.size) / 2


def test_render_deterministic_and_background_only_from_seed():
    scene = sample_scene(np.random.default_rng(7), 160, 120)
    img = render_scene(scene)
    assert img.shape == (120, 160, 3) and img.dtype == np.uint8
    np.testing.assert_array_equal(img, render_scene(scene))
    background = render_background(scene.background_seed, 160, 120)
    assert (img != background).any()
    scene.objects = []
    np.testing.assert_array_equal(render_scene(scene), background)


def test_coco_layout_loads_with_mmdet(demo):
    from mmdet.datasets import CocoDataset
    from mmdet.utils import register_all_modules
    register_all_modules()
    expected = _expected_boxes('val', SMALL['num_val'])
    dataset = CocoDataset(
        data_root=demo['coco_root'],
        ann_file='annotations/instances_val2017.json',
        data_prefix=dict(img='val2017/'),
        metainfo=dict(classes=DEMO_CLASSES),
        pipeline=[
            dict(type='LoadImageFromFile'),
            dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
            dict(type='PackDetInputs')
        ])
    assert len(dataset) == SMALL['num_val']
    num_instances = 0
    for i in range(len(dataset)):
        sample = dataset[i]['data_samples']
        stem = osp.splitext(osp.basename(sample.img_path))[0]
        labels, boxes = expected[stem]
        gt = sample.gt_instances
        assert sample.img_shape == (96, 128)
        np.testing.assert_array_equal(gt.labels.numpy(), labels)
        # The json's [x1, y1, x2 - x1, y2 - y1] (2 decimals) back to x2
        # (1e-13 off), then mmdet's float32 (relative rounding 2**-24).
        np.testing.assert_allclose(gt.bboxes.numpy(), boxes, rtol=2**-24,
                                   atol=1e-9)
        assert len(gt.masks) == len(labels)
        num_instances += len(labels)
    assert num_instances == sum(len(v[0]) for v in expected.values())
    train = CocoDataset(
        data_root=demo['coco_root'],
        ann_file='annotations/instances_train2017.json',
        data_prefix=dict(img='train2017/'),
        metainfo=dict(classes=DEMO_CLASSES),
        pipeline=[])
    assert len(train) == SMALL['num_train']


def test_voc_layout_loads_with_mmdet(demo):
    from mmdet.datasets import VOCDataset
    from mmdet.utils import register_all_modules
    register_all_modules()
    expected = _expected_boxes('val', SMALL['num_val'])
    dataset = VOCDataset(
        data_root=demo['voc_devkit'],
        ann_file='VOC2007/ImageSets/Main/test.txt',
        data_prefix=dict(sub_data_root='VOC2007/'),
        metainfo=dict(classes=DEMO_CLASSES),
        test_mode=True,
        pipeline=[
            dict(type='LoadImageFromFile'),
            dict(type='LoadAnnotations', with_bbox=True),
            dict(type='PackDetInputs')
        ])
    assert len(dataset) == SMALL['num_val']
    for i in range(len(dataset)):
        sample = dataset[i]['data_samples']
        labels, boxes = expected[osp.splitext(
            osp.basename(sample.img_path))[0]]
        got_labels, got_boxes = _sorted(sample.gt_instances.labels.numpy(),
                                        sample.gt_instances.bboxes.numpy())
        # Exactly: VOC's first and last covered pixels, from 1 (floor + 1
        # and ceil), less the 1 mmdet subtracts.
        want_labels, want_boxes = _sorted(
            labels,
            np.concatenate([np.floor(boxes[:, :2]),
                            np.ceil(boxes[:, 2:]) - 1], 1))
        np.testing.assert_array_equal(got_labels, want_labels)
        np.testing.assert_array_equal(got_boxes, want_boxes)
    # VOC and COCO share the encoded JPEG bytes.
    coco = _digests(demo['coco_val_img_dir'])
    voc = _digests(demo['voc_img_dir'])
    assert all(voc[name] == digest for name, digest in coco.items())


@pytest.mark.parametrize('split', ['train', 'val'])
def test_cityscapes_layout_loads_with_mmdet(demo, split):
    from mmdet.datasets import CityscapesDataset
    from mmdet.utils import register_all_modules
    register_all_modules()
    num = SMALL[f'num_{split}']
    expected = _expected_boxes(split, num)
    dataset = CityscapesDataset(
        data_root=demo['cityscapes_root'],
        ann_file=f'annotations/instancesonly_filtered_gtFine_{split}.json',
        data_prefix=dict(img=f'leftImg8bit/{split}/'),
        metainfo=dict(classes=tuple(CITYSCAPES_LABELS[c]
                                    for c in DEMO_CLASSES)),
        test_mode=True,
        pipeline=[
            dict(type='LoadImageFromFile'),
            dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
            dict(type='PackDetInputs')
        ])
    assert len(dataset) == num
    # mmdet numbers classes by ascending Cityscapes id, whatever the
    # metainfo order; the demo mapping keeps that order equal to
    # DEMO_CLASSES, so label i means the same class in every layout.
    from cityscapesscripts.helpers.labels import id2label
    assert cityscapes_label_order() == DEMO_CLASSES
    for cat_id, label in dataset.cat2label.items():
        assert CITYSCAPES_LABELS[DEMO_CLASSES[label]] == id2label[cat_id].name
    total = 0
    for i in range(len(dataset)):
        sample = dataset[i]['data_samples']
        stem = osp.basename(sample.img_path).split('_')[2]
        labels, boxes = expected[stem]
        gt = sample.gt_instances
        got_labels, got_boxes = _sorted(
            [int(label) for label in gt.labels],
            gt.bboxes.numpy())
        want_labels, want_boxes = _sorted(labels, boxes)
        np.testing.assert_array_equal(got_labels, want_labels)
        # Boxes of the instance masks, rasterised from the polygon rounded
        # to whole pixels (0.5 off), end after their last pixel (+1).
        diff = got_boxes - want_boxes
        assert np.abs(diff[:, :2]).max() <= 0.5
        assert np.abs(diff[:, 2:]).max() <= 1.5
        assert len(gt.masks) == len(labels)
        total += len(labels)
    assert total == sum(len(v[0]) for v in expected.values())


def _run_cli(out_dir, *extra):
    return run_tool(
        osp.join(REPO_ROOT, 'demo', 'make_demo_data.py'), '--out-dir',
        out_dir, '--num-train', '2', '--num-val', '2', '--size', '64', '48',
        *extra, cwd=REPO_ROOT, timeout=120)


def test_cli(tmp_path):
    out_dir = tmp_path / 'cli'
    first = _run_cli(out_dir)
    assert first.returncode == 0, first.stderr
    assert 'coco_val_ann' in first.stdout
    assert str(out_dir / 'VOCdevkit') in first.stdout
    before = _digests(str(out_dir))
    # Another process gives the same bytes.
    same = generate_demo_data(
        str(tmp_path / 'in_process'), num_train=2, num_val=2, size=(64, 48))
    assert _digests(same['out_dir']) == before
    mtimes = {p: os.stat(out_dir / p).st_mtime_ns for p in before}
    assert f'cityscapes{os.sep}annotations{os.sep}' \
        'instancesonly_filtered_gtFine_val.json' in before

    second = _run_cli(out_dir)
    assert second.returncode == 0, second.stderr
    assert 'up to date' in second.stdout
    assert _digests(str(out_dir)) == before
    assert {p: os.stat(out_dir / p).st_mtime_ns for p in before} == mtimes

    unrelated = tmp_path / 'unrelated'
    unrelated.mkdir()
    (unrelated / 'notes.txt').write_text('keep me\n')
    bad = _run_cli(unrelated)
    assert bad.returncode != 0
    lines = bad.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: '), bad.stderr
    assert os.listdir(unrelated) == ['notes.txt']


def test_out_dir_checks(tmp_path):
    tiny = dict(num_train=1, num_val=1, size=(48, 32), layouts=('voc', ))
    out_dir = str(tmp_path / 'out')
    paths = generate_demo_data(out_dir, **tiny)
    with open(paths['meta_file']) as f:
        assert json.load(f)['layouts'] == ['voc']
    with pytest.raises(ValueError, match='other parameters'):
        generate_demo_data(out_dir, seed=3, **tiny)
    paths = generate_demo_data(out_dir, seed=3, overwrite=True, **tiny)
    with open(paths['meta_file']) as f:
        assert json.load(f)['seed'] == 3
    # A missing layout with the same parameters is added.
    tiny['layouts'] = ('voc', 'coco')
    paths = generate_demo_data(out_dir, seed=3, **tiny)
    assert osp.isfile(paths['coco_val_ann'])
    assert sorted(os.listdir(out_dir)) == ['VOCdevkit', 'coco', META_FILE]
    with pytest.raises(ValueError, match='layouts'):
        generate_demo_data(str(tmp_path / 'x'), layouts=('kitti', ))
    (tmp_path / 'junk').mkdir()
    (tmp_path / 'junk' / 'a.txt').write_text('')
    for overwrite in (False, True):
        with pytest.raises(ValueError, match='not empty'):
            generate_demo_data(
                str(tmp_path / 'junk'), overwrite=overwrite, **tiny)


@pytest.mark.cpu_sensitive
def test_small_demo_data_is_the_committed_checkpoints(demo_dir):
    """The tests' small demo data is byte for byte the data the committed
    demo checkpoint was trained on (its generator blurs and resizes
    floats with OpenCV before encoding): on a CPU where this fails, every
    score of `demo_checkpoint` is of other images."""
    from tests.conftest import SMALL_DEMO_SHA256, sha256_tree
    assert sha256_tree(demo_dir) == SMALL_DEMO_SHA256


@pytest.mark.parametrize('script', ['demo.py', 'make_demo_data.py'])
def test_former_tool_paths_still_run(script):
    """tools/demo.py and tools/make_demo_data.py moved to demo/; the old
    paths run the new scripts for one release, saying so."""
    proc = run_tool(osp.join(REPO_ROOT, 'tools', script), '--help',
                    cwd=REPO_ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f'tools/{script} is deprecated: run demo/{script}' in proc.stderr
    assert proc.stdout.startswith(f'usage: {script}')
