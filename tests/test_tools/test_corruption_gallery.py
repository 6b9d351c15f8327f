# Copyright (c) robustdet contributors. All rights reserved.
"""tools/corruption_gallery.py: the grid's geometry, labels and pixels
(the benchmark's seeds, from an image file or a config), depth, the clip
galleries, byte-identical output and one-line errors."""
import json
import os
import os.path as osp
import shutil

import cv2
import numpy as np
import pytest
from PIL import Image

from demo_data.video import generate_video_demo
from robustdet.apis import gallery
from robustdet.corruptions import corrupt, resolve_corruptions
from robustdet.datasets import CorruptImage
from robustdet.datasets.transforms.corrupt import corruption_seed
from robustdet.datasets.video_corrupted import VideoCorruptedDataset, clip_seed
from robustdet.utils.cli import load_config
from robustdet.video import corrupt_clip
from robustdet.visualization import gallery as draw
from tests.conftest import REPO
from tests.tool_process import run_tool

TOOL = 'tools/corruption_gallery.py'


@pytest.fixture(scope='module')
def photo(demo_dir, tmp_path_factory):
    """A demo image (128×96) in a folder of its own."""
    folder = tmp_path_factory.mktemp('photo')
    src = osp.join(demo_dir, 'coco', 'val2017')
    name = sorted(os.listdir(src))[0]
    shutil.copy(osp.join(src, name), folder / name)
    return str(folder / name)


@pytest.fixture(scope='module')
def video(tmp_path_factory):
    """A tiny CocoVID demo: one video of 4 frames of 64×48."""
    return generate_video_demo(
        str(tmp_path_factory.mktemp('gallery_video') / 'vid'),
        num_videos=1, num_frames=4, size=(64, 48), k=1)


def _png(path):
    with Image.open(path) as im:
        return np.asarray(im.convert('RGB')), dict(im.text)


def _cell(canvas, layout, row, col):
    y, x = layout.cell_origin(row, col)
    return canvas[y:y + layout.cell_h, x:x + layout.cell_w]


def test_every_family_grid_labels_and_pixels(photo, tmp_path):
    out = tmp_path / 'new' / 'dir' / 'gallery.png'
    tokens = ['all', 'cbar', '3dcc_depth_free']
    proc = run_tool(TOOL, photo, '--corruptions', *tokens, '--severities',
                    '1', '3', '5', '--thumb-width', 32, '--out', out,
                    cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    names = resolve_corruptions(tokens)
    assert len(names) == 19 + 10 + 3
    canvas, text = _png(out)
    # One labelled row per corruption, clean + 3 severity columns.
    assert text['robustdet:rows'].split() == names
    assert text['robustdet:severities'] == '0 1 3 5'
    info = json.loads(text['robustdet:info'])
    assert info == dict(input=osp.basename(photo), seed=0, backend='fast',
                        channel_order='rgb')
    assert '32 corruptions x 4 columns' in proc.stdout
    # 128×96 → 32×24 thumbnails; the size is rows × columns of them.
    layout = draw.grid_layout(
        [draw.row_label(n) for n in names],
        draw.column_labels([0, 1, 3, 5], 32), (32, 24), title='t')
    assert (layout.rows, layout.cols) == (32, 4)
    assert canvas.shape == (layout.height, layout.width, 3)
    # Where the grid says, the thumbnails of what test_robust.py evaluates
    # (the seed of the image's identity, its file name here).
    rgb = gallery.read_image(photo)
    np.testing.assert_array_equal(
        _cell(canvas, layout, 0, 0), draw.thumbnail(rgb, 32))
    for row, col, sev in ((names.index('shot_noise'), 2, 3),
                          (names.index('plasma_noise'), 3, 5)):
        seed = corruption_seed(0, osp.basename(photo), names[row], sev)
        want = corrupt(rgb, names[row], sev, seed=seed)
        np.testing.assert_array_equal(
            _cell(canvas, layout, row, col), draw.thumbnail(want, 32))
    assert draw.row_label('fog') == ('fog', 'benchmark / weather')
    assert draw.row_label('fog_3d') == ('fog_3d', '3dcc, depth')


def test_same_arguments_same_bytes(photo, tmp_path):
    args = [photo, '--corruptions', 'shot_noise', 'sparkles',
            '--severities', '2', '--thumb-width', 40]
    outs = []
    for name, extra in (('a.png', []), ('b.png', []),
                        ('c.png', ['--seed', 1]),
                        ('d.jpg', ['--backend', 'reference'])):
        proc = run_tool(TOOL, *args, *extra, '--out', tmp_path / name,
                        cwd=REPO)
        assert proc.returncode == 0, proc.stderr
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]
    assert outs[3][:2] == b'\xff\xd8'  # JPEG by extension


