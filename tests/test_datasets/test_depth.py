# Copyright (c) robustdet contributors. All rights reserved.
"""Depth sources on tiny generated trees: Cityscapes disparity with the
camera calibration, folders of 16-bit PNG, .npy and float TIFF maps."""
import json
import os
import os.path as osp

import cv2
import numpy as np
import pytest

from robustdet.corruptions.threedcc import corrupt_3dcc
from robustdet.datasets.depth import DepthSource
from robustdet.utils.errors import RobustDetError

H, W = 48, 64
STEM = 'lindau_000000_000019'
BASELINE, FX = 0.209313, 2262.52


def write_png(path, array):
    os.makedirs(osp.dirname(path), exist_ok=True)
    assert cv2.imwrite(path, array)


def write_json(path, obj):
    os.makedirs(osp.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        json.dump(obj, f)


def rgb_image(seed=0):
    return np.random.default_rng(seed).integers(
        0, 256, size=(H, W, 3), dtype=np.uint8)


def disparity_png():
    """Raw uint16 values: a ramp, an invalid row (0), a zero-disparity
    row (1)."""
    p = (2 + np.arange(H * W, dtype=np.uint16) * 7).reshape(H, W)
    p[0] = 0
    p[1] = 1
    p[2, :4] = (65535, 257, 2, 3)
    return p


@pytest.fixture(scope='module')
def city(tmp_path_factory):
    """A Cityscapes tree of one val image, its foggy version, disparity
    and camera file."""
    root = str(tmp_path_factory.mktemp('depth') / 'cityscapes')
    img = osp.join(root, 'leftImg8bit', 'val', 'lindau',
                   f'{STEM}_leftImg8bit.png')
    foggy = osp.join(root, 'leftImg8bit_foggy', 'val', 'lindau',
                     f'{STEM}_leftImg8bit_foggy_beta_0.02.png')
    write_png(img, rgb_image()[..., ::-1])
    write_png(foggy, rgb_image(1)[..., ::-1])
    write_png(
        osp.join(root, 'disparity', 'val', 'lindau',
                 f'{STEM}_disparity.png'), disparity_png())
    write_json(
        osp.join(root, 'camera', 'val', 'lindau', f'{STEM}_camera.json'),
        dict(
            extrinsic=dict(baseline=BASELINE, pitch=0.038, x=1.7),
            intrinsic=dict(fx=FX, fy=2265.3, u0=1096.98, v0=513.137)))
    return dict(root=root, img=img, foggy=foggy)


def test_cityscapes_depth_is_baseline_fx_over_disparity(city):
    source = DepthSource('cityscapes')
    depth = source.load(city['img'], data_root=city['root'])
    assert depth.dtype == np.float32 and depth.shape == (H, W)
    p = disparity_png()
    expected = np.empty((H, W), dtype=np.float32)
    for (y, x), value in np.ndenumerate(p):
        value = int(value)
        expected[y, x] = (
            BASELINE * FX / ((value - 1) / 256) if value > 1 else np.inf)
    np.testing.assert_array_equal(depth, expected)
    # Spot values: p = 257 is a disparity of 1 pixel.
    assert depth[2, 1] == np.float32(BASELINE * FX)
    assert depth[2, 2] == np.float32(BASELINE * FX * 256)
    assert np.isinf(depth[:2]).all() and np.isfinite(depth[2:]).all()
    assert source.paths(city['img'], city['root']) == (
        osp.join(city['root'], 'disparity', 'val', 'lindau',
                 f'{STEM}_disparity.png'),
        osp.join(city['root'], 'camera', 'val', 'lindau',
                 f'{STEM}_camera.json'))


def test_foggy_image_reads_the_clean_disparity(city):
    # root given explicitly (relative to data_root) or taken from data_root.
    parent = osp.dirname(city['root'])
    source = DepthSource('cityscapes', root='cityscapes')
    assert source.paths(city['foggy'], parent) == DepthSource(
        'cityscapes').paths(city['img'], city['root'])
    np.testing.assert_array_equal(
        source.load(city['foggy'], parent),
        DepthSource('cityscapes').load(city['img'], city['root']))


def test_cityscapes_errors(city, tmp_path):
    source = DepthSource('cityscapes')
    # A missing disparity: the image and the expected file are named.
    other = osp.join(city['root'], 'leftImg8bit', 'val', 'lindau',
                     'lindau_000001_000019_leftImg8bit.png')
    expected = osp.join(city['root'], 'disparity', 'val', 'lindau',
                        'lindau_000001_000019_disparity.png')
    with pytest.raises(RobustDetError) as e:
        source.load(other, city['root'])
    assert other in str(e.value) and expected in str(e.value)
    assert '\n' not in str(e.value)

    # Not a Cityscapes image name, or not in {split}/{city}/.
    for bad in ('val/lindau/lindau_1_2_leftImg8bit.png',
                f'val/lindau/{STEM}_rightImg8bit.png',
                f'val/aachen/{STEM}_leftImg8bit.png',
                f'{STEM}_leftImg8bit.png'):
        with pytest.raises(RobustDetError, match='not a Cityscapes left'):
            source.paths(osp.join(city['root'], bad), city['root'])
    with pytest.raises(RobustDetError, match='needs root or'):
        source.paths(city['img'])

    # Camera files without baseline or fx, or with a bad one.
    root = str(tmp_path / 'cs')
    img = osp.join(root, 'leftImg8bit', 'val', 'lindau',
                   f'{STEM}_leftImg8bit.png')
    camera = osp.join(root, 'camera', 'val', 'lindau', f'{STEM}_camera.json')
    write_png(
        osp.join(root, 'disparity', 'val', 'lindau',
                 f'{STEM}_disparity.png'), disparity_png())
    for obj, needs in ((dict(intrinsic=dict(fx=FX)), 'extrinsic.baseline'),
                       (dict(extrinsic=dict(baseline=BASELINE),
                             intrinsic=dict(fy=FX)), 'intrinsic.fx'),
                       (dict(extrinsic=dict(baseline=0.0),
                             intrinsic=dict(fx=FX)), 'extrinsic.baseline'),
                       ([1, 2], 'extrinsic.baseline')):
        write_json(camera, obj)
        with pytest.raises(RobustDetError) as e:
            source.load(img, root)
        assert camera in str(e.value) and needs in str(e.value)
    with open(camera, 'w') as f:
        f.write('{"extrinsic": ')
    with pytest.raises(RobustDetError, match='cannot parse .*JSON'):
        source.load(img, root)
    # An 8-bit disparity PNG is not Cityscapes disparity.
    write_json(camera, dict(extrinsic=dict(baseline=1), intrinsic=dict(fx=1)))
    write_png(
        osp.join(root, 'disparity', 'val', 'lindau',
                 f'{STEM}_disparity.png'), np.ones((H, W), np.uint8))
    with pytest.raises(RobustDetError, match='not a 16-bit disparity'):
        source.load(img, root)


def test_folder_of_16bit_pngs_in_millimetres(tmp_path):
    data_root = str(tmp_path / 'data')
    img = osp.join(data_root, 'images', 'a', 'x_leftImg8bit.png')
    mm = (np.arange(H * W, dtype=np.uint16) * 13 + 500).reshape(H, W)
    mm[5, 7] = 0  # no measurement
    write_png(osp.join(data_root, 'depth', 'a', 'x_depth.png'), mm)
    source = DepthSource(
        'folder',
        root='depth',
        suffix='_depth.png',
        scale=0.001,
        img_suffix='_leftImg8bit.png',
        image_root='images')
    assert source.paths(img, data_root) == (osp.join(
        data_root, 'depth', 'a', 'x_depth.png'), )
    depth = source.load(img, data_root)
    expected = (mm.astype(np.float64) * 0.001).astype(np.float32)
    expected[5, 7] = np.inf
    assert depth.dtype == np.float32
    np.testing.assert_array_equal(depth, expected)
    assert depth[0, 0] == np.float32(0.5)

    # The extension alone is replaced by default; an image root that does
    # not hold the image, or an unmatched img_suffix, is an error.
    plain = DepthSource('folder', root='depth', suffix='.png', scale=1)
    assert plain.paths(img, data_root) == (osp.join(
        data_root, 'depth', 'images', 'a', 'x_leftImg8bit.png'), )
    # Of endings that both match, the longest is replaced.
    longest = DepthSource(
        'folder',
        root='depth',
        suffix='_depth.png',
        scale=0.001,
        img_suffix=('.png', '_leftImg8bit.png'),
        image_root='images')
    assert longest.paths(img, data_root) == source.paths(img, data_root)
    with pytest.raises(RobustDetError, match='is not under'):
        source.paths(osp.join(data_root, 'other', 'x_leftImg8bit.png'),
                     data_root)
    with pytest.raises(RobustDetError, match='ends in none'):
        source.paths(osp.join(data_root, 'images', 'a', 'x.jpg'), data_root)


def test_folder_of_npy_and_tiff(tmp_path):
    root = str(tmp_path / 'depth')
    img = str(tmp_path / 'images' / 'b' / 'y.jpg')
    values = np.linspace(0.5, 40.0, H * W, dtype=np.float32).reshape(H, W)
    values[0, :4] = (0.0, -1.0, np.nan, np.inf)
    os.makedirs(osp.join(root, 'b'))
    np.save(osp.join(root, 'b', 'y.npy'), values[None])  # 1×H×W
    assert cv2.imwrite(osp.join(root, 'b', 'y.tiff'), values)
    known = np.ones((H, W), bool)
    known[0, :4] = False

    metres = DepthSource('folder', root=root, suffix='.npy', scale=2.0)
    depth = metres.load(img, str(tmp_path / 'images'))
    expected = np.where(known, values.astype(np.float64) * 2.0, np.inf)
    np.testing.assert_array_equal(depth, expected.astype(np.float32))

    inverse = DepthSource(
        'folder', root=root, suffix='.tiff', scale=0.5, inverse=True)
    depth = inverse.load(img, str(tmp_path / 'images'))
    with np.errstate(divide='ignore'):
        inverted = 1.0 / (values.astype(np.float64) * 0.5)
    expected = np.where(known, inverted, np.inf)
    np.testing.assert_array_equal(depth, expected.astype(np.float32))

    # A relative image path with no root is taken as it is.
    rel = DepthSource('folder', root=root, suffix='.npy', scale=1.0)
    assert rel.paths('b/y.jpg') == (osp.join(root, 'b', 'y.npy'), )


def test_folder_missing_and_unreadable_files(tmp_path):
    root = str(tmp_path / 'depth')
    data_root = str(tmp_path / 'images')
    img = osp.join(data_root, 'c', 'z.png')
    source = DepthSource('folder', root=root, suffix='.npy', scale=1.0)
    expected = osp.join(root, 'c', 'z.npy')
    with pytest.raises(RobustDetError) as e:
        source.load(img, data_root)
    message = str(e.value)
    assert img in message and expected in message and '\n' not in message

    os.makedirs(osp.dirname(expected))
    for content, pattern in ((b'not an array', 'cannot read .* .npy'),
                             (b'', 'cannot read .* .npy')):
        with open(expected, 'wb') as f:
            f.write(content)
        with pytest.raises(RobustDetError, match=pattern):
            source.load(img, data_root)
    np.save(expected, np.zeros((2, H, W)))
    with pytest.raises(RobustDetError, match='not an H×W depth map'):
        source.load(img, data_root)
    np.save(expected, np.zeros((H, W), bool))
    with pytest.raises(RobustDetError, match='real-valued'):
        source.load(img, data_root)

    png = DepthSource('folder', root=root, suffix='.png', scale=1.0)
    with open(osp.join(root, 'c', 'z.png'), 'wb') as f:
        f.write(b'\x89PNG garbage')
    with pytest.raises(RobustDetError, match='cannot decode'):
        png.load(img, data_root)
    assert cv2.imwrite(osp.join(root, 'c', 'z.png'), rgb_image())
    with pytest.raises(RobustDetError, match='not a single-channel'):
        png.load(img, data_root)


def test_config_checks():
    cases = [
        (dict(kind='lidar'), "unknown depth source kind 'lidar'"),
        (dict(kind='folder', root='d', suffix='.png'), 'needs scale'),
        (dict(kind='folder', root='d', suffix='.png', scale=0), 'scale'),
        (dict(kind='folder', root='d', suffix='.png', scale=-1e-3), 'scale'),
        (dict(kind='folder', root='d', suffix='.png', scale=float('nan')),
         'scale'),
        (dict(kind='folder', root='d', suffix='.png', scale=True), 'scale'),
        (dict(kind='folder', root='d', scale=1.0), 'needs suffix'),
        (dict(kind='folder', root='d', suffix='.jpg', scale=1.0), 'suffix'),
        (dict(kind='folder', suffix='.npy', scale=1.0), 'needs root'),
        (dict(kind='cityscapes', scale=1.0), "'cityscapes' takes no scale"),
        (dict(kind='cityscapes', suffix='.png'), 'takes no suffix'),
        (dict(kind='cityscapes', depth_root='x'), 'unknown depth source key'),
        (dict(root='x'), 'needs kind'),
        ('cityscapes', 'must be a dict'),
    ]
    for cfg, pattern in cases:
        with pytest.raises(RobustDetError, match=pattern) as e:
            DepthSource.from_cfg(cfg)
        assert '\n' not in str(e.value)


def test_cfg_round_trip():
    sources = [
        DepthSource('cityscapes'),
        DepthSource('cityscapes', root='/data/cityscapes'),
        DepthSource(
            'folder',
            root='depth_anything',
            suffix='_depth.npy',
            scale=1,
            inverse=True,
            img_suffix=[
                '_leftImg8bit.png', '_leftImg8bit_foggy_beta_0.02.png'
            ],
            image_root='leftImg8bit_foggy/val'),
        DepthSource('folder', root='depth', suffix='.png', scale=0.001),
    ]
    for source in sources:
        cfg = source.to_cfg()
        again = DepthSource.from_cfg(json.loads(json.dumps(cfg)))
        assert again == source and hash(again) == hash(source)
        assert again.to_cfg() == cfg
    assert sources[0].to_cfg() == dict(
        kind='cityscapes', root='', calibration='taskonomy')
    assert sources[2].calibration == 'midas'
    assert sources[2].img_suffix == ('_leftImg8bit.png',
                                     '_leftImg8bit_foggy_beta_0.02.png')
    assert isinstance(sources[2].scale, float)
    assert DepthSource.from_cfg(sources[3]) is sources[3]


def test_loaded_depth_drives_fog_3d(city):
    img = cv2.imread(city['img'])[..., ::-1].copy()
    depth = DepthSource('cityscapes').load(city['img'], city['root'])
    mild = corrupt_3dcc(img, 'fog_3d', 1, 0, depth=depth)
    dense = corrupt_3dcc(img, 'fog_3d', 3, 0, depth=depth)
    assert mild.shape == dense.shape == img.shape
    assert not np.array_equal(mild, dense)
    assert not np.array_equal(mild, img)
    # Unknown depth (the rows p = 0, 1) is far: fogged like the farthest.
    airlight = np.float32(img.mean())
    t = np.exp(np.float32(-12.0))
    far = (img[:2].astype(np.float32) - airlight) * t + airlight + 0.5
    np.testing.assert_array_equal(dense[:2], far.astype(np.uint8))
    # threedcc itself rejects a depth map of another size, naming both.
    with pytest.raises(RobustDetError, match=r'\(47, 64\).*\(48, 64\)'):
        corrupt_3dcc(img, 'fog_3d', 3, 0, depth=depth[1:])


@pytest.mark.parametrize('cfg, match', [
    (dict(kind='cityscapes', calibration='metric'),
     "unknown depth calibration 'metric'; valid: taskonomy, midas, "
     'percentile'),
    (dict(kind='folder', root='midas', suffix='.png', scale=1.0,
          inverse=True, calibration='taskonomy'),
     "calibration 'taskonomy' is for metric depth, but the depth folder "
     "'midas' holds inverse depth"),
    (dict(kind='cityscapes', calibration='midas'),
     "calibration 'midas' is for a folder of inverse depth .*, but the "
     'Cityscapes depth is metric'),
])
def test_bad_calibration_is_one_line(cfg, match):
    with pytest.raises(RobustDetError, match=match):
        DepthSource.from_cfg(cfg)


def test_calibration_defaults_and_choices():
    assert DepthSource('cityscapes').calibration == 'taskonomy'
    assert DepthSource('folder', root='d', suffix='.npy', scale=1.0,
                       inverse=True).calibration == 'midas'
    for calibration in ('percentile', 'taskonomy'):
        assert DepthSource('cityscapes', calibration=calibration
                           ).calibration == calibration
    assert DepthSource('folder', root='d', suffix='.npy', scale=1.0,
                       inverse=True,
                       calibration='percentile').calibration == 'percentile'
