# Copyright (c) robustdet contributors. All rights reserved.
"""VideoCorruptedDataset / MultiVideoCorruptedDataset on small synthetic
videos: each frame is its clip's frame under the clip corruption, clips
are corrupted once, camera motion moves the boxes, neighbour sets share one
clip per set, and bad input is refused with one line."""
import multiprocessing
import os
import os.path as osp

import mmcv
import numpy as np
import pytest
from mmdet.registry import DATASETS

from demo_data.scene import DEMO_CLASSES
from demo_data.video import generate_video_demo
from robustdet.datasets import (MultiVideoCorruptedDataset,
                                VideoCorruptedDataset, move_instances)
from robustdet.datasets.video_clips import ClipStore, clip_window
from robustdet.datasets.video_corrupted import clip_seed
from robustdet.utils.errors import RobustDetError
from robustdet.video import corrupt_clip

NUM_FRAMES = 9
K = 3


@pytest.fixture(scope='module')
def video(tmp_path_factory):
    out = str(tmp_path_factory.mktemp('vidc') / 'vid')
    return generate_video_demo(out, seed=0, num_videos=2,
                               num_frames=NUM_FRAMES, size=(96, 64), k=K)


def _pipeline(with_mask=False):
    return [
        dict(type='LoadImageFromFile'),
        dict(type='LoadAnnotations', with_bbox=True, with_mask=with_mask),
        dict(type='PackDetInputs',
             meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                        'instances'))
    ]


def _coco(video, **kwargs):
    return dict(
        type='CocoDataset',
        data_root=video['root'],
        ann_file='annotations/vid_val.json',
        data_prefix=dict(img='Data/VID/'),
        metainfo=dict(classes=DEMO_CLASSES),
        test_mode=True,
        pipeline=_pipeline(**kwargs))


def _sets(video):
    return dict(
        type='NeighborSetDataset',
        data_root=video['root'],
        sets_file='metadata/pmsets.json',
        ann_file='annotations/vid_val.json',
        data_prefix=dict(img='Data/VID/'),
        metainfo=dict(classes=DEMO_CLASSES),
        test_mode=True,
        pipeline=_pipeline())


def _wrap(dataset, corruption, severity, **kwargs):
    return VideoCorruptedDataset(DATASETS.build(dataset), corruption,
                                 severity, **kwargs)


def _expected_frame(video, path, name, severity, clip_len, seed=0):
    """The frame an item must get, computed from the files directly."""
    directory, file = osp.split(path)
    frames = sorted(os.listdir(directory))
    pos = frames.index(file)
    start, stop = clip_window(pos, len(frames), clip_len, 'segment')
    clip = np.stack([
        mmcv.imread(osp.join(directory, f))[..., ::-1]
        for f in frames[start:stop]
    ])
    key = (osp.relpath(osp.join(directory, frames[start]), video['root']) +
           f'+{stop - start}')
    result = corrupt_clip(np.ascontiguousarray(clip), name, severity,
                          seed=clip_seed(seed, key, name))
    transform = (None if result.transforms is None else
                 result.transforms[pos - start])
    return result.frames[pos - start][..., ::-1], transform


def _image(sample):
    return sample['inputs'].permute(1, 2, 0).numpy()


def test_clip_window():
    # Segments from the first frame; the last one is moved back to the
    # full length; anchors are centred and moved inside the video.
    assert [clip_window(i, 9, 4, 'segment') for i in (0, 3, 4, 8)] == [
        (0, 4), (0, 4), (4, 8), (5, 9)]
    assert clip_window(2, 3, 4, 'segment') == (0, 3)
    assert clip_window(4, 9, 5, 'anchor') == (2, 7)
    assert clip_window(0, 9, 5, 'anchor') == (0, 5)
    assert clip_window(8, 9, 5, 'anchor') == (4, 9)


def test_each_frame_is_its_clip_frame_under_the_corruption(video):
    ds = _wrap(_coco(video), 'h264_crf', 5, clip_len=4)
    assert ds.resolved == dict(clip_mode='segment', frames_from='ann')
    clean = DATASETS.build(_coco(video))
    changed = 0
    for i in range(len(ds)):
        sample = ds[i]
        path = ds.get_data_info(i)['img_path']
        want, transform = _expected_frame(video, path, 'h264_crf', 5, 4)
        assert transform is None
        np.testing.assert_array_equal(_image(sample), want)
        changed += not np.array_equal(_image(sample), _image(clean[i]))
        assert sample['data_samples'].gt_instances.bboxes.tensor.tolist() \
            == clean[i]['data_samples'].gt_instances.bboxes.tensor.tolist()
    assert changed == len(ds)


