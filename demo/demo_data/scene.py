# Copyright (c) robustdet contributors. All rights reserved.
"""Seeded synthetic scenes of simple shapes for demos and smoke tests.

A :class:`Scene` is a plain description (background seed, image size and a
list of :class:`SceneObject`). :func:`render_scene` turns it into an RGB
image deterministically, so objects can be moved and the scene re-rendered,
e.g. to build short video sequences. The background depends only on
``background_seed`` and the image size.

All randomness comes from a :class:`numpy.random.Generator` passed in by the
caller (:func:`sample_scene`) or created locally from an explicit seed
(the background); the global NumPy RNG is never used.
"""
import colorsys
import functools
import math
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

import cv2
import numpy as np

#: Object classes of the demo data, in label order.
DEMO_CLASSES = ('disc', 'square', 'triangle')
#: Representative RGB colour of each class (for visualisation metainfo).
DEMO_PALETTE = [(220, 50, 40), (40, 170, 60), (40, 80, 220)]

# Colour family of each class: (hue in degrees, hue jitter in degrees).
_HUES = ((0.0, 10.0), (125.0, 15.0), (225.0, 15.0))
# Number of vertices of the polygon that approximates a disc.
_DISC_VERTICES = 32
# Fixed-point precision (bits) of the sub-pixel coordinates given to cv2.
_SHIFT = 4
# Object size range in pixels for a 240 px short image side.
_MIN_SIZE, _MAX_SIZE = 16.0, 90.0
# Smallest object size in pixels whatever the image size.
_ABS_MIN_SIZE = 8.0


@dataclass
class SceneObject:
    """One object of a synthetic scene.

    Args:
        label (int): Index into :data:`DEMO_CLASSES`.
        cx (float): x of the object centre in pixels (0 is the left edge of
            the first pixel column).
        cy (float): y of the object centre in pixels.
        size (float): Diameter in pixels of the circle that circumscribes the
            shape (the disc's diameter; the square's diagonal; the
            equilateral triangle's circumscribed circle).
        angle (float): Rotation in radians (0 for discs).
        color (tuple): Base RGB colour, three ints in [0, 255].
    """

    label: int
    cx: float
    cy: float
    size: float
    angle: float
    color: Tuple[int, int, int]


@dataclass
class Scene:
    """A synthetic scene: a background plus non-overlapping objects.

    Args:
        width (int): Image width in pixels.
        height (int): Image height in pixels.
        background_seed (int): Seed of the background texture.
        objects (list[SceneObject]): Objects, drawn in list order.
    """

    width: int
    height: int
    background_seed: int
    objects: List[SceneObject] = field(default_factory=list)


def _hsv_to_rgb(h: float, s: float, v: float) -> Tuple[int, int, int]:
    """Convert HSV (hue in degrees, s and v in [0, 1]) to an RGB int tuple.

    Args:
        h (float): Hue in degrees.
        s (float): Saturation in [0, 1].
        v (float): Value in [0, 1].

    Returns:
        tuple[int, int, int]: RGB colour in [0, 255].
    """
    r, g, b = colorsys.hsv_to_rgb((h % 360.0) / 360.0, s, v)
    return (int(round(r * 255)), int(round(g * 255)), int(round(b * 255)))


def _sample_object_color(rng: np.random.Generator,
                         label: int) -> Tuple[int, int, int]:
    """Sample a saturated shade from the colour family of ``label``.

    Args:
        rng (np.random.Generator): Random generator.
        label (int): Class index.

    Returns:
        tuple[int, int, int]: RGB colour.
    """
    hue, jitter = _HUES[label]
    h = hue + rng.uniform(-jitter, jitter)
    s = rng.uniform(0.6, 0.95)
    v = rng.uniform(0.55, 0.95)
    return _hsv_to_rgb(h, s, v)


def size_range(width: int, height: int) -> Tuple[float, float]:
    """Return the range of object sizes used for an image size.

    Sizes are roughly 16-90 px for a 320x240 image and scale with the short
    image side, with a floor of 8 px.

    Args:
        width (int): Image width.
        height (int): Image height.

    Returns:
        tuple[float, float]: ``(min_size, max_size)`` in pixels.
    """
    scale = min(width, height) / 240.0
    min_size = max(_ABS_MIN_SIZE, _MIN_SIZE * scale)
    max_size = max(min_size, _MAX_SIZE * scale)
    return min_size, max_size


