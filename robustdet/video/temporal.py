# Copyright (c) robustdet contributors. All rights reserved.
"""Temporal clip corruptions: frame rate, temporal blur, rain and the
temporal perturbations of Schiappa et al. 2023.

Every function has the signature ``fn(frames, param, seed) ->
ClipResult`` of :class:`~robustdet.video.types.ClipCorruption`; the
output keeps T, H and W. Random choices come from a generator seeded
with ``derive_seed(seed, name)``; no global RNG state is used. The
frame-reordering corruptions (``frame_rate``, ``sampling_rate``,
``reversal``, ``jumbling``, ``box_jumbling``, ``freezing``) copy input
frames unchanged: output frame t is exactly input frame
``source_index[t]``.
"""
import cv2
import numpy as np

from robustdet.utils.errors import RobustDetError
from robustdet.utils.seeding import derive_seed
from .types import (SCHIAPPA_2023, YI_2021, ClipCorruption, ClipResult, after,
                    check_clip)

NOMINAL_FPS = 30


def _reorder(frames: np.ndarray, index: np.ndarray) -> ClipResult:
    index = np.asarray(index, dtype=np.int64)
    return ClipResult(frames=frames[index].copy(), source_index=index)


def _rng(seed: int, name: str) -> np.random.Generator:
    return np.random.default_rng(derive_seed(seed, name))


def frame_rate_index(num_frames: int,
                     fps: float,
                     source_fps: float = NOMINAL_FPS) -> np.ndarray:
    """Which source frame a lower-rate camera delivers at each time.

    A camera at ``fps`` captures frame k at time ``k / fps``; at source
    time ``t / source_fps`` the latest captured frame is
    ``k = floor(t * fps / source_fps)``, shown as the source frame
    nearest its capture time, ``floor(k * source_fps / fps + 0.5)``
    (never later than t: frame k is first delivered at
    ``t = ceil(k * source_fps / fps)``).

    Args:
        num_frames (int): T.
        fps (float): Target frame rate, ``<= source_fps``.
        source_fps (float): Frame rate of the input clip.

    Returns:
        np.ndarray: (T,) int64 source indices, non-decreasing.
    """
    if not 0 < fps <= source_fps:
        raise RobustDetError(
            f'frame_rate: fps must be in (0, {source_fps}], got {fps}')
    t = np.arange(num_frames, dtype=np.float64)
    eps = 1e-9
    k = np.floor(t * fps / source_fps + eps)
    return np.floor(k * source_fps / fps + 0.5 + eps).astype(np.int64)


def frame_rate(frames: np.ndarray, param: float, seed: int) -> ClipResult:
    """Re-sample the clip to ``param`` fps, holding each captured frame.

    The input clip is assumed to be at :data:`NOMINAL_FPS` (30 fps); see
    :func:`frame_rate_index`. Deterministic (``seed`` is unused).

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip at 30 fps.
        param (float): Target frame rate.
        seed (int): Unused.

    Returns:
        ClipResult: The re-timed clip.
    """
    t = check_clip(frames, 1, 'frame_rate')
    return _reorder(frames, frame_rate_index(t, param))


