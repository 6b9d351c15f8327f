# Copyright (c) robustdet contributors. All rights reserved.
"""BDD100kDataset, its COCO export and the synthetic BDD100k tree."""
import hashlib
import json
import os
import os.path as osp

import numpy as np
import pytest
import torch
from mmdet.datasets import CocoDataset
from mmdet.evaluation import CocoMetric
from mmdet.registry import DATASETS
from mmengine.structures import InstanceData

from demo_data.bdd100k import generate_bdd100k_demo
from robustdet.datasets import (BDD100K_CLASSES, BDD100kDataset,
                                write_coco_annotations)
from robustdet.datasets.bdd100k import (BDD100K_IGNORED_MAPPING,
                                        BDD100K_NAME_MAPPING)
from robustdet.utils import RobustDetError

IMG_SIZE = (72, 128)
PIPELINE = [
    dict(type='LoadImageFromFile'),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(type='PackDetInputs'),
]


@pytest.fixture(scope='module')
def bdd(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('bdd') / 'bdd100k')
    out = generate_bdd100k_demo(root, seed=0, num_val=24, num_train=0)
    assert out['img_size'] == IMG_SIZE
    with open(out['labels']['val']) as f:
        out['frames'] = json.load(f)
    return out


def _build(root, **kwargs):
    cfg = dict(
        type='BDD100kDataset',
        data_root=root,
        img_size=IMG_SIZE,
        test_mode=True,
        pipeline=[])
    cfg.update(kwargs)
    return DATASETS.build(cfg)


def _infos(ds):
    return [ds.get_data_info(i) for i in range(len(ds))]


def _write_labels(path, frames):
    with open(path, 'w') as f:
        json.dump(frames, f)
    return str(path)


def _frame(name, labels=None, **attributes):
    frame = dict(
        name=name,
        attributes=dict(
            dict(weather='clear', timeofday='daytime', scene='highway'),
            **attributes))
    if labels is not None:
        frame['labels'] = labels
    return frame


def _box(category, x1, y1, x2, y2, **attributes):
    return dict(
        id='0',
        category=category,
        attributes=attributes,
        box2d=dict(x1=x1, y1=y1, x2=x2, y2=y2))


def test_loads_through_the_mmdet_pipeline(bdd):
    ds = _build(bdd['root'], pipeline=PIPELINE)
    assert isinstance(ds, BDD100kDataset)
    assert ds.metainfo['classes'] == BDD100K_CLASSES
    assert len(ds.metainfo['palette']) == len(BDD100K_CLASSES)
    assert len(ds) == len(bdd['frames'])
    infos = _infos(ds)
    assert [i['file_name'] for i in infos] == [
        f['name'] for f in bdd['frames']
    ]
    assert [i['img_id'] for i in infos] == list(range(1, len(infos) + 1))
    # Every kind of box occurs in the demo labels.
    flags = {inst['ignore_flag'] for i in infos for inst in i['instances']}
    assert flags == {0, 1}
    idx = next(k for k, i in enumerate(infos)
               if any(inst['ignore_flag'] for inst in i['instances']))
    item = ds[idx]
    assert item['inputs'].shape == (3, ) + IMG_SIZE
    sample = item['data_samples']
    assert sample.img_id == infos[idx]['img_id']
    assert sample.ori_shape == IMG_SIZE
    gt = [x for x in infos[idx]['instances'] if not x['ignore_flag']]
    ignored = [x for x in infos[idx]['instances'] if x['ignore_flag']]
    # exact: the demo's boxes are whole pixels, exact in float32
    np.testing.assert_array_equal(sample.gt_instances.bboxes.tensor.numpy(),
                                  np.array([x['bbox'] for x in gt]).reshape(
                                      -1, 4))
    assert sample.gt_instances.labels.tolist() == [
        x['bbox_label'] for x in gt
    ]
    assert len(sample.ignored_instances) == len(ignored)