def clear_of(cx: float, cy: float, size: float,
             others: List['SceneObject'], gap: float) -> bool:
    """Whether the circumscribed circle of an object at (cx, cy) of
    ``size`` keeps at least ``gap`` pixels from those of ``others``."""
    return all(
        math.hypot(cx - o.cx, cy - o.cy) >= size / 2 + o.size / 2 + gap
        for o in others)


def sample_scene(rng: np.random.Generator,
                 width: int = 320,
                 height: int = 240,
                 max_objects: int = 5) -> Scene:
    """Sample a random scene with 1 to ``max_objects`` objects.

    Objects have log-uniformly distributed sizes (see :func:`size_range`),
    lie fully inside the image and do not overlap: their circumscribed
    circles keep a small gap, placed by rejection sampling (largest first).
    An object that cannot be placed is dropped, but the first one always
    fits.

    Args:
        rng (np.random.Generator): Source of all randomness.
        width (int): Image width in pixels. Defaults to 320.
        height (int): Image height in pixels. Defaults to 240.
        max_objects (int): Maximum number of objects. Defaults to 5.

    Returns:
        Scene: The sampled scene.
    """
    min_size, max_size = size_range(width, height)
    margin = 1.0
    if min_size + 2 * margin > min(width, height):
        raise ValueError(f'image size {width}x{height} is too small for '
                         f'objects of at least {min_size:.0f} px')
    max_size = min(max_size, min(width, height) - 2 * margin)
    gap = max(2.0, 0.02 * min(width, height))

    background_seed = int(rng.integers(0, 2**31 - 1))
    num = int(rng.integers(1, max_objects + 1))
    labels = rng.integers(0, len(DEMO_CLASSES), size=num)
    sizes = np.exp(
        rng.uniform(math.log(min_size), math.log(max_size), size=num))
    sizes = np.sort(sizes)[::-1]

    objects: List[SceneObject] = []
    for label, size in zip(labels.tolist(), sizes.tolist()):
        radius = size / 2
        placed = None
        for _ in range(50):
            cx = rng.uniform(radius + margin, width - radius - margin)
            cy = rng.uniform(radius + margin, height - radius - margin)
            if clear_of(cx, cy, size, objects, gap):
                placed = (cx, cy)
                break
        angle = 0.0 if label == 0 else float(rng.uniform(0, 2 * math.pi))
        color = _sample_object_color(rng, label)
        if placed is None:
            continue
        objects.append(
            SceneObject(
                label=label,
                cx=float(placed[0]),
                cy=float(placed[1]),
                size=float(size),
                angle=angle,
                color=color))
    return Scene(
        width=int(width),
        height=int(height),
        background_seed=background_seed,
        objects=objects)


def object_polygon(obj: SceneObject) -> np.ndarray:
    """Return the outline of an object as a polygon in pixel coordinates.

    Args:
        obj (SceneObject): The object.

    Returns:
        np.ndarray: ``(N, 2)`` float64 array of ``(x, y)`` vertices: 32 for a
        disc, 4 for a square and 3 for a triangle.
    """
    radius = obj.size / 2
    if obj.label == 0:
        num, start = _DISC_VERTICES, 0.0
    elif obj.label == 1:
        num, start = 4, math.pi / 4
    elif obj.label == 2:
        num, start = 3, -math.pi / 2
    else:
        raise ValueError(f'unknown label {obj.label}')
    theta = obj.angle + start + 2 * math.pi * np.arange(num) / num
    return np.stack(
        [obj.cx + radius * np.cos(theta), obj.cy + radius * np.sin(theta)],
        axis=1)


def polygon_area(polygon: np.ndarray) -> float:
    """Area of a simple polygon (shoelace formula).

    Args:
        polygon (np.ndarray): ``(N, 2)`` vertices.

    Returns:
        float: The (unsigned) area.
    """
    x, y = polygon[:, 0], polygon[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) /
                 2)


