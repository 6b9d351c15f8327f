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


def _tree_files(root):
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob('*.png'))
    }


@pytest.mark.parametrize('selection, names', [
    (['cbar'], 10),
    (['low_light', 'iso_noise', 'color_quant'], 3),
])
def test_newer_families_cli(demo_dir, tmp_path, selection, names):
    """The C-bar and depth-free 3DCC copies: every corruption written,
    deterministic per seed, severity 1 unlike severity 5."""
    src = tmp_path / 'src'
    src.mkdir()
    for name in sorted(os.listdir(f'{demo_dir}/coco/val2017'))[:2]:
        shutil.copy(f'{demo_dir}/coco/val2017/{name}', src / name)
    outs = []
    for run in ('a', 'b'):
        out = tmp_path / run
        proc = run_tool('tools/corrupt_dataset.py', str(src), str(out),
                        '--corruptions', *selection, '--severities', '1',
                        '5', '--lossless', '--seed', '7', cwd=REPO)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert f'wrote {names * 2 * 2} files' in proc.stdout
        outs.append(_tree_files(out))
    assert outs[0] == outs[1]
    corruptions = {k.split('/')[0] for k in outs[0]}
    assert len(corruptions) == names
    for name in corruptions:
        for image in os.listdir(src):
            png = image[:-4] + '.png'
            one = cv2.imread(str(tmp_path / 'a' / name / '1' / png))
            five = cv2.imread(str(tmp_path / 'a' / name / '5' / png))
            assert np.abs(one.astype(int) - five).mean() > 1, name


def test_region_and_depth(demo_dir, tmp_path):
    """--region objects with the COCO ground truth: only the objects
    change; --depth-folder for fog_3d; and their one-line errors."""
    import json
    coco = f'{demo_dir}/coco'
    ann = f'{coco}/annotations/instances_val2017.json'
    with open(ann) as f:
        data = json.load(f)
    image = data['images'][0]
    src = tmp_path / 'src'
    src.mkdir()
    shutil.copy(f'{coco}/val2017/{image["file_name"]}', src)
    sub = dict(data, images=[image], annotations=[
        a for a in data['annotations'] if a['image_id'] == image['id']])
    (tmp_path / 'ann.json').write_text(json.dumps(sub))
    out = tmp_path / 'out'
    res = corrupt_tree(str(src), str(out), ['gaussian_noise'], [5],
                       lossless=True, progress=False, region='objects',
                       ann_file=str(tmp_path / 'ann.json'))
    assert res['written'] == 1
    png = image['file_name'][:-4] + '.png'
    got = cv2.imread(str(out / 'region-objects' / 'gaussian_noise' / '5' /
                         png)).astype(int)
    clean = cv2.imread(str(src / image['file_name'])).astype(int)
    far = np.ones(clean.shape[:2], bool)
    for a in sub['annotations']:
        x, y, w, h = a['bbox']
        far[max(0, int(y) - 6):int(y + h) + 6,
            max(0, int(x) - 6):int(x + w) + 6] = False
    assert far.any() and (~far).any()
    np.testing.assert_array_equal(got[far], clean[far])
    assert np.abs(got[~far] - clean[~far]).mean() > 5
    # fog_3d with depth maps named like the images (16-bit millimetres).
    depth = tmp_path / 'depth'
    depth.mkdir()
    h, w = clean.shape[:2]
    cv2.imwrite(str(depth / png),
                np.linspace(60000, 2000, h)[:, None].repeat(w, 1).astype(
                    np.uint16))
    corrupt_tree(str(src), str(out), ['fog_3d'], [3], lossless=True,
                 progress=False, depth=dict(kind='folder', root=str(depth),
                                            suffix='.png', scale=0.001))
    fogged = cv2.imread(str(out / 'fog_3d' / '3' / png)).astype(int)
    # Far (top) rows are fogged more than near (bottom) ones.
    top, bottom = (np.abs(fogged - clean)[rows].mean()
                   for rows in (slice(0, h // 4), slice(-h // 4, None)))
    assert top > bottom
    # The tree records its settings; adding to it with another depth
    # calibration, seed or backend is refused (a rerun keeps the files
    # that exist, so the tree would mix two settings).
    record = json.loads((out / 'robustdet_corrupt.json').read_text())
    assert record['depth']['calibration'] == 'taskonomy'
    assert record['seed'] == 0 and record['backend'] == 'fast'
    for name, change, words in (
            ('fog_3d', dict(depth=dict(kind='folder', root=str(depth),
                                       suffix='.png', scale=0.001,
                                       calibration='percentile')),
             r"made with depth \{.*'taskonomy'.*\}, not \{.*'percentile'"),
            ('fog', dict(seed=1), 'made with seed 0, not 1'),
            ('fog', dict(backend='reference'),
             "backend 'fast', not 'reference'")):
        with pytest.raises(RobustDetError, match=words):
            corrupt_tree(str(src), str(out), [name], [1], lossless=True,
                         progress=False, **change)
    assert not (out / 'fog').exists() and not (out / 'fog_3d' / '1').exists()
    # The same depth folder spelt another way is the same setting; a
    # corruption that needs no depth does not care which is given.
    corrupt_tree(str(src), str(out), ['fog_3d', 'fog'], [3], lossless=True,
                 progress=False, depth=dict(kind='folder',
                                            root=f'{depth}/.',
                                            suffix='.png', scale=0.001))
    bad = tmp_path / 'bad'
    bad.mkdir()
    (bad / 'robustdet_corrupt.json').write_text('{not json')
    with pytest.raises(RobustDetError, match='not a readable settings'):
        corrupt_tree(str(src), str(bad), ['fog'], [1], progress=False)
    with pytest.raises(RobustDetError, match='needs the ground truth'):
        corrupt_tree(str(src), str(tmp_path / 'x'), ['fog'], [1],
                     region='background')
    with pytest.raises(RobustDetError, match='fog_3d need'):
        corrupt_tree(str(src), str(tmp_path / 'x'), ['fog_3d'], [1])
    (tmp_path / 'other.json').write_text(json.dumps(dict(
        data, images=data['images'][1:])))
    with pytest.raises(RobustDetError, match='not in --ann-file'):
        corrupt_tree(str(src), str(tmp_path / 'x'), ['fog'], [1],
                     region='objects', ann_file=str(tmp_path / 'other.json'))
    assert not (tmp_path / 'x').exists()
