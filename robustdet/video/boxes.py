# Copyright (c) robustdet contributors. All rights reserved.
"""Ground-truth boxes through the image transforms of clip corruptions."""
from typing import Tuple

import numpy as np

from robustdet.utils.errors import RobustDetError

MIN_AREA_FRAC = 0.25
MIN_AREA_PX = 1.0


def transform_boxes(boxes: np.ndarray,
                    matrix: np.ndarray,
                    width: int,
                    height: int,
                    min_area_frac: float = MIN_AREA_FRAC
                    ) -> Tuple[np.ndarray, np.ndarray]:
    """Map xyxy boxes through a 3x3 transform and clip them to the image.

    Coordinates are continuous pixel coordinates (the mmdet box
    convention): pixel ``(row i, column j)`` covers ``[j, j + 1) x
    [i, i + 1)``, so the image is ``[0, width] x [0, height]``.

    The rule, in order:

    1. The four corners of each box are mapped through ``matrix``
       (with the perspective divide) and re-enclosed by the smallest
       axis-aligned box: the *transformed box*.
    2. The transformed box is clipped to ``[0, width] x [0, height]``:
       the *clipped box*, which is what is returned.
    3. A box is kept when its clipped area is at least ``min_area_frac``
       times the transformed box's area *and* at least 1 square pixel;
       otherwise it is dropped (mostly out of frame).

    Args:
        boxes (np.ndarray): (N, 4) boxes ``x1, y1, x2, y2``.
        matrix (np.ndarray): (3, 3) transform from input to output
            coordinates, e.g. ``ClipResult.transforms[t]``.
        width (int): Output image width.
        height (int): Output image height.
        min_area_frac (float): Smallest kept fraction of the transformed
            box's area that lies inside the image. Defaults to 0.25.

    Returns:
        tuple[np.ndarray, np.ndarray]: The (N, 4) float64 clipped boxes
        (dropped ones included, in input order) and the (N,) bool keep
        mask.
    """
    boxes = np.asarray(boxes, dtype=np.float64)
    matrix = np.asarray(matrix, dtype=np.float64)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise RobustDetError(
            f'boxes must have shape (N, 4), got {boxes.shape}')
    if matrix.shape != (3, 3):
        raise RobustDetError(
            f'matrix must have shape (3, 3), got {matrix.shape}')
    if not 0 <= min_area_frac <= 1:
        raise RobustDetError(
            f'min_area_frac must be in [0, 1], got {min_area_frac}')
    n = len(boxes)
    if n == 0:
        return np.zeros((0, 4)), np.zeros(0, dtype=bool)
    x1, y1, x2, y2 = boxes.T
    corners = np.stack([
        np.stack([x1, y1], -1),
        np.stack([x2, y1], -1),
        np.stack([x2, y2], -1),
        np.stack([x1, y2], -1)
    ], 1)  # (N, 4, 2)
    homog = np.concatenate([corners, np.ones((n, 4, 1))], -1)
    mapped = homog @ matrix.T
    w = mapped[..., 2:3]
    w = np.where(np.abs(w) < 1e-12, 1e-12, w)
    pts = mapped[..., :2] / w
    new = np.concatenate([pts.min(1), pts.max(1)], -1)
    area = ((new[:, 2] - new[:, 0]).clip(min=0) *
            (new[:, 3] - new[:, 1]).clip(min=0))
    clipped = new.copy()
    clipped[:, 0::2] = clipped[:, 0::2].clip(0, width)
    clipped[:, 1::2] = clipped[:, 1::2].clip(0, height)
    clipped_area = ((clipped[:, 2] - clipped[:, 0]) *
                    (clipped[:, 3] - clipped[:, 1]))
    keep = ((clipped_area >= min_area_frac * area) &
            (clipped_area >= MIN_AREA_PX))
    return clipped, keep
