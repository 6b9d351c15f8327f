# Copyright (c) robustdet contributors. All rights reserved.
"""The shell blocks of README.md and of every page of docs/ run, in
order, on the test fixtures (the small demo data, small generated videos,
fog, BDD100k frames and styles, and the committed demo checkpoint), and
what they produce is what the page says. How a page is run:
``tests/test_docs/pages.py``.

One test per page. Each gives the page's setup block its own values (the
fixtures, and tiny sizes for docs/benchmarks.md), runs the page, and
checks the files, numbers and tables the page promises. The README's
``make demo`` / ``make test`` block, and the make targets of
docs/development.md, are checked with ``make -n`` (a dry run: the targets
exist and name their commands): ``make demo`` takes about an hour on 2
cores and ``make test`` is the suite that runs this test.
"""
import glob
import json
import os
import os.path as osp
import pickle
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch
from mmdet.registry import MODELS
from PIL import Image

from demo_data.bdd100k import generate_bdd100k_demo
from demo_data.coco_o import write_coco_o
from demo_data.foggy import write_foggy_cityscapes
from demo_data.styles import write_style_images
from demo_data.video import generate_video_demo
from robustdet.apis.results import RESULTS_FILE, load_results
from robustdet.apis.shift import COCO_O_DOMAINS
from robustdet.baselines import baseline_rows, get_baseline
from robustdet.corruptions.table import CORRUPTIONS, IMAGENET_C_CORRUPTIONS
from robustdet.evaluation import class_mean_rpc
from robustdet.utils.cli import load_config
from robustdet.video.table import CLIP_CORRUPTION_NAMES
from tests.conftest import (DEMO_CONFIGS, REPO, SMALL_DEMO_SHA256,
                            replace_data_root, sha256_tree, small_config)
from tests.result_pickles import published_like, voc_like
from tests.shift_results import shift_json
from tests.test_docs.pages import (ForkedPython, bash_blocks, run_page,
                                   unrun_commands)


@pytest.fixture(scope='module')
def forked():
    with ForkedPython() as server:
        yield server


def _demo_config(name):
    """``configs/demo/faster-rcnn_r18-c16_fpn-c64_<name>.py``."""
    return osp.join(DEMO_CONFIGS, f'faster-rcnn_r18-c16_fpn-c64_{name}.py')


def _numbers(path):
    results = load_results(str(path / RESULTS_FILE))
    return {k: results[k] for k in ('clean', 'cells', 'summary')}


def _cells(results, severities):
    """The clean set and the cells of ``results`` at these severities."""
    return dict(clean=results['clean'], cells={
        name: {s: v for s, v in per_sev.items() if s in severities}
        for name, per_sev in results['cells'].items()})


def _files(path):
    """The files of a run, its log folder's timestamp left out."""
    found = set()
    for root, _, files in os.walk(path):
        for name in files:
            rel = osp.relpath(osp.join(root, name), path)
            found.add(re.sub(r'\d{8}_\d{6}', 'STAMP', rel))
    return found


def _table_rows(page):
    """The table rows of a page that start with a `name`."""
    with open(osp.join(REPO, page), encoding='utf-8') as f:
        return [line for line in f if line.startswith('| `')]


def _python_blocks(page):
    with open(osp.join(REPO, page), encoding='utf-8') as f:
        return re.findall(r'^```python\n(.*?)^```', f.read(), re.S | re.M)


def _anchors(path):
    """GitHub's anchors of a Markdown file's headings."""
    with open(path, encoding='utf-8') as f:
        text = re.sub(r'^```.*?^```', '', f.read(), flags=re.S | re.M)
    return {re.sub(r'[^\w\- ]', '', title.strip().lower()).replace(' ', '-')
            for title in re.findall(r'^#+ (.*)$', text, re.M)}


def _video_fixture(tmp_path, names, **video):
    """Small generated videos and the demo configs ``names`` pointed at
    them, without dataloader workers: ``(video paths, {name: config})``."""
    paths = generate_video_demo(str(tmp_path / 'vid'), **video)
    configs = {}
    for name in names:
        cfg = replace_data_root(
            load_config(_demo_config(f'3e_demo-{name}')), paths['root'],
            old_root='data/demo/vid/')
        cfg.test_dataloader.num_workers = 0
        cfg.test_dataloader.persistent_workers = False
        cfg.val_dataloader = cfg.test_dataloader
        configs[name] = str(tmp_path / f'{name}_config.py')
        cfg.dump(configs[name])
    return paths, configs


def _scratch(tmp_path):
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    return scratch


