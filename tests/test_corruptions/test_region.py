# Copyright (c) robustdet contributors. All rights reserved.
import numpy as np
import pytest
from pycocotools import mask as mask_util

from robustdet.corruptions.region import (FEATHER, REGIONS, blend_region,
                                          check_region, object_mask,
                                          region_weight)
from robustdet.utils import RobustDetError

H, W = 64, 96


def box(x1, y1, x2, y2, ignore=0, **kwargs):
    return dict(
        bbox=[x1, y1, x2, y2], bbox_label=0, ignore_flag=ignore, **kwargs)


def disk_polygon(cx, cy, r, n=64):
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)],
                    axis=1).ravel().tolist()


def uncompressed(mask):
    """COCO's uncompressed RLE (``iscrowd`` annotations) of a mask."""
    flat = np.asarray(mask, dtype=np.uint8).ravel(order='F')
    changes = np.flatnonzero(np.diff(flat)) + 1
    edges = np.concatenate([[0], changes, [flat.size]])
    counts = np.diff(edges).tolist()
    if flat[0]:
        counts = [0] + counts
    return dict(size=list(mask.shape), counts=counts)


def brute_weight(objects, feather):
    """max(0, 1 - d / (feather + 1)), d by brute force in float64."""
    ys, xs = np.nonzero(objects)
    yy, xx = np.mgrid[0:objects.shape[0], 0:objects.shape[1]]
    d2 = ((yy[..., None] - ys)**2 + (xx[..., None] - xs)**2).min(-1)
    reach = feather + 1
    weight = np.maximum(1.0 - np.sqrt(d2) / reach, 0.0)
    return weight.astype(np.float32)


def boundary(mask):
    """Pixels with both a True and a False pixel in their 3 x 3."""
    padded = np.pad(mask, 1, mode='edge')
    windows = [
        padded[i:i + mask.shape[0], j:j + mask.shape[1]] for i in range(3)
        for j in range(3)
    ]
    return np.any(windows, axis=0) & ~np.all(windows, axis=0)


@pytest.fixture(scope='module')
def images():
    rng = np.random.default_rng(0)
    clean = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    corrupted = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    return clean, corrupted


INSTANCES = [
    box(10, 8, 30, 28),
    box(50.3, 30.7, 52.0, 60.2, mask=[disk_polygon(60, 40, 12)]),
    box(80, 2, 90, 12, ignore=1),
]


def test_check_region():
    for region in REGIONS:
        assert check_region(region) == region
    with pytest.raises(RobustDetError, match='objects, background') as e:
        check_region('object')
    assert '\n' not in str(e.value)


def test_box_covers_pixel_centres():
    mask = object_mask(H, W, [box(10, 20, 30, 40)])
    assert mask.dtype == bool and mask.shape == (H, W)
    assert np.array_equal(np.argwhere(mask.any(0)).ravel(), np.arange(10, 30))
    assert np.array_equal(np.argwhere(mask.any(1)).ravel(), np.arange(20, 40))
    assert mask.sum() == 20 * 20
    # Centres j + 0.5 in [x1, x2): columns 10-29, rows 21-39.
    mask = object_mask(H, W, [box(10.4, 20.6, 29.6, 40.5)])
    assert np.array_equal(np.argwhere(mask.any(0)).ravel(), np.arange(10, 30))
    assert np.array_equal(np.argwhere(mask.any(1)).ravel(), np.arange(21, 40))
    # Narrower than a pixel: the pixel holding its middle.
    mask = object_mask(H, W, [box(5.6, 7.1, 5.9, 7.3)])
    assert np.array_equal(np.argwhere(mask), [[7, 5]])
    # Clipped to the image.
    mask = object_mask(H, W, [box(-5, -5, 3, 2), box(90, 60, 200, 100)])
    assert mask.sum() == 3 * 2 + 6 * 4
    assert mask[:2, :3].all() and mask[60:, 90:].all()


def test_mask_replaces_box_and_ignored_count():
    polygon = [[20, 20, 30, 20, 30, 30, 20, 30]]
    mask = object_mask(H, W, [box(0, 0, 60, 60, mask=polygon)])
    assert not mask[:10].any() and mask[22:28, 22:28].all()
    assert 80 <= mask.sum() <= 130
    # Polygons of fewer than 3 points: the box.
    mask = object_mask(H, W, [box(0, 0, 8, 4, mask=[[1, 1, 2, 2]])])
    assert mask.sum() == 32 and mask[:4, :8].all()
    mask = object_mask(H, W, [box(80, 2, 90, 12, ignore=1)])
    assert mask.sum() == 100


