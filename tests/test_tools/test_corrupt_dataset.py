# Copyright (c) robustdet contributors. All rights reserved.
import os
import shutil

import cv2
import numpy as np
import pytest

from robustdet.apis.corrupt_dataset import corrupt_tree, list_images
from robustdet.datasets import CorruptImage
from robustdet.utils import RobustDetError
from tests.conftest import REPO
from tests.tool_process import run_tool


@pytest.fixture
def tree(demo_dir, tmp_path):
    """A data root with images in two sub-folders."""
    root = tmp_path / 'root'
    shutil.copytree(f'{demo_dir}/coco/val2017', root / 'val2017')
    (root / 'more').mkdir()
    shutil.copy(root / 'val2017' / sorted(os.listdir(root / 'val2017'))[0],
                root / 'more' / 'extra.jpg')
    (root / 'val2017' / 'notes.txt').write_text('not an image')
    return root


def test_mirrors_tree_and_matches_the_wrapper(tree, tmp_path):
    out = tmp_path / 'out'
    res = corrupt_tree(str(tree / 'val2017'), str(out), ['fog', 'shot_noise'],
                       [1, 4], seed=3, identity_root=str(tree),
                       lossless=True, progress=False)
    rels = list_images(str(tree / 'val2017'))
    assert res == dict(written=len(rels) * 4, skipped=[])
    for rel in rels:
        for name in ('fog', 'shot_noise'):
            for sev in (1, 4):
                png = out / name / str(sev) / (rel[:-4] + '.png')
                got = cv2.imread(str(png))
                # The pixels test_robust.py evaluates for this image.
                src = str(tree / 'val2017' / rel)
                want = CorruptImage(name, sev, seed=3,
                                    path_root=str(tree)).transform(
                                        dict(img=cv2.imread(src),
                                             img_path=src))['img']
                np.testing.assert_array_equal(got, want)
    # Resumable: nothing left to do.
    again = corrupt_tree(str(tree / 'val2017'), str(out), ['fog',
                                                           'shot_noise'],
                         [1, 4], seed=3, identity_root=str(tree),
                         lossless=True, progress=False)
    assert again['written'] == 0


def test_keeps_file_names_by_default(tree, tmp_path):
    out = tmp_path / 'out'
    corrupt_tree(str(tree), str(out), ['contrast'], [2], progress=False)
    assert sorted(list_images(str(out / 'contrast' / '2'))) == sorted(
        list_images(str(tree)))


@pytest.mark.parametrize('case', ['inside', 'same', 'missing', 'empty'])
def test_bad_directories(tree, tmp_path, case):
    src, out = str(tree), str(tmp_path / 'out')
    if case == 'inside':
        out = str(tree / 'val2017' / 'c')
        match = 'inside the source tree'
    elif case == 'same':
        out = src
        match = 'inside the source tree'
    elif case == 'missing':
        src = str(tmp_path / 'nope')
        match = 'not found'
    else:
        src = str(tmp_path / 'empty')
        os.mkdir(src)
        match = 'no images'
    with pytest.raises(RobustDetError, match=match):
        corrupt_tree(src, out, ['fog'], [1], progress=False)
    assert not os.path.exists(tree / 'val2017' / 'c')


def test_bad_image_cli(tree, tmp_path):
    victim = tree / 'more' / 'extra.jpg'
    victim.write_bytes(victim.read_bytes()[:200])
    cmd = ['tools/corrupt_dataset.py', str(tree / 'more'),
           str(tmp_path / 'out'), '--corruptions', 'fog', '--severities', '1']
    proc = run_tool(*cmd, cwd=REPO)
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith('error: unreadable image') and str(victim) in last
    proc = run_tool(*cmd, '--skip-bad-images', cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert f'skipped {victim}' in proc.stdout
    proc = run_tool(*cmd[:3], '--corruptions', 'fgo', cwd=REPO)
    assert proc.returncode == 2 and "unknown corruption 'fgo'" in proc.stderr
