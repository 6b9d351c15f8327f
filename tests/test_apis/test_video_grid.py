# Copyright (c) robustdet contributors. All rights reserved.
"""Video corruptions in the benchmark grid: --corruptions words, the job's
checks and the config scored against the delivered ground truth."""
import pytest
from mmengine.config import Config

from robustdet.apis.job_configs import pipeline_ground_truth_cfg
from robustdet.apis.robustness import RobustnessJob, resolve_grid_corruptions
from robustdet.corruptions import BENCHMARK_CORRUPTIONS
from robustdet.utils.errors import RobustDetError
from robustdet.video import CLIP_CORRUPTION_NAMES


def test_resolve_grid_corruptions():
    assert resolve_grid_corruptions(['video']) == list(CLIP_CORRUPTION_NAMES)
    assert resolve_grid_corruptions(
        ['translation', 'fog', 'video-codec', 'h264_crf']) == [
            'fog', 'h264_crf', 'h265_crf', 'h264_abr', 'h265_abr', 'mpeg2_q',
            'mpeg4_q', 'translation'
        ]
    both = resolve_grid_corruptions(['benchmark', 'video'])
    assert both == list(BENCHMARK_CORRUPTIONS) + list(CLIP_CORRUPTION_NAMES)
    with pytest.raises(RobustDetError, match="unknown corruption 'videos'.*"
                       'video-camera.*h264_crf'):
        resolve_grid_corruptions(['videos'])


def _job(**kwargs):
    args = dict(config='c.py', checkpoint='x.pth', work_dir='w',
                corruptions=['fog'])
    args.update(kwargs)
    return RobustnessJob(**args)


def test_job_ground_truth_and_checks():
    assert _job().ground_truth == 'config'
    assert _job(corruptions=['fog', 'h264_crf']).ground_truth == 'config'
    job = _job(corruptions=['h264_crf', 'dynamic_rotation'], clip_len=8)
    assert job.ground_truth == 'pipeline'
    assert job.video_corruptions == ['h264_crf', 'dynamic_rotation']
    assert job.video_clips() == dict(clip_len=8, clip_mode='auto',
                                     short_clips='error')
    with pytest.raises(RobustDetError, match='--backend fast or reference'):
        _job(corruptions=['rain'], backend='torch')
    with pytest.raises(RobustDetError, match="unknown clip_mode 'x'"):
        _job(clip_mode='x')
    with pytest.raises(RobustDetError, match='clip_len must be an integer'):
        _job(clip_len=0)


def _cfg(evaluator, pack=True):
    pipeline = [dict(type='LoadImageFromFile')]
    if pack:
        pipeline.append(dict(type='PackDetInputs'))
    return Config(dict(
        test_dataloader=dict(dataset=dict(
            type='RepeatDataset', times=1,
            dataset=dict(type='CocoDataset', pipeline=pipeline))),
        test_evaluator=evaluator))


def test_pipeline_ground_truth_cfg():
    cfg = _cfg([dict(type='CocoMetric', ann_file='a.json'),
                dict(type='FastCocoMetric', ann_file='a.json'),
                dict(type='VOCMetric')])
    out = pipeline_ground_truth_cfg(cfg, 'translation')
    assert [m.get('ann_file', 'kept') for m in out.test_evaluator] == [
        None, None, 'kept']
    pack = out.test_dataloader.dataset.dataset.pipeline[1]
    assert pack['meta_keys'][-1] == 'instances'
    assert 'img_id' in pack['meta_keys'] and 'scale_factor' in pack[
        'meta_keys']
    # The input config is not modified.
    assert cfg.test_evaluator[0]['ann_file'] == 'a.json'
    with pytest.raises(RobustDetError,
                       match="translation moves the ground-truth boxes.*"
                       "'CityScapesMetric'"):
        pipeline_ground_truth_cfg(_cfg(dict(type='CityScapesMetric')),
                                  'translation')
    with pytest.raises(RobustDetError, match='no PackDetInputs'):
        pipeline_ground_truth_cfg(
            _cfg(dict(type='CocoMetric'), pack=False), 'translation')