def test_clips_are_corrupted_once_and_evicted(video):
    ds = _wrap(_coco(video), 'mpeg4_q', 5, clip_len=4)
    # 2 videos of 9 frames: segments [0, 4), [4, 8), [5, 9) each.
    assert len(ds.index.clips) == 6
    assert sorted(ds.index.uses) == [1, 1, 4, 4, 4, 4]
    first = [_image(ds[i]) for i in range(len(ds))]
    assert ds.store.computed == 6
    assert not [n for n in os.listdir(ds.store.root) if n.endswith('.npy')]
    # Same settings, fresh store: the same pixels.
    again = _wrap(_coco(video), 'mpeg4_q', 5, clip_len=4)
    for i in (0, 5, 17):
        np.testing.assert_array_equal(_image(again[i]), first[i])
    # Another seed changes the damage of a seeded corruption.
    other = _wrap(_coco(video), 'packet_loss', 5, clip_len=4, seed=1)
    base = _wrap(_coco(video), 'packet_loss', 5, clip_len=4)
    assert any(not np.array_equal(_image(other[i]), _image(base[i]))
               for i in range(len(base)))
    root = base.store.root
    base.store.close()
    assert not osp.exists(root)


def _serve(root, log, queue):
    store = ClipStore.__new__(ClipStore)
    store.root, store.owner = root, -1
    store.computed, store.compute_seconds = 0, 0.0

    def compute():
        with open(log, 'a') as f:
            f.write('computed\n')
        import time
        time.sleep(0.3)
        from robustdet.video.types import ClipResult
        frames = np.arange(2 * 4 * 4 * 3, dtype=np.uint8).reshape(2, 4, 4, 3)
        return ClipResult(frames=frames, source_index=np.arange(2))

    frame, transform = store.frame('clip|x|1', 1, 3, compute)
    queue.put((frame.tolist(), transform))


def test_store_computes_a_clip_once_across_processes(tmp_path):
    store = ClipStore(str(tmp_path / 'cache'))
    log = str(tmp_path / 'log')
    ctx = multiprocessing.get_context('fork')
    queue = ctx.Queue()
    procs = [ctx.Process(target=_serve, args=(store.root, log, queue))
             for _ in range(3)]
    for p in procs:
        p.start()
    got = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(60)
    assert open(log).read() == 'computed\n'
    assert all(g == got[0] for g in got) and got[0][1] is None
    # Three uses, three served: the clip is gone.
    assert [n for n in os.listdir(store.root) if n != 'locks'] == []
    store.close()
    assert not osp.exists(store.root)


def test_camera_motion_moves_the_boxes(video):
    ds = _wrap(_coco(video), 'translation', 5, clip_len=4)
    clean = DATASETS.build(_coco(video))
    moved = 0
    for i in range(len(ds)):
        sample = ds[i]
        info = clean.get_data_info(i)
        img, transform = _expected_frame(video, info['img_path'],
                                         'translation', 5, 4)
        np.testing.assert_array_equal(_image(sample), img)
        want = move_instances(info['instances'], transform, 96, 64)
        got = sample['data_samples'].gt_instances.bboxes.tensor.numpy()
        # exact: LoadAnnotations rounds the float64 boxes to float32 alike
        np.testing.assert_array_equal(
            got,
            np.array([w['bbox'] for w in want], np.float32).reshape(-1, 4))
        # The delivered ground truth travels with the sample for
        # CocoMetric(ann_file=None).
        assert sample['data_samples'].instances == want
        moved += not np.allclose(
            got, clean[i]['data_samples'].gt_instances.bboxes.tensor.numpy())
    # Every frame of a shaken clip moves (the walk steps at frame 0 too);
    # the smallest move is 1.1 px here, far beyond allclose's 1e-5.
    assert moved == len(ds)


def test_move_instances_drops_boxes_out_of_frame():
    shift = np.array([[1, 0, 50], [0, 1, 0], [0, 0, 1]], np.float64)
    instances = [
        dict(bbox=[0, 0, 10, 10], bbox_label=0, ignore_flag=0, mask=[[0]]),
        dict(bbox=[60, 0, 90, 20], bbox_label=1, ignore_flag=1),
        dict(bbox=[80, 0, 100, 20], bbox_label=2, ignore_flag=0),
    ]
    out = move_instances(instances, shift, width=100, height=64)
    # The first moves right, the second leaves the frame by more than 3/4,
    # the third entirely.
    assert out == [dict(bbox=[50.0, 0.0, 60.0, 10.0], bbox_label=0,
                        ignore_flag=0)]


def test_neighbour_sets_share_one_clip_per_set(video):
    ds = _wrap(_sets(video), 'h264_abr', 4, clip_len=2 * K + 1)
    assert ds.resolved == dict(clip_mode='anchor', frames_from='ann')
    # One clip per set (the anchor's window), every frame of the set in it.
    assert len(ds.index.clips) == 2
    assert ds.index.uses == [2 * K + 1, 2 * K + 1]
    for i in range(len(ds)):
        ds[i]
    assert ds.store.computed == 2
    with pytest.raises(RobustDetError, match='does not reach it'):
        _wrap(_sets(video), 'h264_abr', 4, clip_len=2 * K - 1)


def test_frames_from_dir_equals_ann(video):
    by_ann = _wrap(_coco(video), 'rain', 1, clip_len=4, frames_from='ann')
    by_dir = _wrap(_coco(video), 'rain', 1, clip_len=4, frames_from='dir')
    assert by_dir.resolved['frames_from'] == 'dir'
    assert [(c.key, c.paths) for c in by_ann.index.clips] == [
        (c.key, c.paths) for c in by_dir.index.clips]
    sets = _wrap(_sets(video), 'rain', 1, frames_from='dir')
    assert len(sets.index.clips) == 2


