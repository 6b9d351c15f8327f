# Copyright (c) robustdet contributors. All rights reserved.
"""tools/test_pmk.py and PMKMetric through mmdet's own tools/test.py, on
the small synthetic video neighbour sets."""
import json
import os.path as osp

import mmdet
import pytest
import torch

from demo_data.video import generate_video_demo
from robustdet.utils.cli import load_config
from tests.conftest import REPO, replace_data_root
from tests.tool_process import check_only_rank0_writes, run_ranks, run_tool

PMK_CONFIG = osp.join(REPO, 'configs', 'demo',
                      'faster-rcnn_r18-c16_fpn-c64_3e_demo-vid-pmk.py')


def _pmk_config(demo_checkpoint, work, size):
    """The pm-k demo config on 3 small synthetic videos of ``size``."""
    video = generate_video_demo(str(work / 'vid'), num_videos=3,
                                num_frames=9, size=size, k=3)
    cfg = replace_data_root(load_config(PMK_CONFIG), video['root'],
                            old_root='data/demo/vid/')
    cfg.test_dataloader.num_workers = 0
    cfg.test_dataloader.persistent_workers = False
    cfg.val_dataloader = cfg.test_dataloader
    config = str(work / 'pmk_config.py')
    cfg.dump(config)
    return config, demo_checkpoint[1], work


@pytest.fixture(scope='module')
def pmk_setup(demo_checkpoint, tmp_path_factory):
    return _pmk_config(demo_checkpoint, tmp_path_factory.mktemp('pmk'),
                       (128, 96))


@pytest.fixture(scope='module')
def mixed_pmk(demo_checkpoint, tmp_path_factory):
    """Videos of three sizes and aspect ratios (27 frames), and the report
    of one process at batch sizes 2 and 3."""
    work = tmp_path_factory.mktemp('pmk_mixed')
    config, ckpt, _ = _pmk_config(demo_checkpoint, work,
                                  [(128, 96), (96, 128), (160, 80)])
    one = {
        b: _test_pmk(config, ckpt, work / f'one-{b}', '--cfg-options',
                     f'test_dataloader.batch_size={b}')[1]
        for b in (2, 3)
    }
    return config, ckpt, one


def _test_pmk(config, ckpt, out, *extra):
    proc = run_tool('tools/test_pmk.py', config, ckpt, '--k', '3',
                    '--work-dir', out, *extra, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, json.loads((out / 'pmk.json').read_text())


@pytest.fixture(scope='module')
def clean_pmk(pmk_setup):
    config, ckpt, work = pmk_setup
    return _test_pmk(config, ckpt, work / 'out')


@pytest.mark.cpu_sensitive
def test_test_pmk_end_to_end(pmk_setup, clean_pmk):
    _, _, work = pmk_setup
    out = work / 'out'
    proc, report = clean_pmk
    assert sorted(report['map'], key=int) == ['0', '1', '2', '3']
    assert report['counts']['anchors'] == 3
    assert set(report['worst_frames']['3']) == set(
        json.load(open(work / 'vid' / 'metadata' / 'pmsets.json')))
    for k in ('1', '2', '3'):
        # exact: the same one float64 subtraction
        assert report['delta'][k] == report['map']['0'] - report['map'][k]
        # Each anchor's worst frame is a member of its own set.
        for anchor, frame in report['worst_frames'][k].items():
            assert osp.dirname(frame) == osp.dirname(anchor)
            assert abs(int(frame[-11:-5]) - int(anchor[-11:-5])) <= int(k)
    assert 'classification' in report and 'localization' in report
    assert (out / 'pmk.md').exists() and (out / 'pmk.png').exists()
    assert '| k | mAP50' in proc.stdout


@pytest.mark.parametrize('world_size, batch_size', [(2, 2), (3, 3)])
def test_test_pmk_over_processes(mixed_pmk, tmp_path, world_size,
                                 batch_size):
    """Launched over 2 and 3 processes (27 frames of three sizes: uneven
    shares, a short last batch, padded batches), the report of one process
    at the same batch size: every set, worst frame and score (each rank
    scores whole batches of one process,
    :class:`~robustdet.engine.BatchRunSampler`), where one process
    gives another report at batch size 2 than at 3."""
    config, ckpt, one = mixed_pmk
    assert one[2] != one[3]
    audit = tmp_path / 'audit'
    audit.mkdir()
    work = tmp_path / 'w'
    procs = run_ranks('tools/test_pmk.py', config, ckpt, '--k', '3',
                      '--work-dir', work, '--cfg-options',
                      f'test_dataloader.batch_size={batch_size}',
                      world_size=world_size, cwd=REPO, audit=audit)
    for proc in procs:
        assert proc.returncode == 0, proc.stderr[-3000:]
    check_only_rank0_writes(audit, work)
    assert json.loads((work / 'pmk.json').read_text()) == one[batch_size]
    assert '| k | mAP50' in procs[0].stdout
    assert not any(p.stdout.strip() for p in procs[1:])


@pytest.mark.cpu_sensitive
def test_test_pmk_under_a_codec(pmk_setup, clean_pmk, tmp_path):
    """Each set's frames come from one clip around its anchor, corrupted
    once; the worst frames are still members of their sets."""
    config, ckpt, work = pmk_setup
    _, report = _test_pmk(config, ckpt, tmp_path / 'h264',
                          '--video-corruption', 'mpeg4_q', '--severity',
                          '5', '--clip-len', '7')
    clean = clean_pmk[1]

    def sets(counts):
        return {k: v for k, v in counts.items() if k != 'predictions'}

    assert sets(report['counts']) == sets(clean['counts'])
    # The codec costs mAP50 0.619 -> 0.181 at k = 0 (measured): far more
    # than the last bits of the convolutions.
    assert report['map'] != clean['map']
    assert set(report['worst_frames']['3']) == set(clean['worst_frames']['3'])
    proc = run_tool('tools/test_pmk.py', config, ckpt, '--work-dir',
                    tmp_path / 'bad', '--video-corruption', 'h264_crf',
                    '--clip-len', '5', cwd=REPO)
    assert proc.returncode == 2
    assert 'does not reach it' in proc.stderr.strip().splitlines()[-1]


@pytest.mark.cpu_sensitive
def test_metric_through_mmdet_tools_test(pmk_setup, tmp_path):
    """The plain mmdet path: its own tools/test.py with the config's
    PMKMetric. mmdet's loader uses torch's weights-only default, so the
    checkpoint holds only tensors here."""
    config, ckpt, _ = pmk_setup
    from robustdet.utils import load_checkpoint_file
    plain = str(tmp_path / 'plain.pth')
    torch.save({'state_dict': load_checkpoint_file(ckpt)['state_dict']},
               plain)
    mim = osp.join(osp.dirname(mmdet.__file__), '.mim')
    proc = run_tool(osp.join(mim, 'tools', 'test.py'), config, plain,
                    '--work-dir', tmp_path / 'w', cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert 'pmk/mAP_k0' in out and 'pmk/acc_k10' in out


def test_test_pmk_needs_neighbour_sets(tmp_path):
    config = osp.join(REPO, 'configs', 'demo',
                      'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')
    ckpt = tmp_path / 'c.pth'
    torch.save({'state_dict': {}}, str(ckpt))
    proc = run_tool('tools/test_pmk.py', config, ckpt, cwd=REPO)
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith('error:') and 'NeighborSetDataset' in last