def test_category_mapping_ignore_flags_and_boxes(tmp_path):
    assert BDD100K_NAME_MAPPING == {
        'bike': 'bicycle', 'caravan': 'car', 'motor': 'motorcycle',
        'person': 'pedestrian', 'van': 'car'
    }
    assert BDD100K_IGNORED_MAPPING == {
        'other person': 'pedestrian', 'other vehicle': 'car',
        'trailer': 'truck'
    }
    labels = [
        _box('car', 10, 20, 29, 39),
        _box('person', 0, 0, 9, 9),
        _box('bike', 0, 0, 9, 9),
        _box('motor', 0, 0, 9, 9),
        _box('van', 0, 0, 9, 9),
        _box('caravan', 0, 0, 9, 9),
        _box('other person', 0, 0, 9, 9),
        _box('other vehicle', 0, 0, 9, 9),
        _box('trailer', 0, 0, 9, 9),
        _box('bus', 0, 0, 9, 9, crowd=True),
        _box('traffic light', 5, 5, 3, 9, trafficLightColor='red'),
        dict(id='9', category='drivable area', poly2d=[]),
        dict(id='10', category='lane', poly2d=[]),
    ]
    ann = _write_labels(tmp_path / 'det.json', [
        _frame('a.jpg', labels),
        _frame('b.jpg'),
        _frame('c.jpg', []),
    ])
    ds = BDD100kDataset(ann_file=ann, data_prefix=dict(img='imgs/'))
    a, b, c = _infos(ds)
    assert a['img_path'] == osp.join('imgs', 'a.jpg')
    assert (a['height'], a['width']) == (720, 1280)
    got = [(BDD100K_CLASSES[x['bbox_label']], x['ignore_flag'])
           for x in a['instances']]
    assert got == [('car', 0), ('pedestrian', 0), ('bicycle', 0),
                   ('motorcycle', 0), ('car', 0), ('car', 0),
                   ('pedestrian', 1), ('car', 1), ('truck', 1), ('bus', 1)]
    # x2/y2 are the last pixel inside the box (Scalabel convention).
    assert a['instances'][0]['bbox'] == [10.0, 20.0, 30.0, 40.0]
    assert b['instances'] == [] and c['instances'] == []
    # A class subset keeps its boxes only, labels index the subset.
    ds = BDD100kDataset(
        ann_file=ann, metainfo=dict(classes=('truck', 'car')),
        img_size=(10, 20))
    a = _infos(ds)[0]
    assert (a['height'], a['width']) == (10, 20)
    assert [(x['bbox_label'], x['ignore_flag'])
            for x in a['instances']] == [(1, 0), (1, 0), (1, 0), (1, 1),
                                         (0, 1)]


def test_filters_and_file_list(bdd, tmp_path):
    frames = bdd['frames']
    for kwargs in (dict(weather='rainy'),
                   dict(weather=['snowy', 'clear'], timeofday='night'),
                   dict(scene='city street', timeofday=('daytime', ))):
        ds = _build(bdd['root'], **kwargs)
        want = [
            (i + 1, f['name']) for i, f in enumerate(frames)
            if all(f['attributes'][k] in ([v] if isinstance(v, str) else v)
                   for k, v in kwargs.items())
        ]
        assert want
        assert [(i['img_id'], i['file_name']) for i in _infos(ds)] == want
    # A file list keeps its order; filters apply on top.
    names = [frames[5]['name'], frames[0]['name'], frames[3]['name']]
    (tmp_path / 'list.txt').write_text('\n'.join(names) + '\n\n')
    ds = _build(bdd['root'], file_list=str(tmp_path / 'list.txt'))
    assert [i['img_id'] for i in _infos(ds)] == [6, 1, 4]
    weather = frames[0]['attributes']['weather']
    ds = _build(bdd['root'], file_list=str(tmp_path / 'list.txt'),
                weather=weather)
    assert [i['file_name'] for i in _infos(ds)] == [
        n for n in names
        if next(f for f in frames
                if f['name'] == n)['attributes']['weather'] == weather
    ]


def test_filter_cfg_outside_test_mode(bdd):
    infos = _infos(_build(bdd['root']))
    ds = _build(bdd['root'], test_mode=False,
                filter_cfg=dict(filter_empty_gt=True))
    assert len(ds) == sum(bool(i['instances']) for i in infos) < len(infos)
    assert len(_build(bdd['root'], test_mode=False,
                      filter_cfg=dict(min_size=72))) == len(infos)
    assert len(_build(bdd['root'], test_mode=False, serialize_data=False,
                      filter_cfg=dict(min_size=73))) == 0


