# Copyright (c) robustdet contributors. All rights reserved.
"""robustdet.utils.dist and robustdet.utils.watchdog without a process
group: where a rank stands under each launcher, the backend, the runner
config of a launched job, bad launches and the watchdog's record of
stopped ranks. Started jobs: tests/test_tools/test_test_robust_dist.py."""
import signal
import threading
import time

import pytest
import torch
import torch.distributed as dist
from mmengine.config import Config

from robustdet.utils import RobustDetError
from robustdet.utils import watchdog as rd_watchdog
from robustdet.utils.dist import (check_not_launched, check_same_job,
                                  choose_backend, init_distributed, job_digest,
                                  launcher_env, prepare_runner_cfg)
from robustdet.utils.watchdog import (DONE_KEY, HEARTBEAT_INTERVAL,
                                      HEARTBEAT_MISSED, LEAVING_KEY, Heartbeat,
                                      found_stopped, stopped_ranks,
                                      stopped_words, tell_stopped)
from tests.conftest import FRCNN_DEMO, REPO
from tests.tool_process import rank_env, run_tool

TORCHRUN = dict(RANK='1', WORLD_SIZE='2', LOCAL_RANK='1',
                MASTER_ADDR='10.0.0.1', MASTER_PORT='29600')


def test_torchrun_environment():
    assert launcher_env('pytorch', TORCHRUN) == dict(
        rank=1, world_size=2, local_rank=1, master_addr='10.0.0.1',
        master_port='29600')
    for name in TORCHRUN:
        env = {k: v for k, v in TORCHRUN.items() if k != name}
        with pytest.raises(RobustDetError,
                           match=f'needs the environment variable {name},'
                           ' which is not set: start it with torchrun'):
            launcher_env('pytorch', env)
    with pytest.raises(RobustDetError, match=r'rank 2 is not in \[0, 2\)'):
        launcher_env('pytorch', dict(TORCHRUN, RANK='2'))
    with pytest.raises(RobustDetError, match="RANK='x' is not an integer"):
        launcher_env('pytorch', dict(TORCHRUN, RANK='x'))


def test_launched_without_launcher_is_refused(tmp_path):
    """torchrun, srun or mpirun without --launcher would start N whole runs
    into one work dir: each process refuses in one line."""
    for env, words in (
            (dict(TORCHRUN, TORCHELASTIC_RUN_ID='x'),
             'one of 2 that torchrun'),
            (dict(WORLD_SIZE='4', LOCAL_RANK='0'), '--launcher pytorch'),
            (dict(OMPI_COMM_WORLD_SIZE='2', OMPI_COMM_WORLD_RANK='1'),
             '--launcher mpi'),
            (dict(SLURM_STEP_NUM_TASKS='8', SLURM_NTASKS='8',
                  SLURM_PROCID='3'), 'one of 8 that srun started '
             r'\(SLURM_STEP_NUM_TASKS=8\).*--launcher slurm')):
        with pytest.raises(RobustDetError, match=words):
            check_not_launched(env)
    # A batch script's own process (no srun step), or srun -n 1: one run.
    for env in ({}, dict(WORLD_SIZE='1', LOCAL_RANK='0'),
                dict(WORLD_SIZE='2'), dict(WORLD_SIZE='x', LOCAL_RANK='0'),
                dict(SLURM_NTASKS='8', SLURM_PROCID='0'),
                dict(SLURM_STEP_NUM_TASKS='1', SLURM_PROCID='0')):
        check_not_launched(env)
    # A real tool, started as torchrun starts rank 1 of 2.
    work = tmp_path / 'w'
    proc = run_tool('tools/train.py', FRCNN_DEMO, '--work-dir', work,
                    cwd=REPO, env=rank_env(1, 2, 29999))
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        'error: this process is one of 2 that torchrun started '
        '(WORLD_SIZE=2), but --launcher is none: each would run the whole '
        'job into the same work dir; pass --launcher pytorch']
    assert not work.exists()


def test_slurm_and_mpi_environments():
    slurm = dict(SLURM_PROCID='3', SLURM_NTASKS='8', SLURM_LOCALID='3',
                 MASTER_ADDR='node1')
    assert launcher_env('slurm', slurm) == dict(
        rank=3, world_size=8, local_rank=3, master_addr='node1',
        master_port='29500')
    with pytest.raises(RobustDetError, match='SLURM_NODELIST'):
        launcher_env('slurm', {k: v for k, v in slurm.items()
                               if k != 'MASTER_ADDR'})
    mpi = dict(OMPI_COMM_WORLD_RANK='0', OMPI_COMM_WORLD_SIZE='4',
               OMPI_COMM_WORLD_LOCAL_RANK='0', MASTER_ADDR='h',
               MASTER_PORT='1234')
    assert launcher_env('mpi', mpi)['master_port'] == '1234'
    with pytest.raises(RobustDetError, match='mpi needs .* MASTER_ADDR'):
        launcher_env('mpi', {k: v for k, v in mpi.items()
                             if k != 'MASTER_ADDR'})
    with pytest.raises(RobustDetError, match="unknown launcher 'ray'"):
        launcher_env('ray', {})