def test_every_command_block_is_run(tmp_path):
    # Shell commands are fenced as bash, which this test runs; any other
    # fence holding a command says why it is not run.
    pages = ['README.md'] + sorted(
        osp.relpath(p, REPO)
        for p in glob.glob(osp.join(REPO, 'docs', '*.md')))
    for page in pages:
        assert unrun_commands(osp.join(REPO, page)) == [], page
    # The check can fail: a text fence with a tool command, and one whose
    # reason is missing.
    page = tmp_path / 'page.md'
    page.write_text('```text\npython tools/test_robust.py a.py b.pth\n```\n'
                    '<!-- not run: -->\n```\nmake demo\n```\n'
                    '<!-- not run: needs a GPU and real COCO -->\n'
                    '```\nCUDA=1 python tools/x.py\n```\n'
                    '```text\ndata/coco-o/sketch/val2017/*.jpg\n```\n')
    assert unrun_commands(str(page)) == [
        (1, 'python tools/test_robust.py a.py b.pth'), (5, 'make demo')]


def test_every_page_has_a_test():
    pages = sorted(osp.basename(p)
                   for p in glob.glob(osp.join(REPO, 'docs', '*.md')))
    tested = sorted(name[len('test_'):] + '.md'
                    for name in globals() if name.startswith('test_'))
    assert set(pages) <= set(tested), set(pages) - set(tested)
    for page in pages:
        assert bash_blocks(osp.join(REPO, 'docs', page)), page
    # Every relative link and its anchor exist.
    for page in ['README.md'] + [f'docs/{p}' for p in pages]:
        with open(osp.join(REPO, page), encoding='utf-8') as f:
            links = re.findall(r'\]\(([^)#:]*)(?:#([^)]*))?\)', f.read())
        for target, anchor in links:
            path = osp.join(REPO, page)
            if target:
                path = osp.normpath(osp.join(osp.dirname(path), target))
            assert osp.exists(path), (page, target)
            if anchor:
                assert anchor in _anchors(path), (page, target, anchor)


def test_readme(demo_dir, demo_checkpoint, tmp_path, forked):
    """The README's ``make demo`` / ``make test`` block is checked with
    ``make -n`` (a dry run: both targets exist and name their commands);
    the tour runs on the fixtures."""
    config, ckpt = demo_checkpoint
    ran = run_page('README.md',
                   dict(CONFIG=config, CKPT=ckpt,
                        DATA=osp.join(demo_dir, 'coco')),
                   str(tmp_path), forked, setup_block=1)
    make = ran[0].stdout
    assert 'demo/demo.py --data-dir data/demo --work-dir work_dirs/demo' \
        in make
    for command in ('ruff check', 'isort --check-only', 'pytest -q -n 2',
                    'tools/dev/held_back_cpu.py --'):
        assert command in make, command
    tour = tmp_path / 'work_dirs' / 'tour'
    assert '| coco/bbox_mAP |' in ran[1].stdout  # the report, printed
    # The grid grew: the cells of the first run were not evaluated again.
    assert 'resuming: 3 of 5 cells already in' in ran[2].output
    results = load_results(str(tour / RESULTS_FILE))
    assert {k: list(v) for k, v in results['cells'].items()} == {
        'gaussian_noise': ['3', '5'], 'defocus_blur': ['3', '5']}
    names = sorted(os.listdir(osp.join(demo_dir, 'coco', 'val2017')))
    assert sorted(os.listdir(tour / 'images' / 'gaussian_noise' / '3')) \
        == names
    assert ran[3].stdout.split()[-3:] == names[:3]
    with open(osp.join(REPO, 'README.md'), encoding='utf-8') as f:
        readme = f.read()
    for page in glob.glob(osp.join(REPO, 'docs', '*.md')):
        assert f'(docs/{osp.basename(page)})' in readme, page
    assert len(readme.splitlines()) <= 300