def temporal_blur(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """Mean over a centred window of ``param`` frames.

    The window ``[t - param // 2, t + param // 2]`` is clipped at the clip
    ends (fewer frames are averaged there), so any clip of at least two
    frames is accepted. Deterministic (``seed`` is unused).

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (int): Odd window size.
        seed (int): Unused.

    Returns:
        ClipResult: The blurred clip; ``source_index`` is the identity.
    """
    t = check_clip(frames, 2, 'temporal_blur')
    half = int(param) // 2
    # Exact integer window sums (255 * T fits int32); float32 division
    # then rounds like float64 would: a mean is a multiple of 1/n, so it is
    # either exactly x.5 or at least 1/22 away from it.
    csum = np.zeros((t + 1, ) + frames.shape[1:], np.int32)
    np.cumsum(frames, axis=0, dtype=np.int32, out=csum[1:])
    idx = np.arange(t)
    lo = np.clip(idx - half, 0, t)
    hi = np.clip(idx + half + 1, 0, t)
    mean = (csum[hi] - csum[lo]).astype(np.float32)
    mean /= (hi - lo).astype(np.float32)[:, None, None, None]
    out = np.rint(mean, out=mean).astype(np.uint8)
    return ClipResult(frames=out, source_index=idx.astype(np.int64))


def rain(frames: np.ndarray, param: tuple, seed: int) -> ClipResult:
    """Falling rain streaks drawn over every frame.

    ``param = (density, length, opacity)``: ``density`` streaks per 1000
    pixels, each ``length * H`` pixels long, blended towards light grey
    (220) with ``opacity``. One wind angle (uniform in [-15, 15] degrees)
    is drawn per clip; every streak falls along it by its own length per
    frame and wraps round at the bottom, so streaks move consistently
    between frames. The streaks of a lower density are a subset of those
    of a higher one for the same seed.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (tuple): ``(density, length, opacity)``.
        seed (int): Seed for the streaks.

    Returns:
        ClipResult: The rainy clip; ``source_index`` is the identity.
    """
    t, h, w = check_clip(frames, 1, 'rain'), frames.shape[1], frames.shape[2]
    density, length, opacity = param
    rng = _rng(seed, 'rain')
    theta = np.deg2rad(rng.uniform(-15, 15))
    max_n = int(np.ceil(10.0 * h * w / 1000))  # enough for density <= 10
    n = min(max_n, int(round(density * h * w / 1000)))
    streak = max(2.0, length * h)
    period = h + streak
    dx, dy = np.tan(theta), 1.0
    margin = abs(dx) * period
    x0 = rng.uniform(-margin, w + margin, max_n)[:n]
    y0 = rng.uniform(0, period, max_n)[:n]
    thick = max(1, int(round(min(h, w) / 400)))
    out = np.empty_like(frames)
    for i in range(t):
        s = np.mod(y0 + streak * i, period) - streak  # head's y
        xs = x0 + dx * (s - y0)
        mask = np.zeros((h, w), np.uint8)
        for x, y in zip(xs, s):
            p1 = (int(round(x * 16)), int(round(y * 16)))
            p2 = (int(round((x + dx * streak) * 16)),
                  int(round((y + dy * streak) * 16)))
            cv2.line(mask, p1, p2, 255, thick, cv2.LINE_AA, 4)
        alpha = mask.astype(np.float32)[..., None] * (opacity / 255.0)
        frame = frames[i].astype(np.float32)
        out[i] = np.clip(
            np.rint(frame * (1 - alpha) + 220.0 * alpha), 0,
            255).astype(np.uint8)
    return ClipResult(frames=out, source_index=np.arange(t, dtype=np.int64))


def sampling_rate(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """Play the clip ``param`` times faster, looping round at the end.

    ``source_index[t] = (param * t) mod T``: the clip is played
    ``param`` times in the same duration, each time skipping frames.
    Deterministic (``seed`` is unused).

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (int): Speed-up factor.
        seed (int): Unused.

    Returns:
        ClipResult: The sped-up clip.
    """
    t = check_clip(frames, 2, 'sampling_rate')
    return _reorder(frames, (int(param) * np.arange(t)) % t)


def _segments(num_frames: int, length: int) -> list:
    starts = range(0, num_frames, length)
    return [np.arange(s, min(s + length, num_frames)) for s in starts]


def reversal(frames: np.ndarray, param: float, seed: int) -> ClipResult:
    """Reverse consecutive segments of ``param`` of the clip each.

    The clip is cut into segments of ``max(2, round(param * T))`` frames
    from its start (the last one may be shorter) and every segment is
    played backwards; ``param = 1`` reverses the whole clip.
    Deterministic (``seed`` is unused).

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (float): Segment length as a fraction of T, in (0, 1].
        seed (int): Unused.

    Returns:
        ClipResult: The reversed clip.
    """
    t = check_clip(frames, 2, 'reversal')
    length = max(2, int(round(param * t)))
    index = np.concatenate([seg[::-1] for seg in _segments(t, length)])
    return _reorder(frames, index)


def jumbling(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """Shuffle the frames within consecutive segments of ``param`` frames.

    The clip is cut into segments of ``param`` frames from its start (the
    last one may be shorter); each segment's frames are put in a random
    order that is not the identity (when the segment has two frames or
    more).

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (int): Segment length in frames.
        seed (int): Seed for the shuffles.

    Returns:
        ClipResult: The jumbled clip.
    """
    t = check_clip(frames, 2, 'jumbling')
    rng = _rng(seed, 'jumbling')
    parts = []
    for seg in _segments(t, int(param)):
        perm = rng.permutation(len(seg))
        while len(seg) > 1 and np.all(perm == np.arange(len(seg))):
            perm = rng.permutation(len(seg))
        parts.append(seg[perm])
    return _reorder(frames, np.concatenate(parts))


def _box_order(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random order of n segments where no segment follows its
    predecessor of the clean clip and the first one does not stay first,
    so the output has exactly n - 1 cuts plus a changed start."""
    for _ in range(10000):
        perm = rng.permutation(n)
        if perm[0] != 0 and not np.any(np.diff(perm) == 1):
            return perm
    return np.arange(n)[::-1].copy()  # pragma: no cover


def box_jumbling(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """Cut the clip into ``param`` segments and shuffle their order.

    The clip is cut into ``param`` near-equal segments
    (``np.array_split``), kept in their internal order and played in a
    random order in which no segment directly follows the segment it
    followed in the clean clip and the first one moves: more segments
    mean more cuts. Needs ``T >= param``.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (int): Number of segments.
        seed (int): Seed for the order.

    Returns:
        ClipResult: The jumbled clip.
    """
    t = check_clip(frames, 2, 'box_jumbling')
    n = int(param)
    if t < n:
        raise RobustDetError(f'box_jumbling: clip has {t} frames, needs '
                             f'at least {n} for {n} segments')
    segs = np.array_split(np.arange(t), n)
    order = _box_order(n, _rng(seed, 'box_jumbling'))
    return _reorder(frames, np.concatenate([segs[i] for i in order]))


def freezing(frames: np.ndarray, param: float, seed: int) -> ClipResult:
    """Freeze a fraction of the frames on the previous delivered frame.

    ``round(param * (T - 1))`` of the frames 1..T-1, chosen at random,
    show the frame delivered before them (runs of frozen frames hold the
    last good frame). For the same seed the frozen frames of a lower
    fraction are a subset of those of a higher one.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (float): Fraction of frames frozen, in [0, 1].
        seed (int): Seed for the choice of frames.

    Returns:
        ClipResult: The frozen clip.
    """
    t = check_clip(frames, 2, 'freezing')
    order = _rng(seed, 'freezing').permutation(np.arange(1, t))
    frozen = np.zeros(t, dtype=bool)
    frozen[order[:int(round(param * (t - 1)))]] = True
    index = np.arange(t)
    for i in range(1, t):
        if frozen[i]:
            index[i] = index[i - 1]
    return _reorder(frames, index)


CORRUPTIONS = (
    ClipCorruption(
        name='frame_rate',
        family='temporal',
        params=(20, 16, 12, 9, 6),
        fn=frame_rate,
        min_frames=1,
        source=YI_2021,
        extra=dict(
            unit='fps',
            source_fps=NOMINAL_FPS,
            note='input assumed at 30 fps; each frame a lower-rate '
            'camera captures is held until the next one')),
    ClipCorruption(
        name='temporal_blur',
        family='blur',
        params=(3, 5, 7, 9, 11),
        fn=temporal_blur,
        min_frames=2,
        source=after(YI_2021),
        extra=dict(
            unit='frames (centred window, clipped at the clip ends)')),
    ClipCorruption(
        name='rain',
        family='weather',
        params=((0.5, 0.08, 0.5), (1.0, 0.10, 0.6), (2.0, 0.12, 0.7),
                (3.0, 0.15, 0.8), (4.5, 0.18, 0.9)),
        fn=rain,
        min_frames=1,
        source=after(YI_2021),
        extra=dict(
            unit='(streaks per 1000 px, length / H, opacity)',
            note='streaks fall by their length per frame along one '
            'seeded wind angle in [-15, 15] degrees')),
    ClipCorruption(
        name='sampling_rate',
        family='temporal',
        params=(2, 3, 4, 5, 6),
        fn=sampling_rate,
        min_frames=2,
        source=after(SCHIAPPA_2023),
        extra=dict(
            unit='speed-up factor',
            note='source_index[t] = param * t mod T (loops)')),
    ClipCorruption(
        name='reversal',
        family='temporal',
        params=(0.2, 0.4, 0.6, 0.8, 1.0),
        fn=reversal,
        min_frames=2,
        source=after(SCHIAPPA_2023),
        extra=dict(
            unit='segment length / T',
            note='every segment of max(2, round(param * T)) frames is '
            'played backwards')),
    ClipCorruption(
        name='jumbling',
        family='temporal',
        params=(2, 3, 4, 6, 8),
        fn=jumbling,
        min_frames=2,
        source=after(SCHIAPPA_2023),
        extra=dict(
            unit='segment length in frames',
            note='frames shuffled within each segment')),
    ClipCorruption(
        name='box_jumbling',
        family='temporal',
        params=(2, 3, 4, 6, 8),
        fn=box_jumbling,
        min_frames=8,
        source=after(SCHIAPPA_2023),
        extra=dict(
            unit='number of segments',
            note='segment order shuffled with no clean adjacency kept')),
    ClipCorruption(
        name='freezing',
        family='temporal',
        params=(0.1, 0.2, 0.3, 0.4, 0.5),
        fn=freezing,
        min_frames=2,
        source=after(SCHIAPPA_2023),
        extra=dict(
            unit='fraction of frames frozen',
            note='a frozen frame repeats the previous delivered frame')),
)

__all__ = ['CORRUPTIONS', 'NOMINAL_FPS', 'frame_rate_index']
