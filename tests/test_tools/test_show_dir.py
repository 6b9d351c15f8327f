# Copyright (c) robustdet contributors. All rights reserved.
"""``--show-dir`` of tools/test_robust.py, test_shift.py and test_pmk.py
on the small demo data: a picture per cell and image (on the corrupted
image the model saw), strips, the same numbers, nothing drawn again on
resume, one-line errors, and each image's pixels computed once over 2
processes."""
import json
import os
import os.path as osp
import shutil

import cv2
import mmcv
import numpy as np
import pytest

from demo_data.foggy import write_foggy_cityscapes
from demo_data.video import generate_video_demo
from robustdet.apis.results import RESULTS_FILE
from robustdet.datasets import CorruptImage, foggy_file_name
from robustdet.utils.cli import load_config
from tests.conftest import REPO, replace_data_root, small_config
from tests.tool_process import run_ranks, run_tool

TOOL = 'tools/test_robust.py'
GRID = ['--corruptions', 'gaussian_noise', '--severities', '0', '1', '3']
CELLS = ['clean/0', 'gaussian_noise/1', 'gaussian_noise/3']
NUM = 3
# The small demo images are 128 x 96: ground truth | predictions.
PICTURE = (96, 2 * 128, 3)
# Labels above 4 tiles (ground truth, clean, severities 1 and 3), 4 px
# apart.
STRIP = (96 + 16, 4 * 128 + 3 * 4, 3)


def _robust(demo_checkpoint, work, *extra):
    config, ckpt = demo_checkpoint
    return run_tool(TOOL, config, ckpt, '--work-dir', work, *GRID, *extra,
                    cwd=REPO)


def _first_images(demo_dir, num=NUM):
    ann = osp.join(demo_dir, 'coco', 'annotations',
                   'instances_val2017.json')
    with open(ann) as f:
        images = json.load(f)['images']
    return [osp.splitext(i['file_name'])[0] for i in images[:num]]


def _files(root):
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = osp.join(folder, name)
            found[osp.relpath(path, root)] = path
    return found


def _numbers(work):
    with open(osp.join(work, RESULTS_FILE)) as f:
        results = json.load(f)
    results.pop('seconds')
    return results


def _one_line(proc, expect):
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: '), lines
    assert expect in lines[0], lines[0]


@pytest.fixture(scope='module')
def runs(demo_checkpoint, tmp_path_factory):
    """The same grid without and with pictures."""
    root = tmp_path_factory.mktemp('show')
    plain = _robust(demo_checkpoint, root / 'plain')
    assert plain.returncode == 0, plain.stderr[-3000:]
    shown = _robust(demo_checkpoint, root / 'work', '--show-dir',
                    root / 'show', '--show-num', NUM)
    assert shown.returncode == 0, shown.stderr[-3000:]
    return root, shown


def test_a_picture_per_cell_and_image_and_strips(runs, demo_dir):
    root, proc = runs
    names = _first_images(demo_dir)
    found = _files(root / 'show')
    expected = {f'{cell}/{n}.jpg' for cell in CELLS for n in names}
    expected |= {f'strips/gaussian_noise/{n}.jpg' for n in names}
    assert set(found) == expected
    for rel, path in found.items():
        shape = cv2.imread(path).shape
        assert shape == (STRIP if rel.startswith('strips') else PICTURE), rel
    for cell in CELLS:
        assert (f'[show] {NUM} picture(s) in {root / "show" / cell}'
                in proc.stdout)


def test_pictures_change_no_number(runs):
    root, _ = runs
    assert _numbers(root / 'work') == _numbers(root / 'plain')