def test_backend():
    assert choose_backend('gloo') == 'gloo'
    assert choose_backend('nccl', asked='gloo') == 'gloo'
    if torch.cuda.is_available():
        assert choose_backend('nccl') == choose_backend(None) == 'nccl'
        assert choose_backend('gloo', asked='nccl') == 'nccl'
    else:
        # mmdet's default_runtime asks for nccl: gloo without CUDA, unless
        # the user asks for nccl
        assert choose_backend('nccl') == choose_backend(None) == 'gloo'
        with pytest.raises(RobustDetError, match='nccl backend needs CUDA'):
            choose_backend('gloo', asked='nccl')


def test_timeout_must_be_positive(monkeypatch):
    for key, value in TORCHRUN.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(RobustDetError, match='--dist-timeout must be > 0'):
        init_distributed('pytorch', timeout=0)
    # the config's, when --dist-timeout is not given
    with pytest.raises(RobustDetError,
                       match='env_cfg.dist_cfg.timeout must be > 0, got 0'):
        init_distributed('pytorch', dict(timeout=0))
    with pytest.raises(RobustDetError, match='--dist-timeout must be > 0'):
        init_distributed('pytorch', dict(timeout=60), timeout=-1)


def test_runner_config_of_a_launched_job():
    cfg = Config(dict(
        test_evaluator=dict(type='CocoMetric'),
        val_evaluator=[dict(type='CocoMetric', collect_device='cpu')]))
    prepare_runner_cfg(cfg, 'none')
    assert cfg.launcher == 'none' and 'model_wrapper_cfg' not in cfg
    assert 'collect_device' not in cfg.test_evaluator
    prepare_runner_cfg(cfg, 'pytorch')
    assert cfg.launcher == 'pytorch'
    # gathered through the process group unless the config chooses
    assert cfg.test_evaluator.collect_device == 'gpu'
    assert cfg.val_evaluator[0].collect_device == 'cpu'
    if not torch.cuda.is_available():
        wrapper = dict(cfg.model_wrapper_cfg)
        # buffers not synchronised in the forward pass, as mmengine does
        sync = wrapper.pop('forward_sync_buffers', None)
        if sync is None:
            sync = wrapper.pop('broadcast_buffers')
        assert sync is False
        assert wrapper == dict(type='MMDistributedDataParallel',
                               device_ids=None, find_unused_parameters=False)


def test_job_digest_and_one_process():
    a = dict(seed=0, cells=[('fog', 1)])
    assert job_digest(a) == job_digest(dict(reversed(list(a.items()))))
    assert job_digest(a) != job_digest(dict(a, seed=1))
    check_same_job(a)  # one process: nothing to compare


def test_watchdog_names_silent_ranks_not_finished_ones():
    """The heartbeat watchdog: a rank whose counter has not moved for the
    stall timeout is named, unless it said it finished; a beat clears
    it."""
    store = dist.HashStore()
    watcher = Heartbeat(store, 0, 3, stall_timeout=2)
    other = Heartbeat(store, 1, 3, stall_timeout=2)
    Heartbeat(store, 2, 3, stall_timeout=2)
    fired = []
    watcher.fire = fired.append
    watcher.watch()
    assert fired == [] and set(watcher.seen) == {1, 2}

    def age():
        for rank, (count, _) in watcher.seen.items():
            watcher.seen[rank] = (count, time.monotonic() - 3)

    age()
    watcher.watch()
    assert fired == [[1, 2]]
    store.add(DONE_KEY.format(2), 1)
    other.beat()
    fired.clear()
    age()
    watcher.watch()  # rank 1 beat since, rank 2 finished
    assert fired == []
    age()
    watcher.watch()
    assert fired == [[1]]
    for beat in (watcher, other):
        beat.stop()