def scene_annotations(scene: Scene) -> List[Dict]:
    """Ground truth of a scene, one dict per object in drawing order.

    Args:
        scene (Scene): The scene.

    Returns:
        list[dict]: Dicts with ``label`` (int), ``bbox`` (``[x1, y1, x2, y2]``
        floats, tight around the polygon and clipped to the image),
        ``polygon`` (flat ``[x0, y0, x1, y1, ...]`` list rounded to 2
        decimals) and ``area`` (area of the rounded polygon, 2 decimals).
        Boxes are computed from the rounded polygon.
    """
    anns = []
    for obj in scene.objects:
        poly = np.round(object_polygon(obj), 2)
        x1 = float(np.clip(poly[:, 0].min(), 0, scene.width))
        y1 = float(np.clip(poly[:, 1].min(), 0, scene.height))
        x2 = float(np.clip(poly[:, 0].max(), 0, scene.width))
        y2 = float(np.clip(poly[:, 1].max(), 0, scene.height))
        anns.append(
            dict(
                label=int(obj.label),
                bbox=[x1, y1, x2, y2],
                polygon=[float(v) for v in poly.reshape(-1)],
                area=round(polygon_area(poly), 2)))
    return anns


def background_horizon(background_seed: int, height: int) -> float:
    """Row of the horizon that splits a background into sky and ground.

    Args:
        background_seed (int): Seed of the background.
        height (int): Image height.

    Returns:
        float: The horizon's y coordinate in pixels.
    """
    rng = np.random.default_rng(background_seed)
    return float(rng.uniform(0.3, 0.6) * height)


def _value_noise(rng: np.random.Generator, width: int, height: int,
                 cells: Sequence[float],
                 amplitudes: Sequence[float]) -> np.ndarray:
    """Multi-octave smooth value noise in roughly [0, 1].

    Args:
        rng (np.random.Generator): Random generator.
        width (int): Output width.
        height (int): Output height.
        cells (Sequence[float]): Cell size in pixels of each octave.
        amplitudes (Sequence[float]): Weight of each octave.

    Returns:
        np.ndarray: ``(height, width)`` float32 noise.
    """
    out = np.zeros((height, width), np.float32)
    for cell, amp in zip(cells, amplitudes):
        gw = max(2, int(math.ceil(width / cell)) + 1)
        gh = max(2, int(math.ceil(height / cell)) + 1)
        grid = rng.random((gh, gw), dtype=np.float32)
        out += amp * cv2.resize(
            grid, (width, height), interpolation=cv2.INTER_CUBIC)
    return out / float(sum(amplitudes))


def _muted_color(rng: np.random.Generator, v_low: float,
                 v_high: float) -> np.ndarray:
    """Sample a low-saturation colour that does not mimic object colours.

    Args:
        rng (np.random.Generator): Random generator.
        v_low (float): Lowest value (brightness).
        v_high (float): Highest value (brightness).

    Returns:
        np.ndarray: RGB colour as float32 array of shape (3, ).
    """
    h = rng.uniform(0, 360)
    s = rng.uniform(0.03, 0.28)
    v = rng.uniform(v_low, v_high)
    return np.array(_hsv_to_rgb(h, s, v), np.float32)