def test_benchmark(demo_dir, demo_checkpoint, tmp_path, forked):
    config, ckpt = demo_checkpoint
    ran = run_page('docs/benchmark.md',
                   dict(CONFIG=config, CKPT=ckpt,
                        DATA=osp.join(demo_dir, 'coco')),
                   str(tmp_path), forked)
    runs = tmp_path / 'work_dirs' / 'robust-demo'
    grid = load_results(str(runs / 'grid' / RESULTS_FILE))
    assert {k: list(v) for k, v in grid['cells'].items()} == {
        'defocus_blur': ['3', '5'], 'brightness': ['3', '5']}
    # The grid grew: the cells of the first run were not evaluated again.
    assert 'resuming: 3 of 5 cells already in' in ran[1].output
    assert set(grid['seconds']) == {'clean', 'defocus_blur/3',
                                    'defocus_blur/5', 'brightness/3',
                                    'brightness/5'}
    for key in ('format', 'robustdet_version', 'config', 'checkpoint',
                'config_sha256', 'checkpoint_sha256', 'seed', 'backend',
                'channel_order', 'corruption_device', 'video_clips',
                'ground_truth', 'region', 'depth', 'shard', 'clean',
                'cells', 'seconds',
                'skipped_images', 'empty_cells', 'summary', 'coverage',
                'video_summary', 'video_coverage'):
        assert key in grid, key
    assert set(grid['summary']['coco/bbox_mAP']) == {
        'P', 'mPC', 'rPC', 'mPC_noise', 'mPC_blur', 'mPC_weather',
        'mPC_digital', 'mPC_holdout', 'mPC_cbar', 'rPC_cbar', 'mPC_3dcc',
        'rPC_3dcc'}
    for name in ('robustness.md', 'robustness.csv', 'robustness_summary.csv',
                 'robustness_coco_bbox_mAP.png'):
        assert osp.getsize(runs / 'grid' / name) > 0, name
    # K = 3 and the shards: the numbers of one cell per pass
    assert _numbers(runs / 'k3') == _numbers(runs / 'grid')
    assert _numbers(runs / 'shards') == _numbers(runs / 'grid')
    compare = next(r.stdout for r in ran if '--compare' in r.block)
    assert '| one-cell-per-pass |' in compare
    assert '| three-cells-per-pass |' in compare
    # The torch backend, on the CPU here.
    torch_run = load_results(str(runs / 'torch' / RESULTS_FILE))
    assert torch_run['backend'] == 'torch'
    assert torch_run['corruption_device'] == 'cpu'
    assert list(torch_run['cells']['defocus_blur']) == ['3']
    # faster-coco-eval: every value of pycocotools'
    fce = load_results(str(runs / 'faster-coco-eval' / RESULTS_FILE))
    assert _cells(fce, {'3'}) == _cells(grid, {'3'})
    # Scored beside inference: the same values
    overlap = load_results(str(runs / 'overlap' / RESULTS_FILE))
    assert _cells(overlap, {'3'}) == _cells(grid, {'3'})
    # -C copies under the same names
    written = sorted(os.listdir(runs / 'coco-c' / 'defocus_blur' / '3'))
    assert written == sorted(os.listdir(osp.join(demo_dir, 'coco',
                                                 'val2017')))
    # Pictures of every cell and a strip per image, then the HTML page.
    names = sorted(os.listdir(osp.join(demo_dir, 'coco', 'val2017')))[:2]
    show = runs / 'show'
    for cell in ('clean/0', 'defocus_blur/3', 'defocus_blur/5'):
        assert sorted(os.listdir(show / cell)) == [
            n[:-4] + '.jpg' for n in names], cell
    assert len(os.listdir(show / 'strips' / 'defocus_blur')) == 2
    page = (runs / 'show-run' / 'robustness.html').read_text()
    assert 'data:image/png;base64,' in page and '<script' not in page
    # Regions: one run each, and the side-by-side table.
    regions = runs / 'regions'
    for region in ('all', 'objects', 'background'):
        results = load_results(str(regions / f'region-{region}' /
                                   RESULTS_FILE))
        assert results['region'] == region
        assert results['summary']['coco/bbox_mAP']['mPC_cbar'] is not None
    assert '| objects |' in (regions / 'regions.md').read_text()
    # Corruption errors against the run that corrupts everything.
    ce = load_results(str(runs / 'ce' / RESULTS_FILE))
    entry = ce['corruption_errors']
    assert entry['baseline']['name'] == 'region-all'
    assert entry['metrics']['coco/bbox_mAP']['3dcc']['mCE'] is not None
    report = (runs / 'ce' / 'robustness.md').read_text()
    assert '## Corruption errors' in report


def _family_page(page, family, demo_dir, demo_checkpoint, tmp_path, forked):
    """A newer family's page: its table is the library's, row for row, and
    its blocks run; returns the blocks run."""
    assert _table_rows(page) == [
        f'| `{c.name}` | {c.group} | {"yes" if c.stochastic else "no"} | '
        + ', '.join(str(p).replace(' ', '') for p in c.params) + ' |\n'
        for c in CORRUPTIONS if c.group == family]
    config, ckpt = demo_checkpoint
    return run_page(page, dict(CONFIG=config, CKPT=ckpt,
                               DATA=osp.join(demo_dir, 'coco')),
                    str(tmp_path), forked)