def test_config_image_gets_the_benchmark_seeds(demo_checkpoint, tmp_path):
    config = demo_checkpoint[0]
    image = gallery.image_from_config(config, index=1)
    root = load_config(config).test_dataloader.dataset.data_root
    assert image.identity.startswith('val2017/')
    names, sevs = ['shot_noise', 'checkerboard_cutout'], [0, 2]
    cells = gallery.corrupt_image_cells(image, names, sevs, seed=3)
    bgr = cv2.imread(image.path)
    for name in names:
        for sev in sevs:
            want = CorruptImage(name, sev, seed=3, path_root=root).transform(
                dict(img=bgr.copy(), img_path=image.path))['img']
            np.testing.assert_array_equal(cells[(name, sev)][..., ::-1],
                                          want)
    out = tmp_path / 'cfg.png'
    proc = run_tool(TOOL, config, '--index', 1, '--corruptions',
                    'shot_noise', '--severities', 2, '--thumb-width', 32,
                    '--out', out, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(_png(out)[1]['robustdet:info'])['input'] == (
        image.identity)
    proc = run_tool(TOOL, config, '--index', 99, '--corruptions', 'fog',
                    '--out', tmp_path / 'x.png', cwd=REPO)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith('error: --index 99 is out of')


def test_depth_folder(photo, tmp_path):
    depth_dir = tmp_path / 'depth'
    depth_dir.mkdir()
    h, w = cv2.imread(photo).shape[:2]
    # Near (2 m) at the bottom, far (60 m) at the top, in millimetres.
    mm = np.linspace(60000, 2000, h)[:, None].repeat(w, 1).astype(np.uint16)
    stem = osp.splitext(osp.basename(photo))[0]
    cv2.imwrite(str(depth_dir / f'{stem}.png'), mm)
    args = [photo, '--corruptions', 'fog_3d', 'near_focus', 'far_focus',
            '--severities', 3, '--thumb-width', 32]
    proc = run_tool(TOOL, *args, '--out', tmp_path / 'none.png', cwd=REPO)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "error: fog_3d needs a depth map (the dataset's 'depth' field: "
        'Cityscapes disparity/ or a depth folder); none given')
    assert not (tmp_path / 'none.png').exists()
    out = tmp_path / 'depth.png'
    proc = run_tool(TOOL, *args, '--depth-folder', depth_dir,
                    '--depth-suffix', '.png', '--depth-scale', 0.001,
                    '--out', out, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    canvas, _ = _png(out)
    names = ['fog_3d', 'near_focus', 'far_focus']
    layout = draw.grid_layout([draw.row_label(n) for n in names],
                              draw.column_labels([0, 3], 32), (32, 24),
                              title='t')
    rgb = gallery.read_image(photo)
    seed = corruption_seed(0, osp.basename(photo), 'fog_3d', 3)
    want = corrupt(rgb, 'fog_3d', 3, seed=seed,
                   depth=(mm * 0.001).astype(np.float32))
    np.testing.assert_array_equal(_cell(canvas, layout, 0, 1),
                                  draw.thumbnail(want, 32))


@pytest.mark.parametrize('case', [
    'unknown', 'severity', 'unreadable', 'missing', 'extension', 'clip',
    'image-in-video', 'thumb'
])
def test_bad_input_is_one_line(photo, tmp_path, case):
    out = tmp_path / 'sub' / 'g.png'
    image, extra = photo, ['--corruptions', 'fog']
    if case == 'unknown':
        extra, match = ['--corruptions', 'fgo'], "unknown corruption 'fgo'"
    elif case == 'severity':
        extra += ['--severities', 6]
        match = 'severity 6 is out of range'
    elif case == 'unreadable':
        image = tmp_path / 'bad.jpg'
        image.write_text('not an image')
        match = 'unreadable image'
    elif case == 'missing':
        image, match = tmp_path / 'nope.jpg', 'image file not found'
    elif case == 'extension':
        out = tmp_path / 'sub' / 'g.bmp'
        match = 'cannot tell the output format'
    elif case == 'clip':
        extra, match = ['--corruptions', 'h264_crf'], 'pass --video'
    elif case == 'image-in-video':
        extra += ['--video']
        match = 'fog is an image corruption'
    else:
        extra, match = extra + ['--thumb-width', 4], '--thumb-width must'
    proc = run_tool(TOOL, image, *extra, '--out', out, cwd=REPO)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: ')
    assert match in lines[0]
    assert not out.exists() and not out.parent.exists()


def test_clip_gallery_gif_and_strip(video, tmp_path):
    folder = osp.join(video['img_root'], 'val', 'demo_video_000')
    args = [folder, '--video', '--corruptions', 'translation',
            'temporal_blur', '--severities', 1, 5, '--thumb-width', 32,
            '--clip-len', 4]
    gifs = []
    for name in ('a.gif', 'b.gif'):
        proc = run_tool(TOOL, *args, '--out', tmp_path / name, cwd=REPO)
        assert proc.returncode == 0, proc.stderr
        gifs.append((tmp_path / name).read_bytes())
    assert gifs[0] == gifs[1]
    with Image.open(tmp_path / 'a.gif') as im:
        assert im.n_frames == 4
        size = im.size
    proc = run_tool(TOOL, *args, '--strip-frames', 2, '--out',
                    tmp_path / 'strip.png', cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    canvas, text = _png(tmp_path / 'strip.png')
    # Table order, whatever the order asked for.
    assert text['robustdet:rows'] == 'temporal_blur translation'
    assert json.loads(text['robustdet:info'])['strip_frames'] == [0, 3]
    # The clip, its key and seeds as the video benchmark's (no data root:
    # the identity of a frame is its folder and name).
    clip = gallery.clip_from_folder(folder, clip_len=4)
    assert clip.key == 'demo_video_000/000000.JPEG+4'
    cells = gallery.corrupt_clip_cells(clip, ['translation'], [5])
    want = corrupt_clip(clip.frames, 'translation', 5,
                        seed=clip_seed(0, clip.key, 'translation')).frames
    np.testing.assert_array_equal(cells[('translation', 5)], want)
    strip = draw.frame_strip(want, 32, 2)
    layout = draw.grid_layout(
        [draw.row_label('temporal_blur'),
         draw.row_label('translation')],
        draw.column_labels([0, 1, 5], strip.shape[1]),
        strip.shape[1::-1], title='t')
    assert canvas.shape == (layout.height, layout.width, 3)
    np.testing.assert_array_equal(_cell(canvas, layout, 1, 2), strip)
    # The GIF's cells are single frames (64×48 → 32×24).
    layout = draw.grid_layout(
        [draw.row_label('temporal_blur'),
         draw.row_label('translation')],
        draw.column_labels([0, 1, 5], 32), (32, 24), title='t')
    assert size == (layout.width, layout.height)


def test_clip_of_a_video_config_is_the_benchmarks(demo_checkpoint, video,
                                                  tmp_path):
    cfg = load_config(demo_checkpoint[0])
    dataset = cfg.test_dataloader.dataset
    dataset.update(data_root=video['root'],
                   ann_file='annotations/vid_val.json',
                   data_prefix=dict(img='Data/VID/'))
    config = str(tmp_path / 'video_config.py')
    cfg.dump(config)
    clip = gallery.clip_from_config(config, index=2, clip_len=3)
    wrapped = VideoCorruptedDataset(
        dataset.to_dict(), 'translation', 1, clip_len=3,
        cache_dir=str(tmp_path / 'cache'))
    info = wrapped.get_data_info(2)
    want = wrapped.index.lookup(info['img_path'], None)[0]
    assert clip.key == want.key and clip.paths == want.paths
    np.testing.assert_array_equal(
        clip.frames, np.stack([cv2.imread(p)[..., ::-1] for p in want.paths]))
