# Copyright (c) robustdet contributors. All rights reserved.
"""tools/corrupt_video_dataset.py: the frames and delivered ground truth
test_robust.py scores, on disk."""
import json
import os.path as osp

import mmcv
import numpy as np
import pytest
from mmdet.registry import DATASETS

from demo_data.video import generate_video_demo
from robustdet.apis.corrupt_video import write_corrupted_videos
from robustdet.datasets import VideoCorruptedDataset
from robustdet.utils.cli import load_config
from tests.conftest import REPO, replace_data_root
from tests.tool_process import run_tool

VIDEO_CONFIG = osp.join(REPO, 'configs', 'demo',
                        'faster-rcnn_r18-c16_fpn-c64_3e_demo-vid.py')


@pytest.fixture(scope='module')
def video_cfg(tmp_path_factory):
    work = tmp_path_factory.mktemp('cvd')
    video = generate_video_demo(str(work / 'vid'), num_videos=2,
                                num_frames=6, size=(64, 48), k=2)
    cfg = replace_data_root(load_config(VIDEO_CONFIG), video['root'],
                            old_root='data/demo/vid/')
    cfg.test_dataloader.dataset.indices = None
    path = str(work / 'config.py')
    cfg.dump(path)
    return cfg, path


def test_written_frames_are_the_scored_ones(video_cfg, tmp_path):
    cfg, _ = video_cfg
    args = dict(seed=3, clip_len=4)
    out = write_corrupted_videos(cfg.test_dataloader.dataset, str(tmp_path),
                                 [('translation', 4), ('mpeg4_q', 5)], args)
    assert out == {'translation/4': 12, 'mpeg4_q/5': 12}
    # The scored frames before the test pipeline resizes them.
    unresized = cfg.test_dataloader.dataset.copy()
    unresized.pipeline = [
        t for t in unresized.pipeline if t['type'] != 'Resize'
    ]
    for name, sev in (('translation', 4), ('mpeg4_q', 5)):
        scored = VideoCorruptedDataset(DATASETS.build(unresized), name, sev,
                                       **args)
        coco = json.load(open(tmp_path / name / str(sev) /
                              'annotations.json'))
        assert [i['file_name'] for i in coco['images']][:2] == [
            'Data/VID/val/demo_video_000/000000.png',
            'Data/VID/val/demo_video_000/000001.png'
        ]
        for i, image in enumerate(coco['images']):
            sample = scored[i]
            png = mmcv.imread(str(tmp_path / name / str(sev) /
                                  image['file_name']))
            np.testing.assert_array_equal(
                png, sample['inputs'].permute(1, 2, 0).numpy())
            boxes = [a['bbox'] for a in coco['annotations']
                     if a['image_id'] == image['id']]
            want = sample['data_samples'].gt_instances.bboxes.tensor.numpy()
            got = np.array([[x, y, x + w, y + h] for x, y, w, h in boxes])
            # want is the float64 box rounded to float32 (half an ulp, 2 **
            # -24 relative); x + w is x2 to one float64 ulp
            np.testing.assert_allclose(got.reshape(-1, 4), want,
                                       rtol=2**-23, atol=0)


def test_image_corruptions_are_refused(video_cfg, tmp_path):
    _, path = video_cfg
    proc = run_tool('tools/corrupt_video_dataset.py', path, tmp_path / 'o',
                    '--corruptions', 'fog', 'h264_crf', cwd=REPO)
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    assert 'fog: image corruptions are written by' in last
    assert not (tmp_path / 'o').exists()