def test_cbar(demo_dir, demo_checkpoint, tmp_path, forked):
    _family_page('docs/cbar.md', 'cbar', demo_dir, demo_checkpoint, tmp_path,
                 forked)
    work = tmp_path / 'work_dirs' / 'cbar-demo'
    results = load_results(str(work / RESULTS_FILE))
    assert set(results['cells']) == set(
        c.name for c in CORRUPTIONS if c.group == 'cbar')
    row = results['summary']['coco/bbox_mAP']
    assert row['mPC'] is None and row['mPC_cbar'] is not None
    images = sorted(os.listdir(osp.join(demo_dir, 'coco', 'val2017')))
    for name in ('sparkles', 'checkerboard_cutout'):
        for sev in ('1', '5'):
            assert sorted(os.listdir(work / 'images' / name / sev)) == images
    _same_figure(tmp_path, 'cbar.png')


def _same_figure(tmp_path, name):
    """The page's figure command made the committed figure: the same
    grid (size, rows, severities). Not the same bytes: the committed
    figure was drawn once, and a corruption's pixels may have moved by a
    grey level since (a change that its own tests show)."""
    made = Image.open(tmp_path / 'work_dirs' / 'figures' / name)
    committed = Image.open(osp.join(REPO, 'docs', 'figures', name))
    assert made.size == committed.size
    for key in ('robustdet:rows', 'robustdet:severities'):
        assert made.info[key] == committed.info[key], key


def test_3dcc(demo_dir, demo_checkpoint, tmp_path, forked):
    _family_page('docs/3dcc.md', '3dcc', demo_dir, demo_checkpoint, tmp_path,
                 forked)
    work = tmp_path / 'work_dirs' / '3dcc-demo'
    free = load_results(str(work / RESULTS_FILE))
    assert list(free['cells']) == ['low_light', 'iso_noise', 'color_quant']
    depth = load_results(str(work / 'depth-run' / RESULTS_FILE))
    assert list(depth['cells']) == ['fog_3d', 'far_focus']
    assert depth['depth'] == dict(
        kind='folder', root=str(work / 'depth'), suffix='.png',
        scale=0.001, inverse=False, img_suffix=[], calibration='taskonomy')
    assert depth['summary']['coco/bbox_mAP']['mPC_3dcc'] is not None
    _same_figure(tmp_path, '3dcc.png')


def test_baselines(demo_checkpoint, tmp_path, forked):
    """The tools of the page on generated files in each tool's layout:
    the paper's (Python 2) COCO and VOC pickles matching the published
    rows, an mmdet 3.x pickle, and a demo run."""
    config, ckpt = demo_checkpoint
    bench = tmp_path / 'robust-detection-benchmark'
    (bench / 'results' / 'coco').mkdir(parents=True)
    (bench / 'results' / 'pascal_voc').mkdir(parents=True)
    faster = get_baseline(
        'michaelis2019/coco/faster-rcnn_r50_fpn/standard/bbox')
    paper = published_like(bench / 'results' / 'coco', faster)
    voc = bench / 'results' / 'pascal_voc' / \
        'faster_rcnn_r50_fpn_1x_voc0712_results.pkl'
    voc_like(voc, get_baseline(
        'michaelis2019/voc/faster-rcnn_r50_fpn/standard/bbox'))
    mmdet = tmp_path / 'mmdet_results.pkl'
    mmdet.write_bytes(pickle.dumps({
        'gaussian_noise': {0: {'coco/bbox_mAP': 0.4},
                           1: {'coco/bbox_mAP': 0.2}}}))
    scratch = _scratch(tmp_path)
    ran = run_page('docs/baselines.md',
                   dict(CONFIG=config, CKPT=ckpt, PAPER=paper, VOC=voc,
                        MMDET=mmdet, BENCHMARK=bench),
                   str(scratch), forked)
    imported = ran[0].stdout
    assert 'coco/bbox_mAP: P 36.3  mPC 18.2  rPC 50.2 %' in imported
    assert 'coco/bbox_mAP: P 40.0  mPC 20.0  rPC 50.0 %' in imported
    assert 'incomplete grid: 1 of 75' in imported
    # VOC: the paper's rPC, and mmdet's beside it with its own name
    text = ran[1].stdout
    assert 'pascal_voc/mAP: P 80.5  mPC 48.6  rPC 60.4 %  (mean of ' \
        "per-class ratios, as mmdet's robustness_eval: " in text
    assert 'robustness_eval: 60.4 %' not in text
    compare = ran[2].stdout
    assert '| demo |' in compare and 'paper Faster R-CNN' in compare
    assert '18.2' in compare and 'missing' in compare
    for ext in ('md', 'csv', 'json', 'png'):
        assert (scratch / 'work_dirs' / 'compare' / f'compare.{ext}').stat(
        ).st_size > 0
    assert ran[3].stdout.splitlines()[-1] == '2 files: all as published'
    # The leaderboard table and the example are the library's.
    assert [row.split('|')[1:5] for row in _table_rows('docs/baselines.md')
            if row.startswith('| `michaelis2019')] == [
        [f' `{r.name}` ', f' {r.P:.1f} ', f' {r.mPC:.1f} ',
         f' {r.rPC:.1f}{" †" if r.note else ""} ']
        for r in baseline_rows()]
    for block in _python_blocks('docs/baselines.md'):
        exec(compile(block, 'docs/baselines.md', 'exec'), {})
    # The two conventions' worked example.
    assert class_mean_rpc([0.9, 0.5], {'fog': {'1': [0.6, 0.2]}}) == \
        pytest.approx((0.6 / 0.9 + 0.2 / 0.5) / 2)
    with open(osp.join(REPO, 'docs', 'baselines.md'), encoding='utf-8') as f:
        page = f.read()
    assert f'{100 * 0.4 / 0.7:.1f} %' in page
    assert f'{100 * (0.6 / 0.9 + 0.2 / 0.5) / 2:.1f} %' in page


