# Copyright (c) robustdet contributors. All rights reserved.
"""``make demo``: the committed demo detector, the README's figures and
the checks the demo makes before any work."""
import os
import os.path as osp
import shutil

import pytest
import torch

import demo as demo_main
from robustdet.apis.results import RESULTS_FILE, load_results
from robustdet.corruptions import CORRUPTION_NAMES
from robustdet.evaluation.functional.run_results import cell_value
from robustdet.utils.cli import load_config
from robustdet.utils.errors import RobustDetError
from robustdet.utils.io import sha256_file
from tests.conftest import FRCNN_DEMO, REPO, replace_data_root
from tests.tool_process import run_tool

# The demo's results as `make demo` wrote them (README.md's figures).
DEMO_RESULTS = osp.join(REPO, 'demo', 'robustness.json')
# The cells a fresh run recomputes on the demo's own 50 val images.
FRESH = dict(corruptions=['gaussian_noise'], severity=3)


def _readme_tables():
    """The rows of the README's demo summary and severity tables (between
    its demo figure marks): ``{first cell: [the other cells]}``."""
    with open(osp.join(REPO, 'README.md'), encoding='utf-8') as f:
        text = f.read()
    part = text[text.index('<!-- DEMO FIGURES -->'):text.index(
        '<!-- /DEMO FIGURES -->')]
    rows = {}
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if line.startswith('| ') and cells[0] in (
                'metric', 'coco/bbox_mAP', *CORRUPTION_NAMES):
            rows[cells[0]] = cells[1:]
    return rows


def test_committed_detector():
    """The file `make demo` benchmarks is the one its hash names, with
    its training record and how it was made."""
    path = osp.join(REPO, demo_main.DETECTOR)
    assert sha256_file(path) == demo_main.DETECTOR_SHA256
    assert demo_main.check_detector() == demo_main.DETECTOR
    ckpt = torch.load(path, map_location='cpu', weights_only=True)
    made = ckpt['meta']['robustdet_demo_detector']
    assert made['command'] == f'python tools/train.py {demo_main.CONFIG}'
    assert made['cpu'] and made['cpu_capability']
    record = ckpt['meta']['robustdet_training_record']
    assert record['corruptions'] == [] and not record['stylized']
    assert {v.dtype for v in ckpt['state_dict'].values()
            if v.is_floating_point()} == {torch.float16}


def test_readme_figures_are_the_demo_results():
    """Every number of the README's demo tables is the committed demo
    results' (points, rPC in %), and those results are of the committed
    detector on the whole grid."""
    results = load_results(DEMO_RESULTS)
    assert results['checkpoint_sha256'] == demo_main.DETECTOR_SHA256
    metric = 'coco/bbox_mAP'
    rows = _readme_tables()
    header = rows['metric']
    summary = dict(results['summary'][metric], P=results['clean'][metric])
    assert len(header) == 8
    for column, text in zip(header, rows[metric]):
        assert text == f'{100 * summary[column]:.1f}', column
    shown = [n for n in rows if n in CORRUPTION_NAMES]
    assert len(shown) == 7
    for name in shown:
        for sev, text in zip(range(1, 6), rows[name][1:]):
            value = cell_value(results, name, sev, metric)
            assert text == f'{100 * value:.1f}', (name, sev)
    assert sum(len(sevs) for sevs in results['cells'].values()) == 95


def test_fresh_run_gives_the_committed_cells(tmp_path):
    """The committed detector on freshly generated demo val images (all
    50, at the demo's size) gives the committed results' cells exactly:
    the clean cell and a noise cell (its noise seeded per image)."""
    from demo_data import generate_demo_data
    data = str(tmp_path / 'demo')
    generate_demo_data(data, seed=0, num_train=1, num_val=50,
                       size=(320, 240), layouts=['coco'])
    # The demo config as `make demo` runs it (its batch size: padding can
    # move numbers), pointed at these images, without dataloader workers.
    cfg = replace_data_root(load_config(FRCNN_DEMO), data)
    cfg.test_dataloader.num_workers = 0
    cfg.test_dataloader.persistent_workers = False
    config = str(tmp_path / 'demo_config.py')
    cfg.dump(config)
    work = tmp_path / 'work'
    proc = run_tool('tools/test_robust.py', config,
                    osp.join(REPO, demo_main.DETECTOR), '--corruptions',
                    *FRESH['corruptions'], '--severities', 0,
                    FRESH['severity'], '--work-dir', work, '--seed', 0,
                    cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    fresh = load_results(str(work / RESULTS_FILE))
    committed = load_results(DEMO_RESULTS)
    assert fresh['clean'] == committed['clean']
    for name in FRESH['corruptions']:
        sev = str(FRESH['severity'])
        assert fresh['cells'][name][sev] == committed['cells'][name][sev]


def test_check_room(tmp_path):
    """A directory the demo cannot create or write, or a file system with
    too little room, is refused with one line before any work."""
    blocker = tmp_path / 'file'
    blocker.write_text('not a directory')
    with pytest.raises(RobustDetError, match='cannot write to .*file/data'):
        demo_main.check_room([str(blocker / 'data')], 1)
    free = shutil.disk_usage(tmp_path).free // 2**20
    with pytest.raises(RobustDetError, match=r'MiB free .* needs about'):
        demo_main.check_room([str(tmp_path / 'data')], free + 1024)
    demo_main.check_room([str(tmp_path / 'data')], 1)
    assert os.listdir(tmp_path / 'data') == []
