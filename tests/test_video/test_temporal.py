# Copyright (c) robustdet contributors. All rights reserved.
import numpy as np
import pytest

from robustdet.utils import RobustDetError
from robustdet.video.temporal import CORRUPTIONS, frame_rate_index
from robustdet.video.types import FAMILIES, ClipResult

TABLE = {c.name: c for c in CORRUPTIONS}
REORDER = ('frame_rate', 'sampling_rate', 'reversal', 'jumbling',
           'box_jumbling', 'freezing')
STOCHASTIC = ('rain', 'jumbling', 'box_jumbling', 'freezing')


def _clip(t=16, h=48, w=64, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (t, h, w, 3), dtype=np.uint8)


def _psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64))**2)
    return np.inf if mse == 0 else 10 * np.log10(255.0**2 / mse)


def test_table():
    assert len(TABLE) == len(CORRUPTIONS)
    for c in CORRUPTIONS:
        assert c.family in FAMILIES
        assert len(c.params) == 5
        assert c.source


@pytest.mark.parametrize('name', sorted(TABLE))
def test_shape_determinism_and_order(name):
    c = TABLE[name]
    clip = _clip()
    for param in c.params:
        res = c.fn(clip, param, 3)
        assert isinstance(res, ClipResult)
        assert res.frames.shape == clip.shape
        assert res.frames.dtype == np.uint8
        assert res.source_index.shape == (len(clip), )
        assert res.transforms is None
        again = c.fn(clip, param, 3)
        np.testing.assert_array_equal(res.frames, again.frames)
        np.testing.assert_array_equal(res.source_index, again.source_index)
        if name in REORDER:
            np.testing.assert_array_equal(res.frames,
                                          clip[res.source_index])
        assert res.source_index.min() >= 0
        assert res.source_index.max() < len(clip)
    if name in STOCHASTIC:
        param = c.params[2]
        differ = [
            not np.array_equal(
                c.fn(clip, param, 3).frames,
                c.fn(clip, param, s).frames) for s in (4, 5, 6)
        ]
        assert any(differ)


@pytest.mark.parametrize('name', REORDER)
def test_displacement_grows(name):
    c = TABLE[name]
    clip = np.zeros((64, 2, 2, 3), np.uint8)
    disp = []
    for param in c.params:
        idx = c.fn(clip, param, 7).source_index
        disp.append(np.mean(np.abs(idx - np.arange(64))))
    assert disp[0] > 0  # frame indices: exact (measured >= 0.11)
    if name == 'box_jumbling':
        # displacement ~ T / 3 at any severity; cuts grow instead
        cuts = []
        for param in c.params:
            idx = c.fn(clip, param, 7).source_index
            cuts.append(int(np.sum(np.diff(idx) != 1)))
        assert cuts == [p - 1 for p in c.params]
    else:
        assert all(a <= b for a, b in zip(disp, disp[1:])), disp


@pytest.mark.parametrize('name', ('temporal_blur', 'rain'))
def test_psnr_decreases(name):
    c = TABLE[name]
    if name == 'rain':
        clip = np.full((8, 48, 64, 3), 60, np.uint8)
    else:
        clip = _clip()
    psnr = [_psnr(c.fn(clip, p, 1).frames, clip) for p in c.params]
    assert all(a >= b for a, b in zip(psnr, psnr[1:])), psnr
    # An untouched clip scores infinity; severity 5 measures 11.3 dB
    # (temporal_blur) and 21.8 dB (rain)
    assert psnr[-1] < 40


def test_frame_rate_index():
    idx = frame_rate_index(9, 20)
    np.testing.assert_array_equal(idx, [0, 0, 2, 3, 3, 5, 6, 6, 8])
    np.testing.assert_array_equal(frame_rate_index(7, 10), [0] * 3 +
                                  [3] * 3 + [6])
    np.testing.assert_array_equal(frame_rate_index(5, 30), np.arange(5))
    for fps in TABLE['frame_rate'].params:
        idx = frame_rate_index(60, fps)
        assert np.all(idx <= np.arange(60))
        assert np.all(np.diff(idx) >= 0)
        # a lower-rate camera delivers about fps / 30 of the frames
        assert abs(len(np.unique(idx)) - 60 * fps / 30) <= 1
    with pytest.raises(RobustDetError, match='fps'):
        frame_rate_index(4, 60)


