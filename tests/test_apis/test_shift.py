# Copyright (c) robustdet contributors. All rights reserved.
"""The shift benchmarks' pure parts: split configs and the summary (P,
value and rPC per split)."""
import os.path as osp

import pytest

from robustdet.apis.shift import (BENCHMARKS, COCO_O_DOMAINS, ShiftJob,
                                  check_split_inputs, get_benchmark,
                                  shift_summary, split_dataloader_cfg,
                                  split_evaluator_cfg)
from robustdet.utils import RobustDetError


def test_benchmarks_follow_the_paper():
    foggy = get_benchmark('foggy-cityscapes')
    assert foggy.split_names == ['clean', 'beta=0.005', 'beta=0.01',
                                 'beta=0.02']
    assert foggy.reference == 'clean'
    assert get_benchmark('bdd100k-weather').split_names == [
        'clear', 'rainy', 'snowy']
    assert get_benchmark('bdd100k-daynight').split_names == [
        'daytime', 'night']
    coco_o = get_benchmark('coco-o')
    assert coco_o.split_names == ['coco', 'sketch', 'cartoon', 'painting',
                                  'weather', 'handmake', 'tattoo']
    assert coco_o.reference == 'coco'
    for bench in BENCHMARKS.values():
        assert bench.split_names[0] == bench.reference
    with pytest.raises(RobustDetError, match='unknown shift benchmark'):
        get_benchmark('fog')


def test_split_dataloader_cfg_sets_the_leaf_dataset():
    dl = dict(batch_size=2, dataset=dict(
        type='CityscapesDataset', data_root='data/cityscapes/',
        ann_file='a.json'))
    bench = get_benchmark('foggy-cityscapes')
    cfg = split_dataloader_cfg(dl, bench, 'beta=0.01', 'unused')
    assert cfg['dataset'] == dict(
        type='FoggyCityscapesDataset', data_root='data/cityscapes/',
        ann_file='a.json', beta=0.01)
    assert dl['dataset']['type'] == 'CityscapesDataset'  # not modified
    clean = split_dataloader_cfg(dl, bench, 'clean', 'unused')
    assert clean['dataset']['beta'] is None
    wrapped = dict(dataset=dict(type='RepeatDataset', times=2, dataset=dict(
        type='BDD100kDataset', weather='clear')))
    night = split_dataloader_cfg(wrapped, get_benchmark('bdd100k-daynight'),
                                 'night', 'data/bdd100k/splits/')
    # The lists are found from the working directory, not data_root.
    assert night['dataset']['dataset'] == dict(
        type='BDD100kDataset', weather=None, timeofday=None, scene=None,
        file_list=osp.abspath('data/bdd100k/splits/val_night.txt'))
    with pytest.raises(RobustDetError, match='BDD100kDataset'):
        split_dataloader_cfg(dl, get_benchmark('bdd100k-weather'), 'clear',
                             'x')


def test_summary_p_values_and_rpc():
    bench = get_benchmark('bdd100k-weather')
    splits = {
        'clear': {'coco/bbox_mAP': 0.4, 'coco/bbox_mAP_l': -1.0},
        'snowy': {'coco/bbox_mAP': 0.3, 'coco/bbox_mAP_l': -1.0},
    }
    summary = shift_summary(bench, splits)
    row = summary['coco/bbox_mAP']
    assert row['P'] == 0.4
    assert row['splits'] == {'clear': 0.4, 'rainy': None, 'snowy': 0.3}
    assert row['rPC']['clear'] == 1.0
    # 0.3 / 0.4: one float64 division, rounding only
    assert row['rPC']['snowy'] == pytest.approx(0.75, rel=1e-12)
    assert row['rPC']['rainy'] is None
    assert summary['coco/bbox_mAP_l']['P'] is None
    assert summary['coco/bbox_mAP_l']['rPC'] == dict.fromkeys(
        ['clear', 'rainy', 'snowy'])


def test_job_checks_splits():
    job = ShiftJob('c.py', 'x.pth', 'bdd100k-weather', 'w',
                   splits=['snowy', 'clear'])
    assert job.splits == ['clear', 'snowy']  # benchmark order
    with pytest.raises(RobustDetError, match="unknown split 'foggy'"):
        ShiftJob('c.py', 'x.pth', 'bdd100k-weather', 'w', splits=['foggy'])


COCO_DL = dict(batch_size=1, dataset=dict(
    type='CocoDataset', data_root='data/coco/',
    ann_file='annotations/instances_val2017.json',
    data_prefix=dict(img='val2017/'), test_mode=True))