def test_corruptions(demo_dir, tmp_path, forked):
    # The table is the library's, row for row.
    assert _table_rows('docs/corruptions.md') == [
        f'| `{c.name}` | {c.group} | {"yes" if c.stochastic else "no"} | '
        + ', '.join(str(p).replace(' ', '') for p in c.params) + ' |\n'
        for c in CORRUPTIONS if c.name in IMAGENET_C_CORRUPTIONS]
    for block in _python_blocks('docs/corruptions.md'):
        exec(compile(block, 'docs/corruptions.md', 'exec'), {})
    run_page('docs/corruptions.md', dict(DATA=osp.join(demo_dir, 'coco')),
             str(tmp_path), forked)
    out = tmp_path / 'work_dirs' / 'corruptions-demo'
    fast = sorted(p.relative_to(out / 'fast')
                  for p in (out / 'fast').rglob('*.png'))
    assert len(fast) == 3 * 4
    for rel in fast:
        a, b = (np.asarray(Image.open(out / backend / rel)).astype(int)
                for backend in ('fast', 'reference'))
        assert np.abs(a - b).max() <= 1, rel


def test_stylization(demo_dir, demo_checkpoint, tmp_path, forked):
    config, ckpt = demo_checkpoint
    styles = tmp_path / 'styles'
    write_style_images(str(styles), num=3, size=(40, 32))
    stylized = tmp_path / 'stylized' / 'coco'
    combined = small_config(_demo_config('3e_demo-cocoscoco'), demo_dir)
    combined.train_dataloader.dataset.datasets[1].stylized_root = str(
        stylized)
    # One epoch of the 8 clean and 8 stylized images, at their own size
    # (128x96), in 4 batches.
    combined.train_cfg.max_epochs = combined.train_cfg.val_interval = 1
    combined.train_dataloader.batch_size = 4
    for part in combined.train_dataloader.dataset.datasets:
        pipeline = (part.dataset if 'dataset' in part else part).pipeline
        for step in pipeline:
            if step.type == 'Resize':
                step.scale = (128, 96)
    combined.default_hooks.logger.interval = 4
    combined_config = str(tmp_path / 'combined_config.py')
    combined.dump(combined_config)
    ran = run_page(
        'docs/stylization.md',
        dict(COCO=osp.join(demo_dir, 'coco'), STYLES=styles,
             STYLIZED=stylized, COMBINED_CONFIG=combined_config,
             COMBINED_CKPT='work_dirs/stylized-demo/train-combined/'
             'epoch_1.pth', CONFIG=config, CKPT=ckpt),
        str(_scratch(tmp_path)), forked)
    # Same names and sizes as the input, and the records.
    source = osp.join(demo_dir, 'coco', 'train2017')
    names = sorted(os.listdir(source))
    assert sorted(os.listdir(stylized / 'train2017')) == names
    for name in names:
        assert Image.open(stylized / 'train2017' / name).size == \
            Image.open(osp.join(source, name)).size
    for name in ('stylize_manifest.json', 'style_assignments.csv',
                 'annotations/instances_train2017.json'):
        assert (stylized / name).exists(), name
    compare = ran[-1].stdout
    assert '| standard |' in compare and '| combined |' in compare