def test_user_errors(bdd, tmp_path):
    root = bdd['root']
    with pytest.raises(RobustDetError, match=r"unknown weather 'sunny'; "
                       r'valid: clear, .*snowy'):
        _build(root, weather=['clear', 'sunny'])
    with pytest.raises(RobustDetError, match="unknown scene 'beach'"):
        _build(root, scene='beach')
    with pytest.raises(RobustDetError, match='img_size'):
        _build(root, img_size=(720, ))
    (tmp_path / 'list.txt').write_text(
        f'{bdd["frames"][2]["name"]}\nnope.jpg\nnada.jpg\n')
    with pytest.raises(RobustDetError,
                       match=r"'nope.jpg' of .*list.txt is not a frame"):
        _build(root, file_list=str(tmp_path / 'list.txt'))
    with pytest.raises(RobustDetError, match='file list not found'):
        _build(root, file_list='missing.txt')
    with pytest.raises(RobustDetError, match='labels file not found'):
        _build(root, ann_file='labels/det_20/det_test.json')
    with pytest.raises(RobustDetError, match='no frame of .* is selected'):
        _build(root, weather='foggy', timeofday='daytime', scene='tunnel')

    bad = [_frame('a.jpg', [_box('car', 0, 0, 1, 1)]),
           _frame('b.jpg', [_box('tram', 0, 0, 1, 1)])]
    ann = _write_labels(tmp_path / 'bad.json', bad)
    with pytest.raises(RobustDetError,
                       match=r"unknown category 'tram' in frame 'b.jpg'"):
        BDD100kDataset(ann_file=ann)
    no_weather = [_frame('a.jpg'), dict(name='b.jpg',
                                        attributes=dict(scene='highway'))]
    ann = _write_labels(tmp_path / 'attr.json', no_weather)
    assert len(BDD100kDataset(ann_file=ann, scene='highway')) == 2
    with pytest.raises(RobustDetError,
                       match="frame 'b.jpg' has no weather attribute"):
        BDD100kDataset(ann_file=ann, weather='clear')
    with pytest.raises(RobustDetError, match='is not a BDD100k detection'):
        BDD100kDataset(ann_file=ann, metainfo=dict(classes=('car', 'cat')))
    ann = _write_labels(tmp_path / 'dup.json', [_frame('a.jpg')] * 2)
    with pytest.raises(RobustDetError, match="'a.jpg' appears twice"):
        BDD100kDataset(ann_file=ann)


def _perfect_predictions(infos, skip=()):
    samples = []
    for info in infos:
        if info['img_id'] in skip:
            continue
        gt = [x for x in info['instances'] if not x['ignore_flag']]
        samples.append(
            dict(
                img_id=info['img_id'],
                ori_shape=(info['height'], info['width']),
                pred_instances=dict(
                    bboxes=torch.tensor([x['bbox'] for x in gt],
                                        dtype=torch.float32).reshape(-1, 4),
                    scores=torch.linspace(1, 0.5, len(gt)),
                    labels=torch.tensor([x['bbox_label'] for x in gt],
                                        dtype=torch.long))))
    return samples


def _evaluate(coco_file, metainfo, samples):
    metric = CocoMetric(ann_file=coco_file, metric='bbox')
    metric.dataset_meta = metainfo
    metric.process({}, samples)
    return metric.compute_metrics(metric.results)