def test_multi_cells_equal_single_cells(video):
    cells = [('clean', 0), ('h264_crf', 2), ('translation', 3)]
    multi = MultiVideoCorruptedDataset(DATASETS.build(_coco(video)), cells,
                                       clip_len=4)
    plain = DATASETS.build(_coco(video))
    singles = [_wrap(_coco(video), n, s, clip_len=4) for n, s in cells[1:]]
    for i in (0, 7, 12):
        samples = multi.get(i)
        np.testing.assert_array_equal(_image(samples[0]), _image(plain[i]))
        for sample, single in zip(samples[1:], singles):
            np.testing.assert_array_equal(_image(sample), _image(single[i]))
        # A subset, in the order asked for.
        sub = multi.get(i, [cells[2], cells[0]])
        np.testing.assert_array_equal(_image(sub[0]), _image(samples[2]))
    with pytest.raises(KeyError):
        multi.get(0, [('rain', 1)])


def test_short_clips_are_refused_or_padded(video):
    # box_jumbling needs 8 frames; clips of 4 are too short.
    with pytest.raises(RobustDetError,
                       match='needs clips of at least 8 frames.*pad'):
        _wrap(_coco(video), 'box_jumbling', 1, clip_len=4)
    padded = _wrap(_coco(video), 'box_jumbling', 3, clip_len=4,
                   short_clips='pad')
    assert _image(padded[0]).shape == (64, 96, 3)


@pytest.mark.parametrize('kwargs,match', [
    (dict(corruption='fog'), "unknown clip corruption 'fog'"),
    (dict(clip_len=0), 'clip_len must be an integer >= 1'),
    (dict(clip_mode='window'), "unknown clip_mode 'window'"),
    (dict(short_clips='skip'), "unknown short_clips 'skip'"),
    (dict(frames_from='xml'), "unknown frames_from 'xml'"),
])
def test_bad_arguments(video, kwargs, match):
    args = dict(corruption='h264_crf', severity=1)
    args.update(kwargs)
    with pytest.raises(RobustDetError, match=match):
        VideoCorruptedDataset(_coco(video), **args)


def test_camera_motion_refuses_masks(video):
    ds = _wrap(_coco(video, with_mask=True), 'static_rotation', 1,
               clip_len=4)
    with pytest.raises(RobustDetError, match='moves boxes only'):
        ds[0]


def test_frames_outside_the_cocovid_json_are_refused(video, tmp_path):
    import json
    data = json.load(open(video['ann_file']))
    for img in data['images']:
        del img['video_id']
    ann = tmp_path / 'plain.json'
    ann.write_text(json.dumps(data))
    cfg = dict(_coco(video), ann_file=str(ann))
    with pytest.raises(RobustDetError, match='needs CocoVID json'):
        _wrap(cfg, 'h264_crf', 1, frames_from='ann')
    # auto falls back to the frames' directories.
    assert _wrap(cfg, 'h264_crf', 1).resolved['frames_from'] == 'dir'


def test_odd_frame_sizes_keep_size_and_boxes(tmp_path):
    """Codecs need even sizes: the clip is padded, coded and cropped back;
    the boxes do not move."""
    odd = generate_video_demo(str(tmp_path / 'odd'), seed=1, num_videos=1,
                              num_frames=5, size=(97, 65), k=2)
    ds = _wrap(_coco(odd), 'h265_crf', 3, clip_len=5)
    clean = DATASETS.build(_coco(odd))
    for i in range(len(ds)):
        sample, plain = ds[i], clean[i]
        assert _image(sample).shape == (65, 97, 3)
        assert not np.array_equal(_image(sample), _image(plain))
        assert sample['data_samples'].gt_instances.bboxes.tensor.tolist() \
            == plain['data_samples'].gt_instances.bboxes.tensor.tolist()


@pytest.mark.parametrize('world_size', [2, 3, 4])
def test_ranks_divide_the_clips(video, world_size):
    """The shares that ranks take (consecutive runs of whole batches,
    :class:`~robustdet.engine.PassBatchSampler`; its own test covers the
    split): each rank corrupts only the clips of its share, deletes each
    once its own items of it are served, and the shares in rank order are
    every item once."""
    from robustdet.engine import PassBatchSampler
    shares, computed = [], 0
    for rank in range(world_size):
        share = PassBatchSampler(1, 18, 2, rank=rank,
                                 world_size=world_size).indices
        ds = _wrap(_coco(video), 'mpeg4_q', 5, clip_len=4)
        ds.serve(share)
        for i in share:
            _image(ds[i])
        assert not [n for n in os.listdir(ds.store.root) if n.endswith('.npy')]
        computed += ds.store.computed
        shares.append(share)
        ds.store.close()
    assert [i for share in shares for i in share] == list(range(18))
    # 6 clips; a share's edge inside a clip makes it one more computation.
    assert computed <= 6 + world_size - 1