@functools.lru_cache(maxsize=8)
def _background_cached(background_seed: int, width: int,
                       height: int) -> np.ndarray:
    """Render a background (cached; see :func:`render_background`).

    Args:
        background_seed (int): Seed of the background.
        width (int): Image width.
        height (int): Image height.

    Returns:
        np.ndarray: Read-only ``(height, width, 3)`` RGB uint8 image.
    """
    rng = np.random.default_rng(background_seed)
    # The first draw must stay the horizon, see background_horizon().
    horizon = rng.uniform(0.3, 0.6) * height
    scale = min(width, height) / 240.0

    sky_top = _muted_color(rng, 0.7, 0.95)
    sky_low = _muted_color(rng, 0.55, 0.9)
    ground_top = _muted_color(rng, 0.35, 0.65)
    ground_low = _muted_color(rng, 0.2, 0.5)

    ys = np.arange(height, dtype=np.float32)[:, None] + 0.5
    t_sky = np.clip(ys / max(horizon, 1.0), 0, 1)
    t_ground = np.clip((ys - horizon) / max(height - horizon, 1.0), 0, 1)
    sky = sky_top + (sky_low - sky_top) * t_sky
    ground = ground_top + (ground_low - ground_top) * t_ground
    soft = max(1.0, 0.02 * height)
    w_ground = 1.0 / (1.0 + np.exp(-(ys - horizon) / soft))
    rows = sky * (1 - w_ground) + ground * w_ground  # (H, 3)
    img = np.broadcast_to(rows[:, None, :], (height, width, 3)).copy()

    # Low frequency brightness variation everywhere, stronger texture in
    # the ground part, a little colour noise.
    coarse = _value_noise(rng, width, height,
                          [s * scale for s in (120, 60, 30)], (0.5, 0.3, 0.2))
    fine = _value_noise(rng, width, height,
                        [max(2.0, s * scale) for s in (12, 6, 3)],
                        (0.5, 0.3, 0.2))
    texture = (0.35 * (coarse - 0.5) +
               (0.08 + 0.32 * w_ground) * (fine - 0.5))
    img *= (1.0 + texture)[..., None]
    tint = _value_noise(rng, width, height, [80 * scale], (1.0, ))
    tint_color = rng.normal(0, 12, size=3).astype(np.float32)
    img += (tint - 0.5)[..., None] * tint_color

    # Clutter: soft blurred blobs and a few thin lines in muted colours,
    # composited with premultiplied alpha.
    layer = np.zeros((height, width, 3), np.float32)
    alpha = np.zeros((height, width), np.float32)
    for _ in range(int(rng.integers(3, 9))):
        color = _muted_color(rng, 0.15, 0.85)
        center = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        axes = (max(1, int(rng.uniform(8, 50) * scale)),
                max(1, int(rng.uniform(4, 25) * scale)))
        rot = float(rng.uniform(0, 180))
        opacity = float(rng.uniform(0.25, 0.6))
        cv2.ellipse(layer, center, axes, rot, 0, 360,
                    (color * opacity).tolist(), -1)
        cv2.ellipse(alpha, center, axes, rot, 0, 360, opacity, -1)
    sigma = max(1.0, 6.0 * scale)
    layer = cv2.GaussianBlur(layer, (0, 0), sigma)
    alpha = cv2.GaussianBlur(alpha, (0, 0), sigma)
    for _ in range(int(rng.integers(2, 6))):
        color = _muted_color(rng, 0.1, 0.7)
        p1 = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        p2 = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        thickness = max(1, int(round(rng.uniform(1, 3) * scale)))
        cv2.line(layer, p1, p2, (color * 0.8).tolist(), thickness)
        cv2.line(alpha, p1, p2, 0.8, thickness)
    img = img * (1 - alpha[..., None]) + layer
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    out.setflags(write=False)
    return out


def render_background(background_seed: int, width: int,
                      height: int) -> np.ndarray:
    """Render the textured background of a scene.

    A sky/ground-like vertical gradient with a random muted palette,
    multi-octave value noise and blurred clutter (blobs and thin lines).
    Background colours have low saturation so they do not mimic the
    saturated object colours. Depends only on the arguments.

    Args:
        background_seed (int): Seed of the background.
        width (int): Image width.
        height (int): Image height.

    Returns:
        np.ndarray: ``(height, width, 3)`` RGB uint8 image (a fresh copy).
    """
    return _background_cached(int(background_seed), int(width),
                              int(height)).copy()


def _fixed(points: np.ndarray) -> np.ndarray:
    """Convert float points to cv2 fixed-point int32 coordinates.

    Args:
        points (np.ndarray): ``(N, 2)`` float coordinates where integer
            values are pixel corners.

    Returns:
        np.ndarray: ``(N, 2)`` int32 coordinates for ``shift=_SHIFT``
        (cv2 puts integer coordinates at pixel centres, hence -0.5).
    """
    return np.round((points - 0.5) * (1 << _SHIFT)).astype(np.int32)