def test_shift(demo_dir, demo_checkpoint, tmp_path, forked):
    _, ckpt = demo_checkpoint
    data = tmp_path / 'data'
    shutil.copytree(osp.join(demo_dir, 'cityscapes'), data / 'cityscapes')
    write_foggy_cityscapes(str(data / 'cityscapes'))
    foggy_config = str(tmp_path / 'foggy_config.py')
    small_config(_demo_config('3e_demo-foggy-cityscapes'),
                 str(data)).dump(foggy_config)
    # A small BDD100k tree without split lists, and a detector of its 10
    # classes with random weights.
    info = generate_bdd100k_demo(str(data / 'bdd100k'), num_val=40,
                                 num_train=14)
    bdd = small_config(_demo_config('12e_demo-bdd100k-clear'), str(data))
    bdd.test_dataloader.dataset.img_size = info['img_size']
    bdd_config = str(tmp_path / 'bdd_config.py')
    bdd.dump(bdd_config)
    torch.manual_seed(0)
    bdd_ckpt = str(tmp_path / 'random.pth')
    torch.save(dict(state_dict=MODELS.build(bdd.model).state_dict()),
               bdd_ckpt)
    # COCO-O in its layout from the demo's COCO images, and two hand-made
    # runs of other detectors for the effective robustness line.
    coco_config, coco_ckpt = demo_checkpoint
    write_coco_o(osp.join(demo_dir, 'coco'), str(data / 'coco-o'))
    others = {
        name: shift_json(tmp_path / name / 'shift.json', coco, (o, ) * 6)
        for name, coco, o in (('r50', 0.374, 0.183), ('r101', 0.394, 0.2))
    }
    scratch = _scratch(tmp_path)
    run_page('docs/shift.md',
             dict(FOGGY_CONFIG=foggy_config, CKPT=ckpt,
                  BDD_CONFIG=bdd_config, BDD_CKPT=bdd_ckpt,
                  BDD=data / 'bdd100k', COCO_CONFIG=coco_config,
                  COCO_CKPT=coco_ckpt, COCO_O=data / 'coco-o',
                  R50_COCO_O=others['r50'], R101_COCO_O=others['r101']),
             str(scratch), forked)
    runs = scratch / 'work_dirs' / 'shift-demo'
    results = json.loads((runs / 'foggy-cityscapes' / 'shift.json')
                         .read_text())
    assert list(results['splits']) == ['clean', 'beta=0.005', 'beta=0.01',
                                       'beta=0.02']
    row = results['summary']['coco/bbox_mAP']
    assert row['P'] == results['splits']['clean']['coco/bbox_mAP']
    for split, value in row['splits'].items():
        assert row['rPC'][split] == value / row['P']
    md = (runs / 'foggy-cityscapes' / 'shift.md').read_text()
    assert '| rPC [%] | 100.0 |' in md
    for name in ('shift.csv', 'shift_coco_bbox_mAP.png'):
        assert osp.getsize(runs / 'foggy-cityscapes' / name) > 0
    splits = data / 'bdd100k' / 'splits'
    for name in ('val_clear', 'val_rainy', 'val_snowy', 'val_daytime',
                 'val_night', 'train_clear', 'train_daytime'):
        assert (splits / f'{name}.txt').read_text().split(), name
    assert (splits / 'splits.json').exists()
    for benchmark, names in (('bdd100k-weather', ['clear', 'rainy', 'snowy']),
                             ('bdd100k-daynight', ['daytime', 'night'])):
        results = json.loads((runs / benchmark / 'shift.json').read_text())
        assert list(results['splits']) == names
        assert results['reference'] == names[0]
    coco_o = json.loads((runs / 'coco-o' / 'shift.json').read_text())
    assert list(coco_o['splits']) == ['coco', *COCO_O_DOMAINS]
    er = json.loads(
        (runs / 'coco-o-er' / 'effective_robustness.json').read_text())
    assert er['line']['fitted'] == ['r50', 'r101']
    assert [r['name'] for r in er['runs']] == ['r50', 'r101', 'demo']


def test_pmk(demo_checkpoint, tmp_path, forked):
    _, ckpt = demo_checkpoint
    video, configs = _video_fixture(tmp_path, ('vid-pmk', 'vid'),
                                    num_videos=3, num_frames=9,
                                    size=(128, 96), k=3)
    scratch = _scratch(tmp_path)
    run_page('docs/pmk.md',
             dict(PMK_CONFIG=configs['vid-pmk'], VID_CONFIG=configs['vid'],
                  CKPT=ckpt, VID=video['root']),
             str(scratch), forked)
    runs = scratch / 'work_dirs' / 'pmk-demo'
    online = json.loads((runs / 'online' / 'pmk.json').read_text())
    assert sorted(online['map'], key=int) == [str(k) for k in range(11)]
    assert online['counts']['anchors'] == 3
    for name in ('pmk.md', 'pmk.png'):
        assert osp.getsize(runs / 'online' / name) > 0
    # offline, from the saved predictions: the same pm-k
    offline = json.loads((runs / 'offline' / 'pmk.json').read_text())
    assert offline['map'] == online['map']
    own = json.loads((runs / 'own-sets' / 'pmk.json').read_text())
    sets = json.loads((runs / 'sets.json').read_text())
    assert own['counts']['anchors'] == len(sets) > 0


