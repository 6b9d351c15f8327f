# Copyright (c) robustdet contributors. All rights reserved.
"""Start the process group of a launched job: the one place where every
tool joins torchrun's, slurm's or MPI's processes.

mmengine's ``init_dist`` sets the CUDA device of every rank before it
starts the group, which fails with the CPU build of torch. robustdet's
tools call :func:`init_distributed` before they build a Runner (which then
finds the group started and uses it):

* the rank, world size, local rank and rendezvous address are read from
  the launcher's environment (torchrun's ``RANK``/``WORLD_SIZE``/
  ``LOCAL_RANK``/``MASTER_ADDR``/``MASTER_PORT``, slurm's ``SLURM_*``,
  Open MPI's ``OMPI_COMM_WORLD_*``); a missing variable is a one-line
  error saying how to launch;
* the backend is the config's ``env_cfg.dist_cfg.backend``, except that
  nccl (which every mmdet config inherits from ``default_runtime.py``)
  becomes gloo on a machine without CUDA; a backend given on the command
  line (``--cfg-options env_cfg.dist_cfg.backend=...``) is used as it is,
  and nccl without CUDA is then refused;
* on GPUs each rank uses its own device (``LOCAL_RANK``), as mmengine
  does; on a CPU no CUDA call is made;
* collective operations give up after ``timeout`` seconds, so that a rank
  that died does not hang the others for mmengine's default half hour;
* every rank beats a heartbeat into the rendezvous store and watches the
  others' (:mod:`robustdet.utils.watchdog`), so that a rank that stops
  stops the others, and a failed collective operation names it.

:func:`check_same_job` then compares what each rank was asked to do.
"""
import datetime
import hashlib
import inspect
import json
import os
import subprocess
from typing import Any, Dict, List, Optional, Tuple

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from .errors import RobustDetError
from .evaluator_cfg import metric_cfgs
from .watchdog import DEFAULT_STALL_TIMEOUT, HEARTBEAT_INTERVAL, start_watchdog

LAUNCHERS = ('none', 'pytorch', 'slurm', 'mpi')
# Seconds a collective operation waits for the other ranks.
DEFAULT_DIST_TIMEOUT = 300
DEFAULT_PORT = '29500'

_HOW = {
    'pytorch': 'start it with torchrun (e.g. torchrun --nproc_per_node N '
    'TOOL ... --launcher pytorch) or tools/dist_*.sh',
    'slurm': 'start it with srun (or tools/slurm_*.sh)',
    'mpi': 'start it with mpirun (Open MPI) and set MASTER_ADDR',
}


def _int_env(environ: Dict[str, str], name: str, launcher: str) -> int:
    value = environ.get(name)
    if value is None:
        raise RobustDetError(
            f'--launcher {launcher} needs the environment variable {name}, '
            f'which is not set: {_HOW[launcher]}')
    try:
        return int(value)
    except ValueError:
        raise RobustDetError(
            f'--launcher {launcher}: {name}={value!r} is not an integer'
        ) from None


