# Copyright (c) robustdet contributors. All rights reserved.
"""tools/test_robust.py launched over several processes (gloo, CPU): the
numbers of one process at world sizes 2 and 3 (4 images: uneven splits),
only rank 0 writes, resume and shards across world sizes, a dead rank, and
one-line errors for bad launches.

The ranks are real processes joined by torch.distributed; the tests here
start them as torchrun would (rank 0 holds the rendezvous store) from the
tests' forkserver; the commands of docs/distributed.md (torchrun, the
launch scripts, shards on torchrun and slurm ranks merged) run in
tests/test_docs/test_docs.py."""
import contextlib
import os
import os.path as osp
import signal
import socket
import time

import pytest

from robustdet.apis.results import RESULTS_FILE, load_results
from tests.conftest import REPO, overfit_config
from tests.tool_process import (check_only_rank0_writes,
                                check_stuck_rank_stopped, free_port, rank_env,
                                run_ranks, run_tool, start_ranks)

TOOL = 'tools/test_robust.py'
# Seconds within which a killed rank's processes are all gone.
ORPHAN_BOUND = 2.0
GRID = ['--corruptions', 'gaussian_noise', 'defocus_blur', '--severities',
        '0', '3']


def _args(demo_checkpoint, work_dir, *extra):
    config, ckpt = demo_checkpoint
    return [config, ckpt, '--work-dir', str(work_dir), *GRID, *extra]


def _numbers(work_dir):
    results = load_results(str(work_dir / RESULTS_FILE))
    return {k: results.get(k)
            for k in ('clean', 'cells', 'summary', 'empty_cells',
                      'coverage', 'skipped_images')}


def _files(work_dir):
    """What a run left in its work dir (the log folder's timestamp out)."""
    stamp = next(name for name in os.listdir(work_dir)
                 if name[:8].isdigit() and osp.isdir(work_dir / name))
    found = set()
    for root, _, files in os.walk(work_dir):
        for name in files:
            found.add(osp.relpath(osp.join(root, name),
                                  work_dir).replace(stamp, 'STAMP'))
    return found


def _ok(procs):
    for rank, proc in enumerate(procs):
        assert proc.returncode == 0, (rank, proc.stderr[-3000:])


def _one_line(proc, expect, status=2):
    assert proc.returncode == status, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: '), lines
    assert expect in lines[0], lines[0]