def test_the_picture_is_the_corrupted_image(runs, demo_dir):
    """The ground-truth panel is drawn on the image as the model saw it:
    its noise is the run's seeded noise, not another seed's."""
    root, _ = runs
    name = _first_images(demo_dir, 1)[0]
    path = osp.join(demo_dir, 'coco', 'val2017', f'{name}.jpg')
    clean = mmcv.imread(path)

    def grey(img):
        return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(float).ravel()

    def noise(seed):
        corrupt = CorruptImage('gaussian_noise', 3, seed=seed,
                               path_root=osp.join(demo_dir, 'coco'))
        noisy = corrupt(dict(img=clean.copy(), img_path=path))['img']
        return grey(noisy) - grey(clean)

    picture = cv2.imread(str(root / 'show' / 'gaussian_noise' / '3' /
                             f'{name}.jpg'))
    drawn = grey(picture[:, :clean.shape[1]]) - grey(clean)
    # Measured 0.63 and 0.02 (JPEG and the drawn boxes blur the noise).
    assert np.corrcoef(drawn, noise(0))[0, 1] > 0.4
    assert abs(np.corrcoef(drawn, noise(1))[0, 1]) < 0.2


def test_resume_draws_nothing_again(runs, demo_checkpoint):
    root, _ = runs
    before = {
        rel: (os.stat(path).st_mtime_ns, open(path, 'rb').read())
        for rel, path in _files(root / 'show').items()
    }
    proc = _robust(demo_checkpoint, root / 'work', '--show-dir',
                   root / 'show', '--show-num', NUM)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert 'cells already' in proc.stdout + proc.stderr
    assert '[show]' not in proc.stdout
    after = _files(root / 'show')
    assert set(after) == set(before)
    for rel, path in after.items():
        # the strips are composed again, into the same bytes
        assert open(path, 'rb').read() == before[rel][1], rel
        if not rel.startswith('strips'):
            assert os.stat(path).st_mtime_ns == before[rel][0], rel
    # Cells finished without --show-dir are not evaluated again to draw
    # them; the run says so.
    late = root / 'late'
    proc = _robust(demo_checkpoint, root / 'plain', '--show-dir', late)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (f'[show] 3 finished cell(s) have no pictures in {late} '
            '(clean, gaussian_noise/1, gaussian_noise/3)') in proc.stdout
    assert not late.exists()


@pytest.mark.parametrize('extra,expect', [
    (['--show-dir', '{tmp}/show', '--show-num', '0'],
     '--show-num must be at least 1, got 0'),
    (['--show-num', '3'], '--show-num need(s) --show-dir'),
    (['--show-dir', '{demo}/coco/val2017/show'],
     'is inside the test data'),
])
def test_bad_show_arguments(demo_checkpoint, demo_dir, tmp_path, extra,
                            expect):
    extra = [e.format(tmp=tmp_path, demo=demo_dir) for e in extra]
    proc = _robust(demo_checkpoint, tmp_path / 'work', *extra)
    _one_line(proc, expect)
    assert not (tmp_path / 'work').exists()
    assert not (tmp_path / 'show').exists()
    assert not osp.exists(osp.join(demo_dir, 'coco', 'val2017', 'show'))


def test_two_processes_compute_each_image_once(demo_checkpoint, demo_dir,
                                               tmp_path):
    """3 images over 2 ranks: rank 0 has images 0 and 2, rank 1 image 1
    and, as padding, image 0 again; each is computed by one rank, the
    lowest that has it, and rank 0 writes every picture."""
    config, ckpt = demo_checkpoint
    show = tmp_path / 'show'
    procs = run_ranks(
        TOOL, config, ckpt, '--work-dir', tmp_path / 'work',
        '--corruptions', 'gaussian_noise', '--severities', '0', '3',
        '--show-dir', show, '--show-num', NUM, '--cfg-options',
        'test_dataloader.dataset.indices=[0,1,2]', world_size=2, cwd=REPO)
    for proc in procs:
        assert proc.returncode == 0, proc.stderr[-3000:]
    for cell in ('clean/0', 'gaussian_noise/3'):
        assert (f'[show] 3 picture(s) in {show / cell} (images of rank 0: '
                '2, rank 1: 1)') in procs[0].stdout
    names = _first_images(demo_dir)
    assert set(_files(show)) == {
        f'{d}/{n}.jpg'
        for d in ('clean/0', 'gaussian_noise/3', 'strips/gaussian_noise')
        for n in names
    }
    assert not procs[1].stdout.strip()