def test_coco_export_matches_the_dataset_and_cocometric(bdd, tmp_path):
    kwargs = dict(timeofday=['daytime', 'night'])
    ds = _build(bdd['root'], **kwargs)
    infos = _infos(ds)
    coco_file = str(tmp_path / 'coco.json')
    write_coco_annotations(
        osp.join(bdd['root'], 'labels/det_20/det_val.json'), coco_file,
        img_size=IMG_SIZE, **kwargs)
    # mmdet's CocoDataset reads back the same images, ids and boxes.
    coco_ds = CocoDataset(
        ann_file=coco_file, metainfo=dict(classes=BDD100K_CLASSES),
        data_prefix=dict(img=''), test_mode=True)
    coco_infos = sorted(_infos(coco_ds), key=lambda i: i['img_id'])
    assert [i['img_id'] for i in coco_infos] == sorted(
        i['img_id'] for i in infos)
    by_id = {i['img_id']: i for i in infos}
    n_boxes = 0
    for got in coco_infos:
        want = by_id[got['img_id']]
        assert got['img_path'] == want['file_name']
        assert (got['height'], got['width']) == IMG_SIZE
        assert [(x['bbox_label'], x['ignore_flag']) for x in got['instances']
                ] == [(x['bbox_label'], x['ignore_flag'])
                      for x in want['instances']]
        if want['instances']:
            # exact: whole pixels through xywh and back
            np.testing.assert_array_equal(
                [x['bbox'] for x in got['instances']],
                [x['bbox'] for x in want['instances']])
        n_boxes += len(want['instances'])
    assert n_boxes > 10  # not a tolerance: the check above is not empty

    res = _evaluate(coco_file, ds.metainfo, _perfect_predictions(infos))
    # exact: every IoU is 1, every precision 1
    assert res['bbox_mAP'] == 1.0
    assert res['bbox_mAP_50'] == 1.0
    # The json has exactly the dataset's images: an image left out of the
    # predictions costs recall.
    with_boxes = [i['img_id'] for i in infos if any(
        not x['ignore_flag'] for x in i['instances'])]
    res = _evaluate(coco_file, ds.metainfo,
                    _perfect_predictions(infos, skip=with_boxes[:1]))
    assert res['bbox_mAP'] < 1.0  # exact: recall < 1 (measured 0.869)


def test_cocometric_without_ann_file_agrees(bdd, tmp_path):
    """With ``instances`` in PackDetInputs' meta keys, CocoMetric without
    an ann_file builds the same ground truth as the exported json."""
    ds = _build(
        bdd['root'],
        pipeline=PIPELINE[:2] + [
            dict(
                type='PackDetInputs',
                meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                           'instances'))
        ])
    coco_file = str(tmp_path / 'coco.json')
    write_coco_annotations(
        osp.join(bdd['root'], 'labels/det_20/det_val.json'), coco_file,
        img_size=IMG_SIZE)
    rng = np.random.default_rng(0)
    samples = []
    for i in range(len(ds)):
        sample = ds[i]['data_samples']
        gt = sample.gt_instances
        n = len(gt)
        boxes = gt.bboxes.tensor + torch.from_numpy(
            rng.normal(0, 1.5, (n, 4))).float()
        fp = torch.tensor([[5.0, 5.0, 30.0, 25.0]])
        sample.pred_instances = InstanceData(
            bboxes=torch.cat([boxes, fp]),
            scores=torch.from_numpy(rng.random(n + 1)).float(),
            labels=torch.cat([gt.labels, torch.tensor([2])]))
        samples.append(sample.to_dict())
    with_file = _evaluate(coco_file, ds.metainfo, samples)
    without = _evaluate(None, ds.metainfo, samples)
    # Not a tolerance: the seeded noisy boxes must score neither 0 nor 1,
    # so that the equality below can fail (measured 0.469 in float64 from
    # seeded inputs; no convolution involved).
    assert 0.2 < with_file['bbox_mAP'] < 0.95
    assert with_file == without


def test_demo_is_deterministic(tmp_path):
    def digests(root):
        out = {}
        for dirpath, _, names in os.walk(root):
            for name in names:
                path = osp.join(dirpath, name)
                with open(path, 'rb') as f:
                    out[osp.relpath(path, root)] = hashlib.sha256(
                        f.read()).hexdigest()
        return out

    kwargs = dict(num_val=7, num_train=7, size=(64, 36))
    generate_bdd100k_demo(str(tmp_path / 'a'), seed=1, **kwargs)
    generate_bdd100k_demo(str(tmp_path / 'b'), seed=1, **kwargs)
    generate_bdd100k_demo(str(tmp_path / 'c'), seed=2, **kwargs)
    a = digests(str(tmp_path / 'a'))
    assert len(a) == 2 + 14
    assert a == digests(str(tmp_path / 'b'))
    assert a != digests(str(tmp_path / 'c'))
    with open(tmp_path / 'a' / 'labels/det_20/det_val.json') as f:
        frames = json.load(f)
    for key, values in (('weather', 7), ('timeofday', 4), ('scene', 7)):
        assert len({f['attributes'][key] for f in frames}) == values
    with pytest.raises(RobustDetError, match='num_val'):
        generate_bdd100k_demo(str(tmp_path / 'd'), num_val=3)
