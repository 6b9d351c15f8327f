# Copyright (c) robustdet contributors. All rights reserved.
"""What a detector saw in training: the record its checkpoint carries
(or its stored training config, read as data), with the test config's
training pipelines, recorded by test_robust.py and warned about in every
report."""
import os.path as osp

import pytest

from robustdet.apis.results import RESULTS_FILE, load_results
from robustdet.apis.training_record import training_corruptions
from robustdet.datasets.training_record import (RECORD_KEY, checkpoint_record,
                                                merge_records)
from robustdet.evaluation.functional.run_results import training_warning
from robustdet.reports import markdown_report, summary_text
from robustdet.utils.cli import load_config
from robustdet.utils.config_text import literal_config
from robustdet.utils.errors import RobustDetError
from tests.conftest import DEMO_CONFIGS, REPO, replace_data_root
from tests.tool_process import run_tool

RANDCORRUPT = osp.join(DEMO_CONFIGS,
                       'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco-randcorrupt.py')
HOLDOUT = ['speckle_noise', 'gaussian_blur', 'spatter', 'saturate']


def test_training_corruptions_of_configs():
    plain = training_corruptions(load_config(osp.join(
        DEMO_CONFIGS, 'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')))
    assert (plain['transforms'], plain['corruptions']) == ([], [])
    assert plain['source'] == 'test config' and not plain['stylized']
    cfg = load_config(RANDCORRUPT)
    record = training_corruptions(cfg)
    assert (record['transforms'], record['corruptions'],
            record['benchmark']) == (['RandomCorrupt'], HOLDOUT, [])
    # Combined with stylized data: every pipeline's step counts.
    combined = training_corruptions(load_config(osp.join(
        REPO, 'configs', 'robust_training',
        'faster-rcnn_r50_fpn_1x_cocoscoco-randcorrupt.py')))
    assert combined['corruptions'] == HOLDOUT and combined['stylized']
    # Benchmark corruptions, allowed, and the same leak through
    # CorruptImage and mmdet's Corrupt: named as such.
    pipeline = cfg.train_dataloader.dataset.dataset.pipeline
    pipeline[1].update(corruptions=['fog', 'saturate'], allow_benchmark=True)
    pipeline.insert(2, dict(type='CorruptImage', corruption='frost',
                            severity=2))
    pipeline.insert(3, dict(type='mmdet.Corrupt', corruption='snow'))
    record = training_corruptions(cfg)
    assert record['transforms'] == ['Corrupt', 'CorruptImage',
                                    'RandomCorrupt']
    assert record['corruptions'] == ['snow', 'frost', 'fog', 'saturate']
    assert record['benchmark'] == ['snow', 'frost', 'fog']


def test_checkpoint_record():
    """The record a checkpoint carries, else its training config read as
    data (never run), else unknown; a malformed one is one line naming
    the key."""
    cfg = load_config(RANDCORRUPT)
    text = cfg.pretty_text + (
        "\nevil = __import__('os').system('touch /tmp/robustdet-pwned')\n")
    record = checkpoint_record(dict(meta=dict(cfg=text)), 'c.pth')
    assert record['source'] == 'checkpoint config'
    assert record['corruptions'] == HOLDOUT
    assert not osp.exists('/tmp/robustdet-pwned')
    assert literal_config('x = f(1)\ny = dict(a=[1, -2.5], b=(None, ))') \
        == dict(x='f(1)', y=dict(a=[1, -2.5], b=(None, )))
    written = dict(record, source='checkpoint')
    assert checkpoint_record(
        dict(meta={RECORD_KEY: written, 'cfg': 'x = 1'}), 'c.pth') == written
    unknown = checkpoint_record(dict(state_dict={}), 'c.pth')
    assert unknown['source'] == 'unknown'
    assert checkpoint_record(dict(meta=dict(cfg='x = (')), 'c')[
        'source'] == 'unknown'
    assert 'training record unknown' in training_warning(
        dict(training_corruptions=unknown))
    for key, value in (('corruptions', 'fog'), ('stylized', 1),
                       ('format', 'x/9'), ('source', 'elsewhere'),
                       ('config_sha256', 3)):
        bad = dict(written, **{key: value})
        with pytest.raises(RobustDetError) as e:
            checkpoint_record(dict(meta={RECORD_KEY: bad}), 'c.pth')
        assert f"'{key}'" in str(e.value) and '\n' not in str(e.value)
    with pytest.raises(RobustDetError, match='is a list, not a dict'):
        checkpoint_record(dict(meta={RECORD_KEY: []}), 'c.pth')
    # Resumed with another pipeline: the union.
    both = merge_records(written, dict(written, corruptions=['fog'],
                                       benchmark=['fog']))
    assert both['corruptions'] == ['fog'] + HOLDOUT


def test_reports_warn():
    results = dict(training_corruptions=dict(
        transform='RandomCorrupt', corruptions=HOLDOUT, benchmark=[]))
    assert 'their cells are not unseen corruptions' in training_warning(
        results)
    results['training_corruptions'].update(benchmark=['fog'])
    assert 'mPC no longer measures' in training_warning(results)
    assert training_warning({}) is None


def test_test_robust_records_it(demo_dir, demo_checkpoint, tmp_path):
    _, ckpt = demo_checkpoint
    cfg = replace_data_root(load_config(RANDCORRUPT), demo_dir)
    cfg.test_dataloader.num_workers = 0
    cfg.test_dataloader.persistent_workers = False
    config = str(tmp_path / 'randcorrupt.py')
    cfg.dump(config)
    proc = run_tool('tools/test_robust.py', config, ckpt, '--corruptions',
                    'saturate', '--severities', '0', '--work-dir',
                    str(tmp_path / 'w'), cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = load_results(str(tmp_path / 'w' / RESULTS_FILE))
    assert results['training_corruptions']['corruptions'] == HOLDOUT
    assert 'warning: trained with RandomCorrupt on speckle_noise' in \
        summary_text(results)
    assert '- **trained with RandomCorrupt' in markdown_report(results)
    assert 'warning: trained with RandomCorrupt' in proc.stdout