@pytest.fixture(scope='module')
def single(demo_checkpoint, tmp_path_factory):
    work = tmp_path_factory.mktemp('single')
    proc = run_tool(TOOL, *_args(demo_checkpoint, work), cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return work


def test_three_ranks_give_the_numbers_of_one_process(single, demo_checkpoint,
                                                    tmp_path):
    """4 images over 3 ranks (2, 1, 1: rank 1 and 2 pad their share with
    image 0, which the evaluators drop). World size 2 with torchrun, and
    shards on torchrun and slurm ranks merged: tests/test_docs/test_docs.py
    runs docs/distributed.md."""
    work = tmp_path / 'w'
    audit = tmp_path / 'audit'
    audit.mkdir()
    procs = run_ranks(TOOL, *_args(demo_checkpoint, work), world_size=3,
                      cwd=REPO, audit=audit)
    _ok(procs)
    assert _numbers(work) == _numbers(single)
    # Only rank 0 writes: the files of one process, no temporary ones;
    # every file any rank opened for writing, created or renamed is
    # recorded, and ranks 1 and 2 wrote nothing under the work dir.
    assert _files(work) == _files(single)
    check_only_rank0_writes(audit, work)
    # Rank 0 prints the summary and the paths; the others print nothing.
    assert 'results: ' in procs[0].stdout
    for proc in procs[1:]:
        assert 'results: ' not in proc.stdout and 'error' not in proc.stderr


# Three sizes and aspect ratios: mmdet pads a batch's images to its
# largest, so an image's neighbours in its batch change its numbers.
MIXED_SIZES = [(128, 96), (96, 128), (160, 80)]


@pytest.fixture(scope='module')
def mixed(demo_checkpoint, tmp_path_factory):
    """7 val images of :data:`MIXED_SIZES` (7 divides by no batch size or
    world size in use) and the committed checkpoint's config on them; the
    numbers of one process by batch size, computed when first asked."""
    from demo_data import generate_demo_data
    root = tmp_path_factory.mktemp('mixed')
    generate_demo_data(str(root / 'demo'), seed=0, num_train=1, num_val=7,
                       size=MIXED_SIZES, layouts=['coco'])
    config = str(root / 'config.py')
    overfit_config(str(root / 'demo'), root / 'work').dump(config)
    singles = {}

    def run(batch_size, world_size=1, work=None, *extra):
        args = [config, demo_checkpoint[1], '--work-dir', str(work), *GRID,
                '--cfg-options', f'test_dataloader.batch_size={batch_size}',
                *extra]
        if world_size == 1:
            _ok([run_tool(TOOL, *args, cwd=REPO)])
        else:
            _ok(run_ranks(TOOL, *args, world_size=world_size, cwd=REPO))
        return _numbers(work)

    def single(batch_size):
        if batch_size not in singles:
            singles[batch_size] = run(batch_size, 1,
                                      root / f'single-{batch_size}')
        return singles[batch_size]

    return run, single


@pytest.mark.parametrize('world_size, batch_size, collect', [
    (2, 3, 'gpu'), (3, 2, 'cpu'), (3, 3, 'gpu')])
def test_mixed_sizes_give_the_numbers_of_one_process(mixed, world_size,
                                                      batch_size, collect,
                                                      tmp_path):
    """Images of three sizes, batches of 2 and 3, 7 images over 2 and 3
    ranks (shares of unequal length, a short last batch), the results
    gathered over the process group ('gpu', with gloo on the CPU) or
    through files ('cpu'): the cells and summaries of one process at the
    same batch size. That batch size matters here: one process gives
    other numbers at batch size 2 than at 3."""
    run, single = mixed
    assert single(2)['clean'] != single(3)['clean']
    got = run(batch_size, world_size, tmp_path / 'w',
              f'test_evaluator.collect_device={collect}')
    assert got == single(batch_size)


def _wait_for_cells(path, count, procs, deadline=300):
    end = time.time() + deadline
    while time.time() < end:
        if osp.exists(path) and len(load_results(str(path))['seconds']) >= \
                count:
            return
        assert all(p.process.is_alive() for p in procs), 'ended too soon'
        time.sleep(0.05)
    raise AssertionError('no cell was recorded')


def test_resume_across_world_sizes(single, demo_checkpoint, tmp_path):
    """kill -9 of a 2-process run after its first cell, then a run at
    world size 3: the numbers of an uninterrupted run."""
    work = tmp_path / 'w'
    ranks = start_ranks(TOOL, _args(demo_checkpoint, work), 2, cwd=REPO)
    try:
        _wait_for_cells(work / RESULTS_FILE, 1, ranks)
    finally:
        for rank in ranks:
            os.kill(rank.pid, signal.SIGKILL)
            rank.kill()
    assert len(load_results(str(work / RESULTS_FILE))['seconds']) < 3
    procs = run_ranks(TOOL, *_args(demo_checkpoint, work), world_size=3,
                      cwd=REPO)
    _ok(procs)
    assert 'resuming' in procs[0].stdout + procs[0].stderr
    assert _numbers(work) == _numbers(single)
    assert not [f for f in _files(work) if f.endswith(('.tmp', '.part'))]


def _family(pid):
    """A process and every process below it (psutil), and the
    ``/dev/shm`` files they hold open (unlinked ones left out)."""
    import psutil
    top = psutil.Process(pid)
    procs = [top] + top.children(recursive=True)
    shm = set()
    for proc in procs:
        fds = f'/proc/{proc.pid}/fd'
        for fd in os.listdir(fds) if osp.isdir(fds) else ():
            with contextlib.suppress(OSError):
                target = os.readlink(osp.join(fds, fd))
                if target.startswith('/dev/shm/') and \
                        not target.endswith('(deleted)'):
                    shm.add(target)
    return procs, shm


def _gone(proc):
    import psutil
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _stop_rank_1(demo_checkpoint, work, sig, world_size):
    """Start the ranks (a 5 s stall timeout, 2 dataloader workers each),
    send rank 1 ``sig`` once a cell is recorded: the other ranks' results,
    seconds until the last ended, and rank 1's processes, those still
    there :data:`ORPHAN_BOUND` seconds after the signal, and its /dev/shm
    files."""
    ranks = start_ranks(
        TOOL,
        _args(demo_checkpoint, work, '--dist-timeout', '120',
              '--dist-stall-timeout', '5', '--cfg-options',
              'test_dataloader.num_workers=2',
              'test_dataloader.persistent_workers=False'), world_size,
        cwd=REPO)
    try:
        _wait_for_cells(work / RESULTS_FILE, 1, ranks)
        family, shm = _family(ranks[1].pid)
        os.kill(ranks[1].pid, sig)
        start = time.time()
        left = family
        while left and time.time() < start + ORPHAN_BOUND:
            time.sleep(0.05)
            left = [p for p in family if not _gone(p)]
        procs = [r.wait(timeout=120) for i, r in enumerate(ranks) if i != 1]
        return procs, time.time() - start, (family, left, shm)
    finally:
        for rank in ranks:
            if sig == signal.SIGSTOP and rank.process.is_alive():
                os.kill(rank.pid, signal.SIGCONT)
            rank.kill()


@pytest.mark.waits
@pytest.mark.parametrize('sig, world_size',
                         [(signal.SIGKILL, 2), (signal.SIGSTOP, 2),
                          (signal.SIGKILL, 3)],
                         ids=['killed', 'stopped', 'killed-of-3'])
def test_a_dead_or_stopped_rank_stops_the_others(demo_checkpoint, tmp_path,
                                                sig, world_size):
    """Rank 1 killed (kill -9) or stopped (SIGSTOP, alive but frozen)
    mid-grid: the others stop in one line naming it, with status 3, within
    2 x --dist-stall-timeout + a heartbeat (here 11 s; a killed rank's
    closed connection may end a collective sooner), far within
    --dist-timeout (120 s), and what was finished resumes. Nothing of the
    killed rank remains: its dataloader workers end with it within
    :data:`ORPHAN_BOUND` (the kernel's parent-death signal; elsewhere
    half a second of polling) and leave no file in /dev/shm."""
    work = tmp_path / 'w'
    procs, took, (family, left, shm) = _stop_rank_1(demo_checkpoint, work,
                                                    sig, world_size)
    assert took < 2 * 5 + 1 + 5, took  # + the batch and the message
    for rank, proc in zip([0] + list(range(2, world_size)), procs):
        assert proc.returncode == 3, proc.stderr[-3000:]
        last = proc.stderr.strip().splitlines()[-1]
        assert last.startswith('error: rank 1 stopped'), last
        assert f'rank {rank} stops too' in last
        if sig == signal.SIGSTOP:
            assert 'no heartbeat for 5 s' in last, last
        assert 'Traceback' not in proc.stderr
    assert load_results(str(work / RESULTS_FILE))['seconds']
    if sig == signal.SIGKILL:
        assert len(family) == 3, family  # the rank and its 2 workers
        assert not left, left
        assert not [path for path in shm if osp.exists(path)]


def _slow_config(demo_checkpoint, tmp_path, **metric):
    """The demo config with :class:`tests.slow_metric.SlowCocoMetric`."""
    from robustdet.utils.cli import load_config
    cfg = load_config(demo_checkpoint[0])
    cfg.custom_imports = dict(imports=['robustdet', 'tests.slow_metric'],
                              allow_failed_imports=False)
    cfg.test_evaluator = dict(cfg.test_evaluator, type='SlowCocoMetric',
                              **metric)
    path = str(tmp_path / 'slow_config.py')
    cfg.dump(path)
    return path


@pytest.mark.waits
def test_a_slow_evaluation_does_not_trip_the_watchdog(demo_checkpoint,
                                                      tmp_path):
    """Rank 0 evaluating for 8 s (a registered metric that sleeps, as a
    large COCO evaluation does) while rank 1 waits for it, with a 3 s
    --dist-stall-timeout: both keep beating, and the run ends well."""
    slow = _slow_config(demo_checkpoint, tmp_path, sleep=8)
    work = tmp_path / 'w'
    procs = run_ranks(TOOL, slow, demo_checkpoint[1], '--work-dir', work,
                      '--corruptions', 'gaussian_noise', '--severities', '0',
                      '--dist-stall-timeout', '3', world_size=2, cwd=REPO,
                      env=dict(PYTHONPATH=REPO))
    _ok(procs)
    results = load_results(str(work / RESULTS_FILE))
    assert results['seconds']['clean'] > 8
    assert 'stopped' not in procs[0].stderr + procs[1].stderr


@pytest.mark.waits
def test_a_stuck_rank_stops_the_others(demo_checkpoint, tmp_path):
    """Rank 1's main thread stuck mid-pass (in its second batch) while
    its process lives and its heartbeat thread runs: after its first
    batch, no step for --dist-stall-timeout (5 s) stops its heartbeat,
    and rank 0 stops in one line within 2 x 5 s + 1 s + a batch (here
    within 5 s more: it waits in the evaluation's collective); rank 1
    ends with what rank 0 found, or on finding rank 0's store gone.
    Neither waits out --dist-timeout (120 s)."""
    stuck = _slow_config(demo_checkpoint, tmp_path, stuck_rank=1,
                         stuck_at=2)
    work = tmp_path / 'w'
    start = time.time()
    procs = run_ranks(TOOL, stuck, demo_checkpoint[1], '--work-dir', work,
                      *GRID, '--dist-timeout', '120', '--dist-stall-timeout',
                      '5', '--cfg-options', 'test_dataloader.batch_size=1',
                      world_size=2, cwd=REPO, env=dict(PYTHONPATH=REPO),
                      timeout=120)
    check_stuck_rank_stopped(procs, time.time() - start)


def test_launcher_without_its_environment(demo_checkpoint, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ('RANK', 'WORLD_SIZE', 'LOCAL_RANK', 'MASTER_ADDR',
                        'MASTER_PORT')}
    proc = run_tool(TOOL, *_args(demo_checkpoint, tmp_path / 'w'),
                    '--launcher', 'pytorch', cwd=REPO, env=env)
    _one_line(proc, '--launcher pytorch needs the environment variable RANK')
    assert not (tmp_path / 'w').exists()


def test_nccl_without_cuda(demo_checkpoint, tmp_path):
    proc = run_tool(TOOL, *_args(demo_checkpoint, tmp_path / 'w'),
                    '--launcher', 'pytorch', '--cfg-options',
                    'env_cfg.dist_cfg.backend=nccl', cwd=REPO,
                    env=rank_env(0, 1, free_port()))
    _one_line(proc, 'the nccl backend needs CUDA')
    assert not (tmp_path / 'w').exists()


def test_ranks_with_different_arguments(demo_checkpoint, tmp_path):
    procs = run_ranks(TOOL, *_args(demo_checkpoint, tmp_path / 'w'),
                      world_size=2, cwd=REPO,
                      rank_args=[['--seed', '0'], ['--seed', '1']])
    for proc in procs:
        _one_line(proc, 'rank 1 was started with other arguments than rank '
                  '0 (seed: 0 vs 1)')
    assert not (tmp_path / 'w' / RESULTS_FILE).exists()


def test_more_ranks_than_images(demo_checkpoint, tmp_path):
    procs = run_ranks(
        TOOL, *_args(demo_checkpoint, tmp_path / 'w', '--cfg-options',
                     'test_dataloader.dataset.indices=[0]'),
        world_size=2, cwd=REPO)
    for proc in procs:
        _one_line(proc, '2 ranks for 1 test image(s)')
    assert not (tmp_path / 'w' / RESULTS_FILE).exists()


def test_a_shard_without_cells(demo_checkpoint, tmp_path):
    procs = run_ranks(
        TOOL, *_args(demo_checkpoint, tmp_path / 'w', '--shard', '4/4'),
        world_size=2, cwd=REPO)
    for proc in procs:
        _one_line(proc, '--shard 4/4 has no cells: the grid has 3')
    assert not (tmp_path / 'w').exists()


def test_a_port_in_use(demo_checkpoint, tmp_path):
    with socket.socket() as busy:
        busy.bind(('127.0.0.1', 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = run_tool(TOOL, *_args(demo_checkpoint, tmp_path / 'w'),
                        '--launcher', 'pytorch', cwd=REPO,
                        env=rank_env(0, 2, port))
    _one_line(proc, f'port {port} on 127.0.0.1 is already in use')
    assert not (tmp_path / 'w').exists()