def test_every_rank_names_what_the_first_found(monkeypatch):
    """The first rank to find others stopped writes them into the store:
    the others' watchdogs fire on that, a failed collective reads it
    without watching the heartbeats again, and the first writer wins."""
    store = dist.HashStore()
    watcher = Heartbeat(store, 2, 4, stall_timeout=5)
    fired = []
    watcher.fire = lambda stopped, found=None: fired.append((stopped, found))
    watcher.watch()
    assert fired == [] and found_stopped(store) is None
    first = dict(ranks=[1], how='no heartbeat for 5 s, --dist-stall-timeout')
    tell_stopped(store, 0, first)
    tell_stopped(store, 3, dict(ranks=[0], how=''))
    assert found_stopped(store) == first
    assert store.add(LEAVING_KEY.format(0), 0) == 1
    watcher.watch()
    assert fired == [([1], first)]
    assert stopped_words(first) == ('rank 1 stopped (no heartbeat for 5 s, '
                                    '--dist-stall-timeout)')
    assert stopped_words(dict(ranks=[1, 2], how='')) == 'ranks 1, 2 stopped'
    assert stopped_words(first, 1) == ('the other ranks found this one '
                                       'stopped (no heartbeat for 5 s, '
                                       '--dist-stall-timeout)')
    assert stopped_words(dict(ranks=[1, 3], how=''), 1) == (
        'the other ranks found this one stopped with rank 3')
    assert stopped_words(None).startswith('the rendezvous store is gone')
    monkeypatch.setattr(rd_watchdog, '_JOB', dict(store=store, rank=2,
                                                  world_size=4))
    assert store.add(LEAVING_KEY.format(2), 0) == 0
    start = time.monotonic()
    assert stopped_ranks() == first
    assert time.monotonic() - start < HEARTBEAT_MISSED * HEARTBEAT_INTERVAL
    assert store.add(LEAVING_KEY.format(2), 0) == 1  # and it leaves
    watcher.stop()


def test_rank_0_leaves_after_the_others(monkeypatch):
    """Rank 0 holds the store: on a failure it waits (up to two
    heartbeats) for each other rank to leave, finish or be found stopped,
    so that none sees only the store go."""
    store = dist.HashStore()
    monkeypatch.setattr(rd_watchdog, '_JOB', dict(store=store, rank=0,
                                                  world_size=4))
    tell_stopped(store, 0, dict(ranks=[1], how=''))
    store.add(DONE_KEY.format(3), 1)
    start = time.monotonic()
    threading.Timer(0.5, store.add, (LEAVING_KEY.format(2), 1)).start()
    rd_watchdog.leave()
    took = time.monotonic() - start
    assert 0.5 <= took < 1.5, took
    store.delete_key(LEAVING_KEY.format(2))
    start = time.monotonic()
    rd_watchdog.leave()  # rank 2 never leaves: two heartbeats at most
    took = time.monotonic() - start
    assert 2 * HEARTBEAT_INTERVAL <= took < 2 * HEARTBEAT_INTERVAL + 0.5
    # The other ranks do not wait, nor touch the store (rank 0 may be
    # gone): they said they leave when they read or wrote what was found.
    untouchable = _Untouchable()
    monkeypatch.setattr(rd_watchdog, '_JOB', dict(store=untouchable, rank=2,
                                                  world_size=4))
    start = time.monotonic()
    rd_watchdog.leave()
    assert time.monotonic() - start < 0.5
    assert untouchable.touched == []


class _Untouchable:
    """A store that records every use."""

    def __init__(self):
        self.touched = []

    def __getattr__(self, name):
        self.touched.append(name)
        raise RuntimeError(f'the store was used: {name}')


def test_the_watchdog_fires_once_and_not_after_leaving(monkeypatch):
    """A rank that finds another stopped writes it for the others (or
    adopts what was written first), interrupts its main thread once and
    arms its timer; leaving stops and disarms it, and a watch that finds
    a stopped rank after that fires nothing."""
    store = dist.HashStore()
    beat = Heartbeat(store, 2, 3, stall_timeout=60)
    monkeypatch.setattr(rd_watchdog, '_JOB', dict(store=store, rank=2,
                                                  world_size=3,
                                                  heartbeat=beat))
    # As a terminal leaves it (a background job of a script ignores it).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            firing = threading.Thread(target=beat.fire, args=([1], ))
            firing.start()  # as the heartbeat thread does
            firing.join()
            time.sleep(5)  # the interrupt comes at the next Python step
    finally:
        signal.signal(signal.SIGINT, previous)
    mine = dict(ranks=[1], how='no heartbeat for 60 s, --dist-stall-timeout')
    assert found_stopped(store) == beat.found == mine
    assert store.add(LEAVING_KEY.format(2), 0) == 1
    assert rd_watchdog.watchdog_fired() == (
        'rank 1 stopped (no heartbeat for 60 s, --dist-stall-timeout); '
        'rank 2 stops too (what is finished is kept: rerun to resume)')
    assert beat.timer.is_alive()
    rd_watchdog.leave()
    assert beat.timer.finished.is_set() and not beat.is_alive()
    timer, hits = beat.timer, []
    previous = signal.signal(signal.SIGINT, lambda *_: hits.append(1))
    try:
        beat.fire([0])  # stopped: nothing happens
        time.sleep(0.1)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert hits == [] and beat.timer is timer and beat.found == mine
    # A later finder adopts the first record.
    other = Heartbeat(store, 0, 3, stall_timeout=5)
    assert rd_watchdog.tell_stopped(store, 0, dict(ranks=[2], how='')) == mine
    other.stop()