def launcher_env(launcher: str,
                 environ: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Where this process stands in the launched job.

    Args:
        launcher (str): ``'pytorch'``, ``'slurm'`` or ``'mpi'``.
        environ (dict, optional): The environment; ``os.environ`` if None.

    Returns:
        dict: ``rank``, ``world_size``, ``local_rank``, ``master_addr``
        and ``master_port`` (str).
    """
    environ = os.environ if environ is None else environ
    if launcher == 'pytorch':
        names = ('RANK', 'WORLD_SIZE', 'LOCAL_RANK')
        for name in (*names, 'MASTER_ADDR', 'MASTER_PORT'):
            if environ.get(name) is None:
                raise RobustDetError(
                    f'--launcher pytorch needs the environment variable '
                    f'{name}, which is not set: {_HOW[launcher]}')
        addr, port = environ['MASTER_ADDR'], environ['MASTER_PORT']
    elif launcher == 'slurm':
        names = ('SLURM_PROCID', 'SLURM_NTASKS', 'SLURM_LOCALID')
        addr = environ.get('MASTER_ADDR')
        if addr is None:
            nodes = environ.get('SLURM_NODELIST')
            if nodes is None:
                raise RobustDetError(
                    '--launcher slurm needs SLURM_NODELIST (or '
                    f'MASTER_ADDR), which is not set: {_HOW[launcher]}')
            addr = subprocess.getoutput(
                f'scontrol show hostname {nodes} | head -n1').strip()
        port = environ.get('MASTER_PORT', DEFAULT_PORT)
    elif launcher == 'mpi':
        names = ('OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_SIZE',
                 'OMPI_COMM_WORLD_LOCAL_RANK')
        addr = environ.get('MASTER_ADDR')
        if addr is None:
            raise RobustDetError(
                '--launcher mpi needs the environment variable MASTER_ADDR, '
                f'which is not set: {_HOW[launcher]}')
        port = environ.get('MASTER_PORT', DEFAULT_PORT)
    else:
        raise RobustDetError(f'unknown launcher {launcher!r}; valid: '
                             f'{", ".join(LAUNCHERS)}')
    rank, world_size, local_rank = (_int_env(environ, n, launcher)
                                    for n in names)
    if not 0 <= rank < world_size:
        raise RobustDetError(
            f'--launcher {launcher}: rank {rank} is not in [0, {world_size})')
    return dict(rank=rank, world_size=world_size, local_rank=local_rank,
                master_addr=addr, master_port=str(port))


def default_backend() -> str:
    """nccl where CUDA is available, gloo otherwise."""
    return 'nccl' if torch.cuda.is_available() else 'gloo'


def choose_backend(configured: Optional[str],
                   asked: Optional[str] = None) -> str:
    """The backend of the process group.

    Args:
        configured (str, optional): The config's
            ``env_cfg.dist_cfg.backend``.
        asked (str, optional): A backend the user gave explicitly (on the
            command line); used as it is.

    Returns:
        str: ``asked``; else ``configured``, but gloo for nccl without
        CUDA; else :func:`default_backend`.
    """
    if asked:
        backend = asked
    elif configured == 'nccl' or not configured:
        backend = default_backend()
    else:
        backend = configured
    if backend == 'nccl' and not torch.cuda.is_available():
        raise RobustDetError(
            'the nccl backend needs CUDA, which this machine does not have: '
            'use gloo (--cfg-options env_cfg.dist_cfg.backend=gloo)')
    return backend


def check_not_launched(environ: Optional[Dict[str, str]] = None) -> None:
    """Refuse ``--launcher none`` in one of several processes that torchrun,
    srun or mpirun started: each would run the whole job on its own and
    all of them would write into one work dir. (srun is told by its step's
    task count: a batch script's own process has ``SLURM_NTASKS`` and
    ``SLURM_PROCID`` too, and may run one process.)

    Args:
        environ (dict, optional): The environment; ``os.environ`` if None.

    Raises:
        RobustDetError: One line naming the launcher and the flag.
    """
    environ = os.environ if environ is None else environ
    for launcher, size, markers in (
            ('pytorch', 'WORLD_SIZE', ('TORCHELASTIC_RUN_ID', 'LOCAL_RANK')),
            ('slurm', 'SLURM_STEP_NUM_TASKS', ('SLURM_PROCID', )),
            ('mpi', 'OMPI_COMM_WORLD_SIZE', ('OMPI_COMM_WORLD_RANK', ))):
        try:
            count = int(environ.get(size, '1'))
        except ValueError:
            continue
        if count > 1 and any(m in environ for m in markers):
            starter = dict(pytorch='torchrun', slurm='srun',
                           mpi='mpirun')[launcher]
            raise RobustDetError(
                f'this process is one of {count} that {starter} started '
                f'({size}={count}), but --launcher is none: each would run '
                f'the whole job into the same work dir; pass --launcher '
                f'{launcher}')


def init_distributed(launcher: str,
                     dist_cfg: Optional[Dict[str, Any]] = None,
                     timeout: Optional[float] = None,
                     backend: Optional[str] = None,
                     stall_timeout: Optional[float] = None
                     ) -> Tuple[int, int]:
    """Join the launched job's process group (once).

    Args:
        launcher (str): One of :data:`LAUNCHERS`; ``'none'`` starts
            nothing.
        dist_cfg (dict, optional): The config's ``env_cfg.dist_cfg``:
            ``backend`` (see :func:`choose_backend`) and other arguments of
            ``init_process_group``.
        timeout (float, optional): Seconds a collective operation waits
            for the others (default ``dist_cfg['timeout']``, else
            :data:`DEFAULT_DIST_TIMEOUT`).
        backend (str, optional): A backend the user asked for explicitly.
        stall_timeout (float, optional): Seconds another rank may go
            without a heartbeat before this one stops (default
            :data:`~.watchdog.DEFAULT_STALL_TIMEOUT`; see
            :class:`~.watchdog.Heartbeat`).

    Returns:
        tuple[int, int]: This process's rank and the world size.
    """
    if launcher == 'none':
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        check_not_launched()
        return 0, 1
    if dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    env = launcher_env(launcher)
    kwargs = dict(dist_cfg or {})
    backend = choose_backend(kwargs.pop('backend', None), backend)
    configured = kwargs.pop('timeout', None)
    source = '--dist-timeout'
    if timeout is None and configured is not None:
        timeout, source = configured, 'env_cfg.dist_cfg.timeout'
    elif timeout is None:
        timeout = DEFAULT_DIST_TIMEOUT
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds()
    if timeout <= 0:
        raise RobustDetError(f'{source} must be > 0, got {timeout}')
    stall_timeout = (DEFAULT_STALL_TIMEOUT
                     if stall_timeout is None else stall_timeout)
    if stall_timeout < 2 * HEARTBEAT_INTERVAL:
        raise RobustDetError(
            f'--dist-stall-timeout must be >= {2 * HEARTBEAT_INTERVAL:g} s '
            f'(two heartbeats), got {stall_timeout:g}')
    if torch.cuda.is_available():
        torch.cuda.set_device(env['local_rank'])
    # torchrun and slurm set these already; mmengine and torch read them.
    os.environ.update(
        RANK=str(env['rank']), WORLD_SIZE=str(env['world_size']),
        LOCAL_RANK=str(env['local_rank']), MASTER_ADDR=env['master_addr'],
        MASTER_PORT=env['master_port'])
    try:
        dist.init_process_group(
            backend=backend, rank=env['rank'], world_size=env['world_size'],
            timeout=datetime.timedelta(seconds=timeout), **kwargs)
    except RuntimeError as e:  # DistNetworkError and DistStoreError too
        text = str(e)
        if 'address already in use' in text.lower():
            raise RobustDetError(
                f'port {env["master_port"]} on {env["master_addr"]} is '
                'already in use: choose another MASTER_PORT (PORT=... for '
                'tools/dist_*.sh)') from None
        raise RobustDetError(
            f'could not join the process group at {env["master_addr"]}:'
            f'{env["master_port"]} as rank {env["rank"]} of '
            f'{env["world_size"]}: {text.splitlines()[0]}') from None
    store = dist.distributed_c10d._get_default_store()
    start_watchdog(store, env['rank'], env['world_size'], timeout,
                   stall_timeout)
    return env['rank'], env['world_size']


def prepare_runner_cfg(cfg: Any, launcher: str) -> None:
    """Set a config's ``launcher`` for the Runner a tool builds, and for a
    launched job:

    * the evaluators collect the ranks' results through the process group
      (``collect_device='gpu'`` in mmengine's words; with gloo it runs on
      the CPU) unless the config chooses: mmengine's default (``'cpu'``)
      has every rank write its part to ``.dist_test/`` in the working
      directory, which must then be shared by all nodes;
    * mmengine's ``LoggerHook`` becomes ``RankZeroLoggerHook``
      (:mod:`robustdet.engine`): mmengine's dumps the test metrics into
      the work dir on every rank;
    * without CUDA, a model wrapper without devices: mmengine gives
      ``MMDistributedDataParallel`` ``device_ids=[LOCAL_RANK]``, which
      torch refuses for a model on the CPU.

    Args:
        cfg (mmengine.Config): The config (modified in place).
        launcher (str): The launcher.
    """
    cfg.launcher = launcher
    if launcher == 'none':
        return
    for key in ('test_evaluator', 'val_evaluator'):
        for metric in metric_cfgs(cfg.get(key)):
            if isinstance(metric, dict):
                metric.setdefault('collect_device', 'gpu')
    logger = (cfg.get('default_hooks') or {}).get('logger')
    if isinstance(logger, dict) and logger.get('type') in (
            'LoggerHook', 'mmengine.LoggerHook'):
        logger['type'] = 'RankZeroLoggerHook'
    if torch.cuda.is_available():
        return
    wrapper = dict(cfg.get('model_wrapper_cfg') or {})
    wrapper.setdefault('type', 'MMDistributedDataParallel')
    if wrapper['type'] != 'MMDistributedDataParallel':
        return
    wrapper.setdefault('device_ids', None)
    if 'broadcast_buffers' not in wrapper:
        # mmengine's choice (buffers are not synchronised in the forward
        # pass), in the words of the torch at hand.
        params = inspect.signature(DistributedDataParallel).parameters
        wrapper.setdefault('forward_sync_buffers' if 'forward_sync_buffers'
                           in params else 'broadcast_buffers', False)
    wrapper.setdefault('find_unused_parameters',
                       cfg.get('find_unused_parameters', False))
    cfg.model_wrapper_cfg = wrapper


def rank_and_world() -> Tuple[int, int]:
    """This process's rank and the world size (0 and 1 without a process
    group)."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def gather_objects(obj: Any) -> List[Any]:
    """Every rank's ``obj``, in rank order, on every rank (``[obj]`` in a
    single process)."""
    rank, world_size = rank_and_world()
    if world_size == 1:
        return [obj]
    gathered: List[Any] = [None] * world_size
    dist.all_gather_object(gathered, obj)
    return gathered


def barrier() -> None:
    """Wait for every rank (nothing in a single process)."""
    if rank_and_world()[1] > 1:
        dist.barrier()


def job_digest(job: Dict[str, Any]) -> str:
    """A sha256 of what a job was asked to do (JSON, sorted keys)."""
    text = json.dumps(job, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def check_same_job(job: Dict[str, Any]) -> None:
    """Refuse a job whose ranks were started with different arguments.

    Every rank's :func:`job_digest` is gathered; a rank that differs from
    rank 0 is a user error naming it and the first differing entries.
    Does nothing in a single process.

    Args:
        job (dict): What this rank was asked to do (arguments, file
            hashes); JSON-serialisable.
    """
    gathered = gather_objects(job)
    first = gathered[0]
    for rank, other in enumerate(gathered):
        if job_digest(other) != job_digest(first):
            keys = sorted(k for k in set(first) | set(other)
                          if first.get(k) != other.get(k))
            shown = ', '.join(
                f'{k}: {first.get(k)!r} vs {other.get(k)!r}'
                for k in keys[:3])
            raise RobustDetError(
                f'rank {rank} was started with other arguments than rank 0 '
                f'({shown}); start every rank with the same command')