def test_video(demo_checkpoint, tmp_path, forked):
    # The table is the library's, in order.
    assert [name for row in _table_rows('docs/video.md')
            for name in re.findall(r'`(\w+)`', row.split('|')[1])
            ] == list(CLIP_CORRUPTION_NAMES)
    _, ckpt = demo_checkpoint
    _, configs = _video_fixture(tmp_path, ('vid', 'vid-pmk'), num_videos=2,
                                num_frames=6, size=(128, 96), k=2)
    scratch = _scratch(tmp_path)
    run_page('docs/video.md',
             dict(CONFIG=configs['vid'], PMK_CONFIG=configs['vid-pmk'],
                  CKPT=ckpt),
             str(scratch), forked)
    runs = scratch / 'work_dirs' / 'video-demo'
    grid = load_results(str(runs / 'grid' / RESULTS_FILE))
    assert sorted(grid['cells']) == ['fog', 'h264_crf', 'translation']
    # camera motion in the grid: scored against the delivered boxes
    assert grid['ground_truth'] == 'pipeline'
    row = grid['video_summary']['coco/bbox_mAP']
    assert {'P', 'mPC_video', 'rPC_video', 'gamma_a', 'gamma_r'} <= set(row)
    md = (runs / 'grid' / 'robustness.md').read_text()
    assert '## Video corruptions' in md
    assert (runs / 'grid' / 'robustness_video_coco_bbox_mAP.png').exists()
    # pm-k under H.264: test_pmk.py's, and a cell of test_robust.py's
    pmk = json.loads((runs / 'pmk-h264_crf-5' / 'pmk.json').read_text())
    cells = load_results(str(runs / 'pmk-grid' / RESULTS_FILE))['cells']
    assert cells['h264_crf']['5']['pmk/mAP_k0'] == pytest.approx(
        pmk['map']['0'], abs=5e-5)
    frames = runs / 'frames' / 'translation' / '3'
    coco = json.loads((frames / 'annotations.json').read_text())
    assert len(coco['images']) == 12
    assert all((frames / image['file_name']).exists()
               for image in coco['images'])


def test_distributed(demo_checkpoint, tmp_path, forked):
    config, ckpt = demo_checkpoint
    ran = run_page('docs/distributed.md', dict(CONFIG=config, CKPT=ckpt),
                   str(tmp_path), forked)
    assert len(ran) == 3
    runs = tmp_path / 'work_dirs' / 'dist-demo'
    one = _numbers(runs / 'one')
    assert len(one['cells']) == 2 and one['summary']
    assert _numbers(runs / 'torchrun') == one
    assert _files(runs / 'torchrun') == _files(runs / 'one')
    # one shard on 2 torchrun processes, the other on 2 slurm tasks
    assert _numbers(runs / 'shards') == one


