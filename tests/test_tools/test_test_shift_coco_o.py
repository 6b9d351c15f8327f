# Copyright (c) robustdet contributors. All rights reserved.
"""tools/test_shift.py --benchmark coco-o end to end on a generated COCO-O
tree in the real layout (``<root>/<domain>/val2017/*.jpg``,
``<root>/<domain>/annotations/instances_val2017.json``) made from the small
demo data, with the committed demo detector."""
import json
import os
import os.path as osp
import shutil

import pytest

from demo_data.coco_o import write_coco_o
from robustdet.apis.shift import COCO_O_DOMAINS, RESULTS_FILE
from tests.conftest import REPO
from tests.tool_process import run_tool

ANN = osp.join('annotations', 'instances_val2017.json')


def run(*args):
    return run_tool('tools/test_shift.py', *args, cwd=REPO)


@pytest.fixture(scope='module')
def coco_o_setup(demo_dir, demo_checkpoint, tmp_path_factory):
    root = tmp_path_factory.mktemp('coco_o') / 'coco-o'
    counts = write_coco_o(osp.join(demo_dir, 'coco'), str(root))
    config, ckpt = demo_checkpoint
    return config, ckpt, root, counts


@pytest.mark.cpu_sensitive
def test_coco_o_end_to_end(coco_o_setup, tmp_path):
    config, ckpt, root, counts = coco_o_setup
    work = tmp_path / 'work'
    proc = run(config, ckpt, '--benchmark', 'coco-o', '--coco-o-root',
               str(root), '--work-dir', str(work))
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((work / RESULTS_FILE).read_text())
    assert list(results['splits']) == ['coco', *COCO_O_DOMAINS]
    assert results['reference'] == 'coco'
    assert results['coco_o_root'] == str(root)
    assert results['mean_name'] == 'COCO-O'
    log = proc.stdout + proc.stderr
    # The reference is the config's own test set (the 4 demo val images);
    # each domain is exactly its own folder.
    assert '[shift] coco (4 images)' in log
    for domain, num in counts.items():
        assert f'[shift] {domain} ({num} images)' in log
    row = results['summary']['coco/bbox_mAP']
    coco = results['splits']['coco']['coco/bbox_mAP']
    assert row['P'] == coco > 0.2
    values = [row['splits'][d] for d in COCO_O_DOMAINS]
    assert values == [results['splits'][d]['coco/bbox_mAP']
                      for d in COCO_O_DOMAINS]
    # The same images and boxes score exactly like the reference, also
    # under other file names and ids: images, ground truth and evaluator
    # all come from the domain's own folder and annotation file.
    assert row['splits']['weather'] == coco
    assert row['splits']['painting'] == coco
    # Edges and inverted colours cost the demo detector a lot.
    assert row['splits']['sketch'] < coco - 0.1
    assert row['splits']['tattoo'] < coco - 0.1
    # The headline: the mean of the six domains (the same float64
    # operations), and rPC = value / P per domain.
    assert row['mean'] == sum(values) / 6
    assert row['mean_rPC'] == row['mean'] / coco
    for split, value in row['splits'].items():
        assert row['rPC'][split] == value / coco
    assert f'COCO-O (mean over the splits other than coco): ' \
        f'coco/bbox_mAP: {100 * row["mean"]:.1f}' in proc.stdout
    for name in ('shift.md', 'shift.csv', 'shift_coco_bbox_mAP.png'):
        assert osp.getsize(work / name) > 0
    md = (work / 'shift.md').read_text()
    assert (f'COCO-O coco/bbox_mAP (the mean over the 6 splits after the '
            f'reference): {100 * row["mean"]:.1f}, rPC '
            f'{100 * row["mean_rPC"]:.1f} %') in md

    # A rerun resumes; another COCO-O root is another run.
    again = run(config, ckpt, '--benchmark', 'coco-o', '--coco-o-root',
                str(root), '--work-dir', str(work))
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads((work / RESULTS_FILE).read_text()) == results
    assert '[shift]' not in again.stdout + again.stderr
    copy = tmp_path / 'copy'
    shutil.copytree(root, copy)
    other = run(config, ckpt, '--benchmark', 'coco-o', '--coco-o-root',
                str(copy), '--work-dir', str(work))
    assert other.returncode == 2
    assert 'coco_o_root differs' in other.stderr


@pytest.mark.parametrize('missing', ['folder', 'annotations', 'images'])
def test_missing_domain_is_one_line(coco_o_setup, tmp_path, missing):
    config, ckpt, root, _ = coco_o_setup
    broken = tmp_path / 'coco-o'
    shutil.copytree(root, broken)
    expected = {
        'folder': broken / 'handmake' / ANN,
        'annotations': broken / 'handmake' / ANN,
        'images': broken / 'handmake' / 'val2017',
    }[missing]
    if missing == 'folder':
        shutil.rmtree(broken / 'handmake')
    elif missing == 'annotations':
        os.remove(broken / 'handmake' / ANN)
    else:
        shutil.rmtree(broken / 'handmake' / 'val2017')
    work = tmp_path / 'work'
    proc = run(config, ckpt, '--benchmark', 'coco-o', '--coco-o-root',
               str(broken), '--work-dir', str(work))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"error: coco-o domain 'handmake' is missing: "
                     f'expected {expected}'], lines
    assert not work.exists()  # nothing written
    if missing != 'folder':
        return
    # Evaluating only the other domains does not need it.
    proc = run(config, ckpt, '--benchmark', 'coco-o', '--coco-o-root',
               str(broken), '--splits', 'weather', '--work-dir', str(work))
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((work / RESULTS_FILE).read_text())
    assert list(results['splits']) == ['weather']
    # Not every domain: no headline.
    assert results['summary']['coco/bbox_mAP']['mean'] is None


def test_coco_o_needs_a_coco_test_set(tmp_path):
    config = osp.join(REPO, 'configs', 'demo',
                      'faster-rcnn_r18-c16_fpn-c64_3e_demo-voc.py')
    ckpt = osp.join(REPO, 'tests', 'data',
                    'faster-rcnn_r18-c16_fpn-c64_overfit-demo.pth')
    proc = run(config, ckpt, '--benchmark', 'coco-o', '--coco-o-root',
               str(tmp_path), '--work-dir', str(tmp_path / 'work'))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and 'needs a test dataset of type CocoDataset' \
        in lines[0], lines
    assert not (tmp_path / 'work').exists()