@pytest.mark.parametrize('feather', [0, 1, FEATHER, 7, 12])
def test_weight_is_the_euclidean_ramp(feather):
    weight = region_weight(H, W, INSTANCES, feather=feather)
    objects = object_mask(H, W, INSTANCES)
    assert weight.dtype == np.float32 and weight.shape == (H, W)
    np.testing.assert_array_equal(weight, brute_weight(objects, feather))
    assert (weight[objects] == 1).all()
    # Down across the bottom edge of the first box (rows 8-27): exactly
    # `feather` pixels between 0 and 1, falling linearly, then 0.
    column = weight[28:, 20]
    ramp = column[(column > 0) & (column < 1)]
    assert ramp.size == feather
    np.testing.assert_allclose(
        ramp, 1 - np.arange(1, feather + 1) / (feather + 1), rtol=1e-6)
    assert (column[:feather] == ramp).all() and not column[feather:].any()
    assert (weight[8:28, 20] == 1).all()
    assert (weight[45:, :30] == 0).all()


def test_weight_of_no_instances_and_bad_feather():
    assert not region_weight(H, W, []).any()
    for feather in (-1, 2.5, True):
        with pytest.raises(RobustDetError, match='feather'):
            region_weight(H, W, INSTANCES, feather=feather)


def test_rle_and_polygon_agree():
    polygon = disk_polygon(40, 30, 15.3, n=16)
    from_polygon = object_mask(H, W, [box(0, 0, 1, 1, mask=[polygon])])
    yy, xx = np.mgrid[0:H, 0:W]
    disk = (yy + 0.5 - 30)**2 + (xx + 0.5 - 40)**2 <= 15.3**2
    rle = mask_util.encode(np.asfortranarray(disk.astype(np.uint8)))
    as_str = dict(size=rle['size'], counts=rle['counts'].decode())
    masks = [
        object_mask(H, W, [box(0, 0, 1, 1, mask=m)])
        for m in (rle, as_str, uncompressed(disk))
    ]
    for mask in masks:
        np.testing.assert_array_equal(mask, disk)
    # A 16-gon in the disk (0.3 pixels inside the circle at most) differs
    # from it only next to the boundary.
    differ = from_polygon ^ disk
    assert not (differ & ~boundary(disk)).any()
    assert differ.sum() < 0.1 * disk.sum()


def test_rle_of_wrong_size():
    rle = mask_util.encode(np.ones((H, W + 1), dtype=np.uint8, order='F'))
    with pytest.raises(RobustDetError, match='RLE of size') as e:
        object_mask(H, W, [box(0, 0, 4, 4, mask=rle)])
    assert '\n' not in str(e.value)


def test_regions_partition_the_change(images):
    clean, corrupted = images
    weight = region_weight(H, W, INSTANCES)
    objects = blend_region(clean, corrupted, weight, 'objects')
    background = blend_region(clean, corrupted, weight, 'background')
    assert objects.dtype == background.dtype == np.uint8
    assert objects.shape == background.shape == clean.shape
    c = clean.astype(np.int16)
    change = (objects - c) + (background - c)
    assert np.abs(change - (corrupted - c)).max() <= 1
    inside, outside = weight == 1, weight == 0
    assert np.array_equal(objects[inside], corrupted[inside])
    assert np.array_equal(objects[outside], clean[outside])
    assert np.array_equal(background[inside], clean[inside])
    assert np.array_equal(background[outside], corrupted[outside])
    # In the band: the rounded weighted mean.
    band = np.nonzero((weight > 0) & (weight < 1))
    assert band[0].size > 100
    q = np.rint(weight[band] * np.float32(255)).astype(np.int64)[:, None]
    k, c = corrupted[band].astype(np.int64), clean[band].astype(np.int64)
    np.testing.assert_array_equal(objects[band],
                                  (q * k + (255 - q) * c + 127) // 255)
    mean = weight[band][:, None] * k + (1 - weight[band][:, None]) * c
    assert np.abs(objects[band] - mean).max() <= 0.5 + 255 / 510


def test_all_returns_corrupted(images):
    clean, corrupted = images
    weight = region_weight(H, W, INSTANCES)
    assert blend_region(clean, corrupted, weight, 'all') is corrupted
    with pytest.raises(RobustDetError, match='valid'):
        blend_region(clean, corrupted, weight, 'foreground')


def test_no_instances(images):
    clean, corrupted = images
    weight = region_weight(H, W, [])
    np.testing.assert_array_equal(
        blend_region(clean, corrupted, weight, 'objects'), clean)
    np.testing.assert_array_equal(
        blend_region(clean, corrupted, weight, 'background'), corrupted)


@pytest.mark.parametrize('region', ['objects', 'background'])
def test_grayscale_and_deterministic(images, region):
    clean, corrupted = images
    weight = region_weight(H, W, INSTANCES)
    colour = blend_region(clean, corrupted, weight, region)
    grey = blend_region(clean[..., 1], corrupted[..., 1], weight, region)
    assert grey.shape == (H, W) and grey.dtype == np.uint8
    np.testing.assert_array_equal(grey, colour[..., 1])
    again = blend_region(clean, corrupted,
                         region_weight(H, W, INSTANCES), region)
    np.testing.assert_array_equal(again, colour)
    # The inputs are left as they were.
    assert not np.array_equal(colour, clean if region == 'objects' else
                              corrupted)