def test_benchmarks(demo_dir, demo_checkpoint, tmp_path, forked):
    config, ckpt = demo_checkpoint
    _, configs = _video_fixture(tmp_path, ('vid', ), num_videos=1,
                                num_frames=9, size=(128, 96), k=3)
    ran = run_page(
        'docs/benchmarks.md',
        dict(CONFIG=config, VIDEO_CONFIG=configs['vid'], CKPT=ckpt,
             TEST_CKPT=ckpt, GRID='brightness', SIZE='32x48',
             LARGE_SIZE='48x64', COCO_IMAGES=10, ANCHORS=10, ROIS=100,
             STYLIZE_IMAGES=1, STYLIZE_REPEATS=1, STYLIZE_SIZE='64x48',
             CLIP_FRAMES=8,
             VIDEO_FRAMES=1, TORCH_DEVICE='cpu', DEMO_DIR=demo_dir,
             RANDCORRUPT_IMAGES=8, RANDCORRUPT_EPOCHS=1,
             RANDCORRUPT_REPEATS=1, SCALE_IMAGES=2, SCALE_R50_IMAGES=0,
             SCALE_R50_CONFIG='configs/benchmarks/faster-rcnn_r50_fpn'
             '_coco-scale.py', SCALE_CORRUPTIONS='brightness',
             SCALE_WORKERS=0),
        str(_scratch(tmp_path)), forked)
    out = {re.search(r'bench_\w+', r.block).group(0): r.output for r in ran}
    assert sorted(out) == sorted(
        osp.basename(p)[:-3] for p in glob.glob(
            osp.join(REPO, 'tools', 'benchmarks', 'bench_*.py'))), (
        'every script under tools/benchmarks/ has its block')
    assert '75 benchmark variants: reference' in out['bench_corruptions']
    assert 'largest ratio to gaussian_noise' in out['bench_corruptions']
    assert '--region objects on 32×48' in out['bench_corruptions']
    assert 'ratio with/without RandomCorrupt' in out['bench_random_corrupt']
    scale = out['bench_coco_scale']
    for words in ('| mmdet |', '| robustdet_fast |', '| model_only |',
                  'robustdet defaults vs mmdet',
                  'T = cells x max(5000 x d / C, 5000 / X, E) + E',
                  'wrote coco_scale.json'):
        assert words in scale, words
    figures = json.loads(
        (tmp_path / 'scratch' / 'coco_scale.json').read_text())
    for key in ('harness_speedup_vs_mmdet', 'fast_vs_reference',
                'eval_seconds_per_cell_5000', 'projected_hours_full_cococ'):
        assert key in figures, key
    assert figures['machine']['cores'] >= 1 and figures['cells'] == 6
    torch_out = out['bench_torch_corruptions']
    assert 'device cpu' in torch_out
    for name in ('gaussian_noise', 'brownish_noise', 'far_focus'):
        assert f'\n{name} ' in torch_out, name
    assert 'reported metrics identical: True' in out['bench_coco_eval']
    # The reference backend on BGR arrays: mmdet's numbers, cell for cell.
    assert 'deterministic cells with identical metrics: 5/5' in out[
        'bench_test_robust_vs_mmdet']
    assert 'outputs identical: True' in out['bench_roi_align']
    assert 'same cells and summary: yes' in out['bench_dist']
    assert '| cpu | 64x48 | 8 |' in out['bench_stylize']
    assert 'peak RSS ratio' in out['bench_stylize']
    assert 'pm-k mAP50 k=0..10' in out['bench_pmk']
    assert '| translation | camera |' in out['bench_video']
    assert '| h265_crf | 5 | 51 |' in out['bench_codec_psnr']
    assert '| h265_crf |' in out['bench_video_share']


def test_robust_training(demo_dir, demo_checkpoint, tmp_path, forked):
    config, _ = demo_checkpoint
    ran = run_page('docs/robust_training.md',
                   dict(CONFIG=config, DATA=osp.join(demo_dir, 'coco')),
                   str(tmp_path), forked)
    picks, applied = ran[0].stdout.strip().splitlines()
    holdout = ('speckle_noise', 'gaussian_blur', 'spatter', 'saturate')
    assert picks.count("'") == 4 and all(
        n in holdout for n in re.findall(r"'(\w+)'", picks))
    # The first pick is what the transform applied.
    assert applied.split()[:2] == list(re.findall(
        r"\('(\w+)', (\d)\)", picks)[0])
    gallery = Image.open(tmp_path / 'work_dirs' / 'gallery' / 'all.png')
    assert len(gallery.info['robustdet:rows'].split()) == 19
    _same_figure(tmp_path, 'gallery.png')


def test_development(tmp_path, forked):
    """The make targets are checked with ``make -n``; the other blocks
    run."""
    ran = run_page('docs/development.md', {}, str(tmp_path), forked,
                   setup_block=None)
    make = next(r.stdout for r in ran if 'make lint' in r.block)
    for command in ('ruff check .', 'isort --check-only', 'isort .',
                    'ruff check --fix',
                    'pytest -q -n 2 --dist worksteal tests',
                    'held_back_cpu.py -- env -u PYTHONDONTWRITEBYTECODE '
                    '.venv/bin/python -m pytest -q -n 1 -m cpu_sensitive '
                    'tests'):
        assert command in make, command
    fuzz = next(r.stdout for r in ran if 'make fuzz' in r.block)
    assert ('tools/dev/fuzz_safe_pickle.py --seconds 3600 --work-dir '
            'work_dirs/fuzz') in fuzz
    # Held back a generation: AVX-512 to AVX2, AVX2 to SSE4.2 (DEFAULT).
    held = next(r.stdout for r in ran if 'held_back_cpu' in r.block)
    plain = subprocess.run(
        [sys.executable, '-c', 'import torch; '
         'print(torch.backends.cpu.get_cpu_capability())'],
        capture_output=True, text=True, check=True).stdout
    assert held.split()[-1] in ('AVX2', 'DEFAULT')
    assert held.split()[-1] != plain.strip()
    # The tests' small demo data, byte for byte.
    assert sha256_tree(str(tmp_path / 'data' / 'demo-small')) == \
        SMALL_DEMO_SHA256
