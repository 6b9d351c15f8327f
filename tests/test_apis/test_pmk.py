# Copyright (c) robustdet contributors. All rights reserved.
"""The config of a pm-k run (``tools/test_pmk.py``), without a model."""
import pytest
from mmengine.config import Config

from robustdet.apis import pmk_config
from robustdet.utils import RobustDetError

SETS = dict(type='NeighborSetDataset', ann_file='sets.json')


def _cfg(dataset):
    return Config(dict(test_dataloader=dict(dataset=dataset),
                       test_evaluator=dict(type='CocoMetric')))


def test_pmk_config_sets_the_metric_and_the_clip():
    cfg = _cfg(SETS)
    out = pmk_config(cfg, 'w', range(4), judge='anchor', vid_iou=True,
                     video_corruption='h264_crf', severity=5, clip_len=9)
    assert out.test_evaluator == dict(type='PMKMetric', ks=[0, 1, 2, 3],
                                      judge='anchor', vid_iou=True,
                                      out_dir='w')
    assert out.test_dataloader.dataset == dict(
        type='VideoCorruptedDataset', dataset=SETS, corruption='h264_crf',
        severity=5, clip_len=9, clip_mode='anchor')
    assert cfg.test_evaluator == dict(type='CocoMetric')  # not modified
    wrapped = _cfg(dict(type='VideoCorruptedDataset', dataset=SETS))
    assert pmk_config(wrapped, 'w', [0]).test_dataloader.dataset == (
        wrapped.test_dataloader.dataset)


@pytest.mark.parametrize('dataset, kwargs, message', [
    (dict(type='CocoDataset'), {}, "the test dataset is 'CocoDataset'; pm-k "
     'needs a NeighborSetDataset'),
    (SETS, dict(video_corruption='h266'), "unknown clip corruption 'h266'"),
    (SETS, dict(video_corruption='h264_crf', severity=6), 'severity'),
    (dict(type='VideoCorruptedDataset', dataset=SETS),
     dict(video_corruption='h264_crf'), 'corrupts its test set already'),
])
def test_pmk_config_refuses(dataset, kwargs, message):
    with pytest.raises(RobustDetError, match=message):
        pmk_config(_cfg(dataset), 'w', [0], **kwargs)