COCO_EVAL = dict(type='CocoMetric',
                 ann_file='data/coco/annotations/instances_val2017.json',
                 metric='bbox')


def test_coco_o_split_configs(tmp_path):
    bench = get_benchmark('coco-o')
    root = tmp_path / 'ood_coco'
    # The reference is the config's own COCO test set and evaluator.
    assert split_dataloader_cfg(COCO_DL, bench, 'coco', 'x', str(root)) \
        == COCO_DL
    assert split_evaluator_cfg(COCO_EVAL, bench, 'coco', 'x', str(root)) \
        == COCO_EVAL
    for domain in COCO_O_DOMAINS:
        dl = split_dataloader_cfg(COCO_DL, bench, domain, 'x', str(root))
        assert dl['dataset'] == dict(
            COCO_DL['dataset'], data_root=f'{root}/{domain}/',
            ann_file='annotations/instances_val2017.json',
            data_prefix=dict(img='val2017/'))
        ev = split_evaluator_cfg(COCO_EVAL, bench, domain, 'x', str(root))
        assert ev == dict(
            COCO_EVAL,
            ann_file=f'{root}/{domain}/annotations/instances_val2017.json')
    assert COCO_EVAL['ann_file'].startswith('data/coco/')  # not modified
    # A relative root is taken from the working directory; every COCO
    # metric of a list gets the domain's file, other metrics are kept.
    evs = split_evaluator_cfg(
        [COCO_EVAL, dict(type='FastCocoMetric', metric='bbox'),
         dict(type='VOCMetric')], bench, 'tattoo', 'x', 'ood')
    tattoo = osp.abspath('ood/tattoo/annotations/instances_val2017.json')
    assert [e.get('ann_file') for e in evs] == [tattoo, tattoo, None]
    with pytest.raises(RobustDetError, match='test evaluator of type '
                       'CocoMetric or FastCocoMetric'):
        split_evaluator_cfg(dict(type='VOCMetric'), bench, 'sketch', 'x',
                            'ood')
    with pytest.raises(RobustDetError, match='test dataset of type '
                       'CocoDataset'):
        split_dataloader_cfg(dict(dataset=dict(type='VOCDataset')), bench,
                             'coco', 'x', 'ood')


def test_coco_o_inputs_are_checked(tmp_path):
    bench = get_benchmark('coco-o')
    root = tmp_path / 'ood_coco'
    (root / 'sketch' / 'annotations').mkdir(parents=True)
    check_split_inputs(bench, 'coco', 'x', str(root))  # nothing needed
    ann = root / 'sketch' / 'annotations' / 'instances_val2017.json'
    with pytest.raises(RobustDetError) as e:
        check_split_inputs(bench, 'sketch', 'x', str(root))
    assert str(e.value) == (
        f"coco-o domain 'sketch' is missing: expected {ann}")
    ann.write_text('{}')
    with pytest.raises(RobustDetError, match=f'expected {root}/sketch/'
                       'val2017$'):
        check_split_inputs(bench, 'sketch', 'x', str(root))
    (root / 'sketch' / 'val2017').mkdir()
    check_split_inputs(bench, 'sketch', 'x', str(root))


def test_coco_o_summary_mean():
    bench = get_benchmark('coco-o')
    values = dict(zip(COCO_O_DOMAINS, (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)))
    splits = {'coco': {'coco/bbox_mAP': 0.5}}
    splits.update({d: {'coco/bbox_mAP': v} for d, v in values.items()})
    row = shift_summary(bench, splits)['coco/bbox_mAP']
    assert row['P'] == 0.5
    assert row['mean'] == pytest.approx(0.35, rel=1e-12)
    assert row['mean_rPC'] == row['mean'] / 0.5
    assert row['rPC']['tattoo'] == 0.6 / 0.5
    # The headline needs every domain; the reference is not in it.
    del splits['painting']
    row = shift_summary(bench, splits)['coco/bbox_mAP']
    assert row['mean'] is None and row['mean_rPC'] is None
    splits['painting'] = {'coco/bbox_mAP': 0.3}
    splits['coco'] = {'coco/bbox_mAP': 0.9}
    assert shift_summary(bench, splits)['coco/bbox_mAP']['mean'] == \
        pytest.approx(0.35, rel=1e-12)
    # The other benchmarks have no mean.
    assert 'mean' not in shift_summary(
        get_benchmark('bdd100k-weather'),
        {'clear': {'coco/bbox_mAP': 0.4}})['coco/bbox_mAP']
