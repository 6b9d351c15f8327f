# Copyright (c) robustdet contributors. All rights reserved.
import numpy as np
import pytest

from robustdet.utils import RobustDetError
from robustdet.video.boxes import transform_boxes
from robustdet.video.camera import (CORRUPTIONS, rotation_angles,
                                    rotation_matrix, translation_matrix,
                                    translation_shifts)
from robustdet.video.types import ClipResult

# Warps with OpenCV's bilinear kernels: run again held back.
pytestmark = pytest.mark.cpu_sensitive

TABLE = {c.name: c for c in CORRUPTIONS}
H, W = 48, 64


def _square_clip(t=8, box=(20, 14, 30, 24)):
    """A black clip with a filled white square covering ``box`` (xyxy,
    box coordinates) in every frame."""
    clip = np.zeros((t, H, W, 3), np.uint8)
    x1, y1, x2, y2 = box
    clip[:, y1:y2, x1:x2] = 255
    return clip


def _bright_box(frame, thr=128):
    ys, xs = np.nonzero(frame[..., 0] >= thr)
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])


def test_table():
    for c in CORRUPTIONS:
        assert c.family == 'camera'
        assert len(c.params) == 5
        assert list(c.params) == sorted(c.params)


@pytest.mark.parametrize('name', sorted(TABLE))
def test_shape_and_determinism(name):
    c = TABLE[name]
    clip = np.random.default_rng(0).integers(0, 256, (8, H, W, 3),
                                             dtype=np.uint8)
    for param in c.params:
        res = c.fn(clip, param, 5)
        assert isinstance(res, ClipResult)
        assert res.frames.shape == clip.shape
        assert res.frames.dtype == np.uint8
        assert res.transforms.shape == (8, 3, 3)
        np.testing.assert_array_equal(res.source_index, np.arange(8))
        again = c.fn(clip, param, 5)
        np.testing.assert_array_equal(res.frames, again.frames)
        np.testing.assert_array_equal(res.transforms, again.transforms)
    other = [c.fn(clip, c.params[2], s).transforms for s in (6, 7, 8)]
    a = c.fn(clip, c.params[2], 5).transforms
    # Another draw moves the shift or rotation by pixels (measured 4.5 to
    # 16.6); float64 rounding of one draw is ~1e-14.
    assert max(np.abs(o - a).max() for o in other) > 1
    with pytest.raises(RobustDetError, match='uint8'):
        c.fn(clip.astype(np.float32), c.params[0], 0)


def test_magnitude_grows():
    for name in ('static_rotation', 'dynamic_rotation'):
        mags = [
            np.abs(rotation_angles(name, 16, p, 3)).max()
            for p in TABLE[name].params
        ]
        assert all(a < b for a, b in zip(mags, mags[1:])), mags
    static = rotation_angles('static_rotation', 16, 10, 3)
    assert np.all(static == static[0]) and abs(static[0]) == 10
    dyn = rotation_angles('dynamic_rotation', 16, 10, 3)
    # All 16 angles differ (the closest two are 0.084 degrees apart, far
    # above the 1e-6 of the rounding).
    assert len(np.unique(np.round(dyn, 6))) == 16
    # |d/dt 10 sin(2 pi t / P)| <= 10 * 2 pi / 15 for P >= 15 frames; 1e-12
    # is float64 rounding of angles of 10 degrees.
    assert np.abs(np.diff(dyn)).max() < 10 * 2 * np.pi / 15 + 1e-12
    mags = [
        np.abs(translation_shifts(16, W, H, p, 3)).max(0)
        for p in TABLE['translation'].params
    ]
    for p, m in zip(TABLE['translation'].params, mags):
        # exact: the peak step is walk / peak = 1.0, then the same products
        np.testing.assert_array_equal(m, [p * W, p * H])
    signs = {
        np.sign(rotation_angles('static_rotation', 1, 5, s)[0])
        for s in range(8)
    }
    assert signs == {-1.0, 1.0}


