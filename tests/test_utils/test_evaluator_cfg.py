# Copyright (c) robustdet contributors. All rights reserved.
from mmdet.evaluation import CocoMetric

from robustdet.utils.evaluator_cfg import metric_cfgs, metric_type

COCO = dict(type='CocoMetric', ann_file='a.json')
VOC = dict(type='mmdet.VOCMetric')


def test_every_form_of_evaluator_config():
    assert metric_cfgs(COCO) == [COCO]
    assert metric_cfgs([COCO, VOC]) == [COCO, VOC]
    assert metric_cfgs((COCO, )) == [COCO]
    assert metric_cfgs(dict(type='Evaluator', metrics=[COCO])) == [COCO]
    assert metric_cfgs(dict(metrics=VOC)) == [VOC]
    assert metric_cfgs(COCO)[0] is COCO  # not a copy: callers set keys
    assert metric_cfgs(None) == []


def test_metric_type_without_scope():
    assert metric_type(COCO) == 'CocoMetric'
    assert metric_type(VOC) == 'VOCMetric'
    assert metric_type(dict(type=CocoMetric)) == 'CocoMetric'
    assert metric_type(dict(ann_file='a.json')) == ''
