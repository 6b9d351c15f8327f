# Copyright (c) robustdet contributors. All rights reserved.
"""The published leaderboard rows: unique names, existing configs and
citations, numbers consistent with their own rounding."""
import dataclasses
import os.path as osp

import pytest

from robustdet.baselines import (CITATIONS, DATASETS, TASKS, TRAININGS,
                                 BaselineRow, baseline_rows, get_baseline,
                                 metric_of)
from robustdet.utils.errors import RobustDetError
from tests.conftest import REPO

ROWS = baseline_rows()


def config_path(config):
    """Where a row's config lies: ``mmdet::X`` under the installed mmdet's
    configs, anything else in this repository."""
    if config.startswith('mmdet::'):
        import mmdet
        return osp.join(
            osp.dirname(mmdet.__file__), '.mim', 'configs',
            config[len('mmdet::'):])
    return osp.join(REPO, config)


def rpc_interval(row):
    """The rPC (%) that P and mPC, each rounded to 0.1, allow, widened by
    rPC's own rounding to 0.1."""
    low = 100 * (row.mPC - 0.05) / (row.P + 0.05) - 0.05
    high = 100 * (row.mPC + 0.05) / (row.P - 0.05) + 0.05
    return low, high


def test_rows_are_well_formed():
    assert len(ROWS) == 30
    names = [row.name for row in ROWS]
    assert len(set(names)) == len(names)
    for row in ROWS:
        assert isinstance(row, BaselineRow)
        assert row.dataset in DATASETS, row.name
        assert row.task in TASKS, row.name
        assert row.training in TRAININGS, row.name
        assert row.citation in CITATIONS, row.name
        assert row.name.split('/') == [
            row.citation, row.dataset, row.name.split('/')[2], row.training,
            row.task
        ]
        assert 0 < row.mPC < row.P < 100 and 0 < row.rPC < 100, row.name
        assert get_baseline(row.name) is row
    with pytest.raises(dataclasses.FrozenInstanceError):
        ROWS[0].P = 1.0
    for key, cite in CITATIONS.items():
        for field in ('authors', 'title', 'venue', 'year', 'url', 'where'):
            assert cite.get(field), (key, field)
    assert 'mmdet-robustness' in CITATIONS
    assert CITATIONS['michaelis2019']['url'] == (
        'https://arxiv.org/abs/1907.07484')


def test_every_config_exists():
    for row in ROWS:
        path = config_path(row.config)
        assert osp.isfile(path), f'{row.name}: {row.config} ({path})'
    # the training scheme is the one the config's file name says
    for row in ROWS:
        if row.config.startswith('configs/stylized/'):
            stem = osp.basename(row.config)[:-3].split('_')[-1]
            kind = dict(coco='standard', voc0712='standard',
                        city='standard', scoco='stylized',
                        svoc0712='stylized', scity='stylized',
                        cocoscoco='combined', vocsvoc0712='combined',
                        cityscity='combined')[stem]
            assert kind == row.training, row.name
        else:
            assert row.training == 'standard' and row.dataset == 'coco'


@pytest.mark.parametrize('row', ROWS, ids=[r.name for r in ROWS])
def test_numbers_consistent_with_their_rounding(row):
    low, high = rpc_interval(row)
    inside = low <= row.rPC <= high
    # consistent=False only where the published numbers really disagree,
    # and then the note says so
    assert inside == row.consistent, (row.name, low, high, row.rPC)
    if not row.consistent:
        assert 'disagree' in row.note


def test_flagged_and_noted_rows():
    bad = [row.name for row in ROWS if not row.consistent]
    assert bad == ['michaelis2019/coco/mask-rcnn_r50_fpn/stylized/segm']
    row = get_baseline(bad[0])
    assert (row.P, row.mPC, row.rPC) == (30.5, 13.2, 64.1)
    dcn = get_baseline(
        'michaelis2019/coco/faster-rcnn_r50-dconv-c3-c5_fpn/standard/bbox')
    assert (dcn.P, dcn.mPC, dcn.rPC) == (40.0, 22.4, 56.1)
    assert '12.4' in dcn.note and 'mmdet-robustness' in dcn.note
    assert 'michaelis2019' in dcn.note


def test_headline_rows():
    frcnn = get_baseline('michaelis2019/coco/faster-rcnn_r50_fpn/standard/'
                         'bbox')
    assert (frcnn.P, frcnn.mPC, frcnn.rPC) == (36.3, 18.2, 50.2)
    assert (frcnn.model, frcnn.backbone) == ('Faster R-CNN', 'R-50-FPN')
    assert frcnn.config == 'mmdet::faster_rcnn/faster-rcnn_r50_fpn_1x_coco.py'
    voc = get_baseline('michaelis2019/voc/faster-rcnn_r50_fpn/standard/bbox')
    assert (voc.P, voc.mPC, voc.rPC) == (80.5, 48.6, 60.4)
    city = get_baseline('michaelis2019/cityscapes/mask-rcnn_r50_fpn/'
                        'combined/segm')
    assert (city.P, city.mPC, city.rPC) == (32.1, 14.9, 46.3)


def test_filters():
    assert len(baseline_rows('voc')) == 3
    assert {r.training for r in baseline_rows('voc', 'bbox')} == set(
        TRAININGS)
    assert baseline_rows('voc', 'segm') == []
    assert len(baseline_rows('cityscapes', 'bbox')) == 4
    assert len(baseline_rows('cityscapes', 'segm')) == 3
    coco_segm = baseline_rows('coco', 'segm')
    assert len(coco_segm) == 6
    assert all(r.task == 'segm' and r.dataset == 'coco' for r in coco_segm)
    assert len(baseline_rows(task='bbox')) == 21
    with pytest.raises(RobustDetError, match='unknown dataset'):
        baseline_rows('kitti')
    with pytest.raises(RobustDetError, match='unknown task'):
        baseline_rows('coco', 'keypoints')


def test_get_baseline_unknown():
    with pytest.raises(RobustDetError) as info:
        get_baseline('michaelis2019/voc/retinanet/standard/bbox')
    message = str(info.value)
    assert '\n' not in message
    assert 'michaelis2019/voc/faster-rcnn_r50_fpn/standard/bbox' in message
    assert '/coco/' not in message  # the names of that dataset only
    with pytest.raises(RobustDetError, match='/coco/'):
        get_baseline('nope')
    assert isinstance(info.value, ValueError)


def test_metric_of():
    assert metric_of('coco', 'bbox') == 'coco/bbox_mAP'
    assert metric_of('coco', 'segm') == 'coco/segm_mAP'
    assert metric_of('cityscapes', 'segm') == 'coco/segm_mAP'
    assert metric_of('voc', 'bbox') == 'pascal_voc/mAP'
    for args in (('voc', 'segm'), ('kitti', 'bbox'), ('coco', 'mask')):
        with pytest.raises(RobustDetError):
            metric_of(*args)
