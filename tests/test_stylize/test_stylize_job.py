# Copyright (c) robustdet contributors. All rights reserved.
"""Stylizing the small demo dataset in its COCO, VOC and Cityscapes
layouts with the generated AdaIN weights: exact output sizes, seeded style
assignment, resume, annotation files that mmdet's datasets load, the
stylized and combined training sets, the out-of-memory fallback and the
bad inputs."""
import csv
import json
import os
import os.path as osp
import shutil

import cv2
import numpy as np
import pytest
import torch
from mmdet.registry import DATASETS

from demo_data.styles import write_style_images
from robustdet.stylize import (CityscapesLayout, CocoLayout, StylizeJob,
                               Stylizer, VocLayout, assign_style,
                               make_demo_adain, run_stylize)
from robustdet.stylize.job import ASSIGNMENTS, MANIFEST, to_uint8
from robustdet.utils import RobustDetError

# Stylize at this shorter side (then resized back): keeps the tests fast.
SMALL = 32


@pytest.fixture(scope='module')
def model():
    return make_demo_adain()


@pytest.fixture(scope='module')
def styles(tmp_path_factory):
    out = str(tmp_path_factory.mktemp('styles'))
    write_style_images(out, num=5, size=(48, 40))
    return out


def coco_layout(demo_dir, split='train2017'):
    return CocoLayout(
        osp.join(demo_dir, 'coco', 'annotations', f'instances_{split}.json'),
        osp.join(demo_dir, 'coco', split))


def clean_coco_cfg(root):
    """mmdet's CocoDataset on the demo COCO train set under ``root``."""
    return dict(
        type='CocoDataset',
        data_root=str(root) + '/',
        ann_file='annotations/instances_train2017.json',
        data_prefix=dict(img='train2017/'),
        metainfo=dict(classes=('disc', 'square', 'triangle')),
        filter_cfg=dict(filter_empty_gt=False),
        pipeline=[dict(type='LoadImageFromFile')])