def test_temporal_blur_values():
    clip = np.zeros((5, 2, 2, 3), np.uint8)
    clip[2] = 90
    out = TABLE['temporal_blur'].fn(clip, 3, 0).frames
    np.testing.assert_array_equal(out[:, 0, 0, 0], [0, 30, 30, 30, 0])
    # windows are clipped at the ends: frame 0 averages frames 0 and 1
    clip[0] = 100
    out = TABLE['temporal_blur'].fn(clip, 3, 0).frames
    assert out[0, 0, 0, 0] == 50


@pytest.mark.parametrize('window', (3, 5, 7, 9, 11))
def test_temporal_blur_equals_float64_means(window):
    """Integer sums and float32 division round exactly like a float64
    mean (ties included) on random clips."""
    rng = np.random.default_rng(window)
    clip = rng.integers(0, 256, (13, 9, 7, 3), dtype=np.uint8)
    clip[:, 0] = rng.choice([0, 1, 254, 255], (13, 7, 3))
    half = window // 2
    want = np.stack([
        clip[max(0, t - half):t + half + 1].astype(np.float64).mean(0)
        for t in range(13)
    ])
    out = TABLE['temporal_blur'].fn(clip, window, 0).frames
    np.testing.assert_array_equal(out, np.rint(want).astype(np.uint8))


def test_rain_falls():
    clip = np.zeros((4, 48, 64, 3), np.uint8)
    res = TABLE['rain'].fn(clip, TABLE['rain'].params[4], 2)
    np.testing.assert_array_equal(res.source_index, np.arange(4))
    assert not np.array_equal(res.frames[0], res.frames[1])
    assert res.frames.max() > 100  # streaks on black (measured 189)
    np.testing.assert_array_equal(clip, 0)  # input untouched


def test_specific_orders():
    clip = _clip(t=10, h=2, w=2)
    idx = TABLE['sampling_rate'].fn(clip, 2, 0).source_index
    np.testing.assert_array_equal(idx, [0, 2, 4, 6, 8, 0, 2, 4, 6, 8])
    idx = TABLE['reversal'].fn(clip, 1.0, 0).source_index
    np.testing.assert_array_equal(idx, np.arange(10)[::-1])
    idx = TABLE['reversal'].fn(clip, 0.4, 0).source_index
    np.testing.assert_array_equal(idx, [3, 2, 1, 0, 7, 6, 5, 4, 9, 8])
    idx = TABLE['jumbling'].fn(clip, 4, 0).source_index
    for s in (0, 4, 8):
        assert sorted(idx[s:s + 4]) == list(range(s, min(s + 4, 10)))
    idx = TABLE['freezing'].fn(clip, 0.5, 0).source_index
    assert idx[0] == 0 and np.sum(np.diff(idx) == 0) == 4
    assert np.all(np.diff(idx) >= 0)
    # frozen frames nest across severities
    lo = TABLE['freezing'].fn(clip, 0.2, 0).source_index
    assert set(np.flatnonzero(np.diff(lo) == 0)) <= set(
        np.flatnonzero(np.diff(idx) == 0))


def test_short_and_bad_clips():
    one = _clip(t=1)
    for name in ('temporal_blur', 'sampling_rate', 'reversal', 'jumbling',
                 'freezing'):
        with pytest.raises(RobustDetError, match='at least 2'):
            TABLE[name].fn(one, TABLE[name].params[0], 0)
    with pytest.raises(RobustDetError, match='at least 8'):
        TABLE['box_jumbling'].fn(_clip(t=5), 8, 0)
    assert len(TABLE['box_jumbling'].fn(_clip(t=8), 8, 0).frames) == 8
    with pytest.raises(RobustDetError, match='uint8'):
        TABLE['reversal'].fn(_clip().astype(np.float32), 0.2, 0)
    with pytest.raises(RobustDetError, match='uint8'):
        TABLE['rain'].fn(_clip()[..., 0], TABLE['rain'].params[0], 0)
    # single-frame clips are fine where a corruption needs no neighbours
    for name in ('frame_rate', 'rain'):
        res = TABLE[name].fn(one, TABLE[name].params[0], 0)
        assert res.frames.shape == one.shape
