# Copyright (c) robustdet contributors. All rights reserved.
"""tools/stylize_dataset.py end to end (generated weights, tiny styles)
and its one-line errors."""
import json
import os.path as osp

from robustdet.demo.styles import write_style_images
from tests.conftest import REPO
from tests.tool_process import run_tool

TOOL = osp.join(REPO, 'tools', 'stylize_dataset.py')


def run(*args):
    return run_tool(TOOL, *args, cwd=REPO)


def test_cli_voc_and_errors(demo_dir, tmp_path):
    styles = str(tmp_path / 'styles')
    write_style_images(styles, num=3, size=(40, 32))
    out = tmp_path / 'out'
    args = ['--voc', osp.join(demo_dir, 'VOCdevkit'), '--style-dir', styles,
            '--out-dir', str(out), '--generated-weights',
            '--content-size', '32', '--style-size', '32', '--device',
            'cpu']
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    assert 'wrote 8 of 8 stylized images' in proc.stdout
    manifest = json.loads((out / 'stylize_manifest.json').read_text())
    assert manifest['settings']['weights'] == {
        'generated': 'robustdet.stylize.demo_weights'}
    assert run(*args).stdout.count('wrote 0 of 8') == 1  # resumed

    for bad, msg in [
        (['--alpha', '-0.1'], '--alpha must be in [0, 1]'),
        (['--out-dir', osp.join(demo_dir, 'VOCdevkit', 'x')],
         'inside the input tree'),
        (['--device', 'cuda:7'], None),
    ]:
        proc = run(*args, *bad)
        assert proc.returncode == 2, (bad, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith('error: '), lines
        if msg:
            assert msg in lines[0], lines[0]