def image_size(path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    return img.shape[:2]


def test_coco_exact_sizes_annotations_and_records(demo_dir, styles, model,
                                                  tmp_path):
    # One odd-sized image (not a multiple of 8) among the inputs.
    src = tmp_path / 'src'
    shutil.copytree(osp.join(demo_dir, 'coco'), src)
    ann_file = src / 'annotations' / 'instances_train2017.json'
    coco = json.loads(ann_file.read_text())
    odd = coco['images'][0]
    path = src / 'train2017' / odd['file_name']
    cv2.imwrite(str(path), cv2.resize(cv2.imread(str(path)), (45, 37)))
    odd['width'], odd['height'] = 45, 37
    ann_file.write_text(json.dumps(coco))

    out = tmp_path / 'out'
    job = StylizeJob(
        CocoLayout(str(ann_file), str(src / 'train2017')), styles, str(out),
        style_size=SMALL)
    result = run_stylize(job, model=model, progress=False)
    assert result['complete'] and result['written'] == len(coco['images'])
    for img in coco['images']:
        stylized = out / 'train2017' / img['file_name']
        assert image_size(str(stylized)) == (img['height'], img['width'])
        original = cv2.imread(str(src / 'train2017' / img['file_name']))
        assert not np.array_equal(cv2.imread(str(stylized)), original)
    assert json.loads((out / 'annotations' /
                       'instances_train2017.json').read_text()) == coco
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest['status'] == 'complete'
    assert manifest['settings']['alpha'] == 1.0
    with open(out / ASSIGNMENTS) as f:
        rows = list(csv.DictReader(f))
    assert [r['image'] for r in rows] == [i['file_name'] for i in
                                          coco['images']]
    names = sorted(os.listdir(styles))
    for r in rows:
        assert r['style'] == names[assign_style(0, r['image'], 0,
                                                len(names))]

    # mmdet's CocoDataset reads the stylized copy through StylizedDataset.
    clean = clean_coco_cfg(src)
    stylized = DATASETS.build(
        dict(type='StylizedDataset', dataset=clean,
             stylized_root=str(out)))
    clean_ds = DATASETS.build(clean)
    assert len(stylized) == len(clean_ds) == len(coco['images'])
    item = stylized[0]
    assert item['img_path'].startswith(str(out))
    assert item['img'].shape[:2] == clean_ds[0]['img'].shape[:2]
    assert stylized.get_data_info(0)['instances'] == \
        clean_ds.get_data_info(0)['instances']
    combined = DATASETS.build(
        dict(type='ConcatDataset', datasets=[clean, dict(
            type='StylizedDataset', dataset=clean,
            stylized_root=str(out))]))
    assert len(combined) == 2 * len(clean_ds)
    paths = [combined.get_data_info(i)['img_path']
             for i in range(len(combined))]
    assert sum(p.startswith(str(src)) for p in paths) == len(clean_ds)
    assert sum(p.startswith(str(out)) for p in paths) == len(clean_ds)


def test_assignment_is_seeded_and_spread():
    picks = [assign_style(0, f'img_{i}.jpg', 0, 7) for i in range(700)]
    assert picks == [assign_style(0, f'img_{i}.jpg', 0, 7)
                     for i in range(700)]
    assert set(picks) == set(range(7))
    # A stable hash, so no CPU enters; a uniform pick gives counts of 100
    # +- 9.3 (binomial), so 200 is 10 standard deviations away.
    assert max(np.bincount(picks)) < 2 * 700 / 7
    assert picks != [assign_style(1, f'img_{i}.jpg', 0, 7)
                     for i in range(700)]
    assert picks != [assign_style(0, f'img_{i}.jpg', 1, 7)
                     for i in range(700)]


def test_resume_after_interruption_gives_the_same_output(
        demo_dir, styles, model, tmp_path):
    full = StylizeJob(coco_layout(demo_dir), styles, str(tmp_path / 'a'),
                      content_size=SMALL, style_size=SMALL)
    run_stylize(full, model=model, progress=False)

    job = StylizeJob(coco_layout(demo_dir), styles, str(tmp_path / 'b'),
                     content_size=SMALL, style_size=SMALL)
    first = run_stylize(job, model=model, limit=3, progress=False)
    assert not first['complete'] and first['written'] == 3
    manifest = json.loads((tmp_path / 'b' / MANIFEST).read_text())
    assert manifest['status'] == 'running'
    assert not (tmp_path / 'b' / 'annotations').exists()
    with pytest.raises(RobustDetError, match='not finished'):
        DATASETS.build(
            dict(type='StylizedDataset', stylized_root=str(tmp_path / 'b'),
                 dataset=dict(type='CocoDataset', data_root='x')))
    rest = run_stylize(job, model=model, progress=False)
    assert rest['complete'] and rest['written'] == 5
    again = run_stylize(job, model=model, progress=False)
    assert again['written'] == 0 and again['complete']
    for name in os.listdir(tmp_path / 'a' / 'train2017'):
        a = (tmp_path / 'a' / 'train2017' / name).read_bytes()
        assert a == (tmp_path / 'b' / 'train2017' / name).read_bytes()
    for name in (ASSIGNMENTS, 'annotations/instances_train2017.json'):
        assert (tmp_path / 'a' / name).read_bytes() == (
            tmp_path / 'b' / name).read_bytes()
    # Other settings into the same directory are refused.
    with pytest.raises(RobustDetError, match='alpha'):
        run_stylize(
            StylizeJob(coco_layout(demo_dir), styles, str(tmp_path / 'b'),
                       content_size=SMALL, style_size=SMALL, alpha=0.5),
            model=model, progress=False)


def test_voc_layout_loads_in_mmdet(demo_dir, styles, model, tmp_path):
    devkit = osp.join(demo_dir, 'VOCdevkit')
    out = tmp_path / 'voc'
    job = StylizeJob(VocLayout(devkit), styles, str(out), content_size=SMALL,
                     style_size=SMALL, batch_size=4)
    assert run_stylize(job, model=model, progress=False)['complete']
    ids = (osp.join(devkit, 'VOC2007', 'ImageSets', 'Main',
                    'trainval.txt'))
    with open(ids) as f:
        ids = f.read().split()
    assert (out / 'VOC2007' / 'ImageSets' / 'Main' /
            'trainval.txt').read_text().split() == ids
    assert not (out / 'VOC2007' / 'ImageSets' / 'Main' / 'test.txt').exists()
    for i in ids:
        src = osp.join(devkit, 'VOC2007', 'JPEGImages', f'{i}.jpg')
        assert image_size(str(out / 'VOC2007' / 'JPEGImages' /
                              f'{i}.jpg')) == image_size(src)
    clean = dict(
        type='VOCDataset',
        data_root=devkit + '/',
        ann_file='VOC2007/ImageSets/Main/trainval.txt',
        data_prefix=dict(sub_data_root='VOC2007/'),
        metainfo=dict(classes=('disc', 'square', 'triangle')),
        pipeline=[dict(type='LoadImageFromFile')])
    stylized = DATASETS.build(
        dict(type='StylizedDataset', dataset=clean, stylized_root=str(out)))
    clean_ds = DATASETS.build(clean)
    assert len(stylized) == len(clean_ds) == len(ids)
    assert stylized.get_data_info(0)['instances'] == \
        clean_ds.get_data_info(0)['instances']


def test_cityscapes_layout_loads_in_mmdet(demo_dir, styles, model,
                                          tmp_path):
    root = osp.join(demo_dir, 'cityscapes')
    out = tmp_path / 'city'
    job = StylizeJob(CityscapesLayout(osp.join(root, 'leftImg8bit')),
                     styles, str(out), content_size=SMALL, style_size=SMALL)
    assert run_stylize(job, model=model, progress=False)['complete']
    layout = CityscapesLayout(root)
    for name in layout.names:
        assert image_size(str(out / name)) == image_size(
            osp.join(root, name))
        for gt in layout._gt_files(name):
            assert (out / gt).read_bytes() == open(osp.join(root, gt),
                                                   'rb').read()
    assert not (out / 'leftImg8bit' / 'val').exists()
    clean = dict(
        type='CityscapesDataset',
        data_root=root + '/',
        ann_file='annotations/instancesonly_filtered_gtFine_train.json',
        data_prefix=dict(img='leftImg8bit/train/'),
        metainfo=dict(classes=('disc', 'square', 'triangle')),
        filter_cfg=dict(filter_empty_gt=False),
        pipeline=[dict(type='LoadImageFromFile')])
    stylized = DATASETS.build(
        dict(type='StylizedDataset', dataset=clean, stylized_root=str(out)))
    assert len(stylized) == len(DATASETS.build(clean)) == len(layout.names)
    assert osp.isfile(stylized[0]['img_path'])


def test_several_copies_and_unreadable_images(demo_dir, styles, model,
                                              tmp_path):
    src = tmp_path / 'src'
    shutil.copytree(osp.join(demo_dir, 'coco'), src)
    coco = json.loads(
        (src / 'annotations' / 'instances_train2017.json').read_text())
    broken = coco['images'][1]['file_name']
    (src / 'train2017' / broken).write_bytes(b'\xff\xd8 truncated')
    out = tmp_path / 'out'
    job = StylizeJob(
        CocoLayout(str(src / 'annotations' / 'instances_train2017.json'),
                   str(src / 'train2017')),
        styles, str(out), num_styles=2, content_size=SMALL, style_size=SMALL)
    result = run_stylize(job, model=model, progress=False)
    assert [k for k, _ in result['skipped']] == [broken]
    assert result['written'] == 2 * (len(coco['images']) - 1)
    for k in range(2):
        written = json.loads((out / f'copy{k}' / 'annotations' /
                              'instances_train2017.json').read_text())
        assert broken not in [i['file_name'] for i in written['images']]
        assert len(written['images']) == len(coco['images']) - 1
        assert not any(a['image_id'] == coco['images'][1]['id']
                       for a in written['annotations'])
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest['skipped'][0][0] == broken
    with open(out / ASSIGNMENTS) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * (len(coco['images']) - 1)
    assert any(r['style'] != s['style'] for r, s in zip(rows[0::2],
                                                        rows[1::2]))
    clean = clean_coco_cfg(src)
    both = DATASETS.build(
        dict(type='StylizedDataset', dataset=clean, stylized_root=str(out)))
    assert len(both) == 2 * (len(coco['images']) - 1)


class OutOfMemoryAbove(Stylizer):
    """Stands in for a device with little memory: batches of more than
    one image, or of more than ``pixels`` pixels, raise torch's
    out-of-memory error there (the CPU fallback works). Records what it
    returns for each (content, style) input."""

    def __init__(self, *args, pixels, **kwargs):
        super().__init__(*args, **kwargs)
        self.pixels = pixels
        self.outputs = {}

    def _apply(self, x, mean, std, on_fallback):
        if not on_fallback and (x.shape[0] > 1
                                or x.shape[-1] * x.shape[-2] > self.pixels):
            raise torch.OutOfMemoryError('CUDA out of memory (test)')
        return super()._apply(x, mean, std, on_fallback)

    def __call__(self, x, mean, std):
        out = super().__call__(x, mean, std)
        for inputs in zip(x, mean, std, out):
            key = b''.join(t.numpy().tobytes() for t in inputs[:3])
            self.outputs[key] = inputs[3]
        return out


@pytest.mark.cpu_sensitive
def test_out_of_memory_splits_batches_then_falls_back_to_cpu(
        demo_dir, styles, model, tmp_path):
    runs = {}
    for name, batch_size, pixels in (('plain', 1, 10**6), ('tight', 4, 32 *
                                                           32),
                                     ('roomy', 4, 10**6)):
        job = StylizeJob(coco_layout(demo_dir), styles, str(tmp_path / name),
                         content_size=SMALL, style_size=SMALL,
                         batch_size=batch_size)
        runs[name] = OutOfMemoryAbove(model, 'cpu', 1.0, pixels=pixels)
        result = run_stylize(job, stylizer=runs[name], progress=False)
        assert result['complete'] and not result['skipped']
        assert result['written'] == 8
    assert runs['plain'].cpu_fallbacks == runs['roomy'].cpu_fallbacks == 0
    assert runs['tight'].cpu_fallbacks == 8
    # Batched or not, each image is stylized alike: the same convolutions,
    # at most summed in another order by the kernel a batch size picks
    # (float32 rounding, orders of magnitude below half a grey level;
    # measured: equal on AVX2), so rounded to uint8 (to_uint8, before the
    # resize and the JPEG) at most 1 grey level apart.
    plain = runs['plain'].outputs
    assert len(plain) == 8
    for other in ('tight', 'roomy'):
        assert runs[other].outputs.keys() == plain.keys()
        for key, out in runs[other].outputs.items():
            assert (out - plain[key]).abs().max() < 0.5 / 255
            diff = to_uint8(out).astype(int) - to_uint8(plain[key])
            assert np.abs(diff).max() <= 1
    # and each result is written to its own image's file: every file is
    # nearest to the plain run's file of the same name.
    folder = 'train2017'
    names = sorted(os.listdir(tmp_path / 'plain' / folder))
    written = {
        (run, name): cv2.imread(str(tmp_path / run / folder / name)).astype(
            int)
        for run in runs for name in names
    }
    for run in ('tight', 'roomy'):
        assert sorted(os.listdir(tmp_path / run / folder)) == names
        for name in names:
            nearest = min(
                names, key=lambda other: np.abs(
                    written[run, name] - written['plain', other]).mean())
            assert nearest == name, (run, name)


def test_bad_inputs(demo_dir, styles, tmp_path):
    layout = coco_layout(demo_dir)
    empty = tmp_path / 'empty'
    empty.mkdir()
    with pytest.raises(RobustDetError, match='no style images'):
        StylizeJob(layout, str(empty), str(tmp_path / 'o1'))
    with pytest.raises(RobustDetError, match='alpha must be in'):
        StylizeJob(layout, styles, str(tmp_path / 'o2'), alpha=1.5)
    with pytest.raises(RobustDetError, match='inside the input tree'):
        StylizeJob(layout, styles,
                   osp.join(demo_dir, 'coco', 'train2017', 'stylized'))
    with pytest.raises(RobustDetError, match='inside the input tree'):
        StylizeJob(layout, styles, osp.join(styles, 'out'))
    # An annotation file whose images are missing: nothing is written.
    coco = json.loads(open(layout.ann_file).read())
    coco['images'][2]['file_name'] = 'missing.jpg'
    bad_ann = tmp_path / 'bad.json'
    bad_ann.write_text(json.dumps(coco))
    with pytest.raises(RobustDetError, match='1 of 8 images.*missing.jpg'):
        CocoLayout(str(bad_ann), layout.img_root)
    assert not (tmp_path / 'o1').exists() and not (tmp_path / 'o2').exists()
    # A style image that cannot be read: named in the error.
    bad_styles = tmp_path / 'bad_styles'
    shutil.copytree(styles, bad_styles)
    for name in os.listdir(bad_styles):
        (bad_styles / name).write_bytes(b'not an image')
    job = StylizeJob(layout, str(bad_styles), str(tmp_path / 'o3'),
                     content_size=SMALL, style_size=SMALL)
    with pytest.raises(RobustDetError, match='cannot read style image'):
        run_stylize(job, model=make_demo_adain(), progress=False)
    assert not (tmp_path / 'o3' / 'train2017').exists()
