# Copyright (c) robustdet contributors. All rights reserved.
"""The shift benchmarks' pure parts: split configs and the summary (P,
value and rPC per split)."""
import os.path as osp

import pytest

from robustdet.apis.shift import (BENCHMARKS, ShiftJob, get_benchmark,
                                  shift_summary, split_dataloader_cfg)
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