def _mix(color: np.ndarray, target: float, amount: float) -> Tuple:
    """Mix a colour with grey level ``target``.

    Args:
        color (np.ndarray): RGB colour.
        target (float): Grey level to mix with (0 black, 255 white).
        amount (float): Weight of the grey level in [0, 1].

    Returns:
        tuple: The mixed colour as a tuple of floats.
    """
    return tuple(float(c) for c in color * (1 - amount) + target * amount)


def _draw_object(img: np.ndarray, obj: SceneObject) -> None:
    """Draw one object into ``img`` in place (anti-aliased edges).

    The object is rendered in a patch: the base colour with a light
    gradient, a class-specific structure (a ring for discs, stripes for
    squares, an inner outline for triangles), a lighter highlight and a
    dark outline, all clipped to the polygon and alpha blended.

    Args:
        img (np.ndarray): RGB uint8 image, modified in place.
        obj (SceneObject): The object.
    """
    height, width = img.shape[:2]
    poly = object_polygon(obj)
    x0 = max(0, int(math.floor(poly[:, 0].min())) - 1)
    y0 = max(0, int(math.floor(poly[:, 1].min())) - 1)
    x1 = min(width, int(math.ceil(poly[:, 0].max())) + 1)
    y1 = min(height, int(math.ceil(poly[:, 1].max())) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    ph, pw = y1 - y0, x1 - x0
    offset = np.array([x0, y0], np.float64)
    local = poly - offset
    center = np.array([obj.cx, obj.cy]) - offset
    radius = obj.size / 2

    base = np.array(obj.color, np.float32)
    # Light comes from the top left: brightness gradient over the object.
    ys, xs = np.mgrid[0:ph, 0:pw].astype(np.float32)
    shade = ((xs + 0.5 - center[0]) + (ys + 0.5 - center[1])) / (
        2 * max(radius, 1.0))
    tex = base[None, None, :] * (1.0 - 0.18 * shade[..., None])
    tex = np.clip(tex, 0, 255).astype(np.uint8)

    thick = max(1, int(round(obj.size / 18)))
    dark = _mix(base, 0.0, 0.45)
    light = _mix(base, 255.0, 0.4)
    if obj.label == 0:
        ring = np.array([center[0], center[1]]) + 0.5
        cv2.circle(tex, tuple(_fixed(ring[None])[0]),
                   int(round(0.62 * radius * (1 << _SHIFT))), dark, thick,
                   cv2.LINE_AA, _SHIFT)
    elif obj.label == 1:
        # Stripes parallel to one side of the square.
        u = np.array([math.cos(obj.angle), math.sin(obj.angle)])
        v = np.array([-u[1], u[0]])
        for k in (-0.5, 0.0, 0.5):
            mid = center + v * k * radius * 0.7
            a = mid - u * radius
            b = mid + u * radius
            pts = _fixed(np.stack([a, b]))
            cv2.line(tex, tuple(pts[0]), tuple(pts[1]), dark, thick,
                     cv2.LINE_AA, _SHIFT)
    else:
        inner = center + (local - center) * 0.6
        cv2.polylines(tex, [_fixed(inner)], True, dark, thick, cv2.LINE_AA,
                      _SHIFT)
    highlight = center + (local - center) * 0.35 - 0.18 * radius
    cv2.fillPoly(tex, [_fixed(highlight)], light, cv2.LINE_AA, _SHIFT)
    cv2.polylines(tex, [_fixed(local)], True, dark, thick, cv2.LINE_AA,
                  _SHIFT)

    mask = np.zeros((ph, pw), np.uint8)
    cv2.fillPoly(mask, [_fixed(local)], 255, cv2.LINE_AA, _SHIFT)
    alpha = mask.astype(np.float32)[..., None] / 255.0
    region = img[y0:y1, x0:x1].astype(np.float32)
    blended = region * (1 - alpha) + tex.astype(np.float32) * alpha
    img[y0:y1, x0:x1] = (blended + 0.5).astype(np.uint8)


def render_scene(scene: Scene) -> np.ndarray:
    """Render a scene deterministically.

    Args:
        scene (Scene): The scene.

    Returns:
        np.ndarray: ``(height, width, 3)`` RGB uint8 image.
    """
    img = render_background(scene.background_seed, scene.width, scene.height)
    for obj in scene.objects:
        _draw_object(img, obj)
    return img
