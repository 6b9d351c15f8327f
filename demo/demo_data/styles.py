# Copyright (c) robustdet contributors. All rights reserved.
"""Procedural "paintings": style images for the stylization demo and tests.

Each is a smooth colour field from a small random palette with a few
hundred random brush strokes on top, different in palette, stroke width
and direction per image: enough for AdaIN to transfer distinct colour and
texture statistics, generated from a seed (no data to download).
"""
import os
import os.path as osp
from typing import List, Tuple

import cv2
import numpy as np

from robustdet.utils.io import write_bytes_atomic


def _palette(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` saturated RGB colours (float, 0-255) around a random hue."""
    base = rng.uniform(0, 180)
    hues = (base + rng.normal(0, 25, size)) % 180
    hsv = np.stack([
        hues,
        rng.uniform(120, 255, size),
        rng.uniform(60, 255, size)
    ], 1).astype(np.uint8)[None]
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0].astype(np.float64)


def style_image(seed: int, size: Tuple[int, int] = (256, 256)) -> np.ndarray:
    """One procedural painting.

    Args:
        seed (int): Seed of the image.
        size (tuple): (width, height).

    Returns:
        np.ndarray: (height, width, 3) uint8 RGB.
    """
    rng = np.random.default_rng(seed)
    width, height = size
    colours = _palette(rng, 4)
    yy, xx = np.mgrid[0:height, 0:width] / max(width, height)
    field = np.zeros((height, width))
    for _ in range(3):
        fx, fy = rng.uniform(1, 6, 2)
        field += np.sin(2 * np.pi * (fx * xx + fy * yy) + rng.uniform(0, 7))
    levels = np.clip(((field + 3) / 6 * 4).astype(int), 0, 3)
    img = colours[levels]
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(1, 4))
    strokes = _palette(rng, 6)
    angle = rng.uniform(0, np.pi)
    thickness = int(rng.integers(1, 6))
    for _ in range(int(rng.integers(150, 400))):
        x, y = rng.uniform(0, width), rng.uniform(0, height)
        a = angle + rng.normal(0, 0.4)
        length = rng.uniform(5, 30)
        end = (int(x + length * np.cos(a)), int(y + length * np.sin(a)))
        colour = tuple(float(c) for c in strokes[rng.integers(0, 6)])
        cv2.line(img, (int(x), int(y)), end, colour, thickness, cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8)


def write_style_images(out_dir: str,
                       num: int = 6,
                       seed: int = 0,
                       size: Tuple[int, int] = (256, 256)) -> List[str]:
    """Write ``num`` procedural paintings as ``style_XX.png`` (atomic, kept
    when already there).

    Args:
        out_dir (str): Directory to write into.
        num (int): How many.
        seed (int): Seed of the set.
        size (tuple): (width, height) of each.

    Returns:
        list[str]: The paths.
    """
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for i in range(num):
        path = osp.join(out_dir, f'style_{i:02d}.png')
        if not osp.exists(path):
            img = style_image(seed * 1000 + i, size)
            ok, buf = cv2.imencode('.png', img[..., ::-1])
            assert ok
            write_bytes_atomic(buf.tobytes(), path)
        paths.append(path)
    return paths
