# Copyright (c) robustdet contributors. All rights reserved.
"""The clip-corruption table and corrupt_clip: every entry runs through
the one entry point on an odd-sized clip, deterministically, and bad
input is a one-line error."""
import numpy as np
import pytest

from robustdet.utils import RobustDetError
from robustdet.video import (CLIP_CORRUPTIONS, FAMILIES, SEVERITIES,
                             corrupt_clip, get_clip_corruption)


def clip(frames=10, height=37, width=50, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 255, (height, width, 3), dtype=np.uint8)
    return np.stack([np.roll(base, 2 * t, axis=1) for t in range(frames)])


def test_table_is_consistent():
    names = [c.name for c in CLIP_CORRUPTIONS]
    assert len(names) == len(set(names))
    for c in CLIP_CORRUPTIONS:
        assert c.family in FAMILIES
        assert len(c.params) == len(SEVERITIES)
        assert c.source, c.name
    assert {c.family for c in CLIP_CORRUPTIONS} == set(FAMILIES)


@pytest.mark.parametrize('name', [c.name for c in CLIP_CORRUPTIONS])
def test_every_corruption_through_corrupt_clip(name):
    frames = clip()
    out = corrupt_clip(frames, name, 5, seed=1)
    again = corrupt_clip(frames, name, 5, seed=1)
    assert out.frames.shape == frames.shape and out.frames.dtype == np.uint8
    np.testing.assert_array_equal(out.frames, again.frames)
    assert out.source_index.shape == (len(frames), )
    if out.transforms is not None:
        assert out.transforms.shape == (len(frames), 3, 3)


def test_bad_input():
    with pytest.raises(RobustDetError, match="unknown clip corruption 'x'"):
        get_clip_corruption('x')
    with pytest.raises(RobustDetError, match='severity'):
        corrupt_clip(clip(), 'h264_crf', 6)
    with pytest.raises(RobustDetError, match=r'\(T, H, W, 3\) uint8'):
        corrupt_clip(clip().astype(np.float32), 'h264_crf', 1)
    with pytest.raises(RobustDetError, match='at least 8 frames'):
        corrupt_clip(clip(frames=4), 'box_jumbling', 1)