def test_matrices():
    m = rotation_matrix(90, W, H)
    # the centre is fixed; +90 degrees turns the content counter-clockwise
    # (float64 rounding: cos(90 degrees) is 6e-17, not 0)
    np.testing.assert_allclose(m @ [W / 2, H / 2, 1], [W / 2, H / 2, 1],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(m @ [W / 2 + 10, H / 2, 1],
                               [W / 2, H / 2 - 10, 1],
                               rtol=0, atol=1e-12)
    # exact: small integers
    np.testing.assert_array_equal(
        translation_matrix(3, -2) @ [1, 1, 1], [4, -1, 1])


@pytest.mark.parametrize('name', sorted(TABLE))
def test_box_follows_square(name):
    box = np.array([[20, 14, 30, 24]], np.float64)
    clip = _square_clip(box=(20, 14, 30, 24))
    c = TABLE[name]
    res = c.fn(clip, c.params[-1], 11)
    for t in range(len(clip)):
        new, keep = transform_boxes(box, res.transforms[t], W, H)
        assert keep[0]
        x1, y1, x2, y2 = new[0]
        # every lit pixel of the moved square lies in the box, up to the
        # bilinear spill: a lit pixel's centre maps back to within 1 px
        # (the bilinear support) of a lit pixel's centre, i.e. to within
        # 0.5 px of the square; mapped forward, that is within 0.5 (|m00|
        # + |m01|) px of the moved box in x (0.5 px unrotated, 0.68 at 30
        # degrees), the same with row 1 in y, plus OpenCV's 1/32 px grid.
        m = np.abs(res.transforms[t][:2, :2])
        spill_x, spill_y = 0.5 * m.sum(1) + 1 / 32
        ys, xs = np.nonzero(res.frames[t, ..., 0] > 0)
        assert x1 - spill_x <= xs.min() + 0.5
        assert xs.max() + 0.5 <= x2 + spill_x
        assert y1 - spill_y <= ys.min() + 0.5
        assert ys.max() + 0.5 <= y2 + spill_y
        # and the box is tight: its sides touch the bright pixels. Bilinear
        # is >= 128 of 255 within the box less a corner cut of at most
        # 0.5 min(|cos|, |sin|) <= 0.36 px; pixel centres add 0.5 px and
        # OpenCV's 1/32 px grid 0.03 px: at most 0.89 (measured 0.66).
        bright = _bright_box(res.frames[t])
        assert np.abs(bright - new[0]).max() <= 1.0, (bright, new[0])


def test_single_pixel_rotation():
    clip = np.zeros((1, H, W, 3), np.uint8)
    clip[0, 10, 50] = 255  # pixel centre at box coordinates (50.5, 10.5)
    res = TABLE['static_rotation'].fn(clip, 30, 0)
    m = res.transforms[0]
    cx, cy, _ = m @ [50.5, 10.5, 1]
    frame = res.frames[0, ..., 0].astype(np.float64)
    ys, xs = np.mgrid[:H, :W]
    # intensity-weighted centre of the moved pixel, in box coordinates.
    # The bilinear spot (a tent turned by 30 degrees) sampled on the pixel
    # grid has its centroid at most 0.106 px off (worst sub-pixel offset,
    # computed), one grey level on each of its <= 5 pixels adds <= 0.018
    # px and OpenCV's 1/32 px grid 0.016 px: < 0.14 (measured 0.042 and
    # 0.037). With a half-pixel convention error it is (-0.15, 0.34) off.
    mx = (frame * (xs + 0.5)).sum() / frame.sum()
    my = (frame * (ys + 0.5)).sum() / frame.sum()
    assert abs(mx - cx) < 0.16 and abs(my - cy) < 0.16


def test_black_border():
    clip = np.full((2, H, W, 3), 200, np.uint8)
    res = TABLE['static_rotation'].fn(clip, 30, 0)
    assert res.frames[0, 0, 0, 0] == 0 and res.frames[0, H // 2,
                                                       W // 2, 0] == 200


def test_transform_boxes_rules():
    ident = np.eye(3)
    boxes = np.array([[10, 10, 20, 20], [60, 40, 70, 50],
                      [-30, 0, -10, 10], [0, 0, 64, 48]], np.float64)
    new, keep = transform_boxes(boxes, ident, W, H)
    # second box: 4 x 8 of 10 x 10 inside = 0.32 >= 0.25 -> kept, clipped
    # (exact: the identity and clipping of integers)
    np.testing.assert_array_equal(new[1], [60, 40, 64, 48])
    assert keep.tolist() == [True, True, False, True]
    _, keep = transform_boxes(boxes, ident, W, H, min_area_frac=0.5)
    assert keep.tolist() == [True, False, False, True]
    # moved out of frame
    new, keep = transform_boxes(boxes, translation_matrix(100, 0), W, H)
    assert not keep.any()
    # a 90-degree turn of a non-square box swaps width and height
    m = rotation_matrix(90, W, H)
    new, keep = transform_boxes(np.array([[28, 22, 36, 26.]]), m, W, H)
    # float64 rounding of cos and sin on coordinates < 64 (~1e-14)
    np.testing.assert_allclose(new[0], [30, 20, 34, 28], rtol=0, atol=1e-12)
    # a 45-degree turn encloses the corners
    m = rotation_matrix(45, W, H)
    new, _ = transform_boxes(np.array([[30, 22, 34, 26.]]), m, W, H)
    half = 2 * np.sqrt(2)
    np.testing.assert_allclose(
        new[0], [32 - half, 24 - half, 32 + half, 24 + half],
        rtol=0, atol=1e-12)
    # sub-pixel remainders are dropped whatever the fraction
    _, keep = transform_boxes(np.array([[63.5, 0, 64.5, 1.]]), ident, W, H,
                              min_area_frac=0)
    assert not keep[0]
    new, keep = transform_boxes(np.zeros((0, 4)), ident, W, H)
    assert new.shape == (0, 4) and keep.shape == (0, )
    with pytest.raises(RobustDetError, match='3, 3'):
        transform_boxes(boxes, np.eye(2), W, H)
    with pytest.raises(RobustDetError, match='N, 4'):
        transform_boxes(np.zeros(4), ident, W, H)


def test_empty_clip_rejected():
    with pytest.raises(RobustDetError, match='at least 1'):
        TABLE['translation'].fn(np.zeros((0, H, W, 3), np.uint8), 0.02, 0)