def test_test_shift_draws_each_split(demo_dir, demo_checkpoint, tmp_path):
    root = tmp_path / 'foggy'
    shutil.copytree(osp.join(demo_dir, 'cityscapes'), root / 'cityscapes')
    write_foggy_cityscapes(str(root / 'cityscapes'))
    config = str(tmp_path / 'foggy_config.py')
    small_config(
        osp.join(REPO, 'configs', 'demo',
                 'faster-rcnn_r18-c16_fpn-c64_3e_demo-foggy-cityscapes.py'),
        str(root)).dump(config)
    show = tmp_path / 'show'
    proc = run_tool('tools/test_shift.py', config, demo_checkpoint[1],
                    '--benchmark', 'foggy-cityscapes', '--splits', 'clean',
                    'beta=0.02', '--work-dir', tmp_path / 'work',
                    '--show-dir', show, '--show-num', 2, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ann = root / 'cityscapes' / 'annotations' / \
        'instancesonly_filtered_gtFine_val.json'
    files = [i['file_name'] for i in json.loads(ann.read_text())['images']]
    found = _files(show)
    assert set(found) == {
        f'clean/{osp.splitext(f)[0]}.jpg' for f in files[:2]
    } | {
        f'beta=0.02/{osp.splitext(foggy_file_name(f, 0.02))[0]}.jpg'
        for f in files[:2]
    }
    clean = cv2.imread(found[f'clean/{osp.splitext(files[0])[0]}.jpg'])
    foggy = cv2.imread(found[
        f'beta=0.02/{osp.splitext(foggy_file_name(files[0], 0.02))[0]}.jpg'])
    assert clean.shape == foggy.shape == PICTURE
    assert np.abs(clean.astype(float) - foggy).mean() > 10


def test_test_pmk_draws_frames_and_set_strips(demo_checkpoint, tmp_path):
    """Frames under a clip corruption that moves them (translation), each
    below its neighbour set's anchor, and a strip per set."""
    video = generate_video_demo(str(tmp_path / 'vid'), num_videos=2,
                                num_frames=9, size=(128, 96), k=3)
    cfg = replace_data_root(
        load_config(
            osp.join(REPO, 'configs', 'demo',
                     'faster-rcnn_r18-c16_fpn-c64_3e_demo-vid-pmk.py')),
        video['root'], old_root='data/demo/vid/')
    cfg.test_dataloader.num_workers = 0
    cfg.test_dataloader.persistent_workers = False
    config = str(tmp_path / 'pmk_config.py')
    cfg.dump(config)
    show = tmp_path / 'show'
    proc = run_tool('tools/test_pmk.py', config, demo_checkpoint[1], '--k',
                    '3', '--work-dir', tmp_path / 'work', '--video-corruption',
                    'translation', '--severity', '2', '--clip-len', '7',
                    '--show-dir', show, '--show-num', 5, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(osp.join(video['root'], 'metadata', 'pmsets.json')) as f:
        sets = json.load(f)
    members = {
        f'{osp.splitext(anchor)[0]}/{osp.splitext(osp.basename(frame))[0]}'
        for anchor, frames in sets.items() for frame in [anchor, *frames]
    }
    found = _files(show)
    pictures = [r for r in found if not r.startswith('strips/')]
    assert len(pictures) == 5
    for rel in pictures:
        assert rel.startswith('translation/2/'), rel
        assert rel[len('translation/2/'):-len('.jpg')] in members, rel
        assert cv2.imread(found[rel]).shape == PICTURE
    anchors = {osp.dirname(r[len('translation/2/'):]) for r in pictures}
    assert {r for r in found if r.startswith('strips/')} == {
        f'strips/translation/2/{a}.jpg' for a in anchors
    }
    for anchor in anchors:
        tiles = sum(osp.dirname(r) == f'translation/2/{anchor}'
                    for r in pictures)
        strip = cv2.imread(found[f'strips/translation/2/{anchor}.jpg'])
        assert strip.shape == (96 + 16, tiles * 128 + (tiles - 1) * 4, 3)
