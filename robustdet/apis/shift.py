# Copyright (c) robustdet contributors. All rights reserved.
"""Natural distribution shifts: evaluate a detector on every split of a
shift benchmark and relate each split to the reference one (Michaelis et
al. 2019, section 3.5, tables 4 and 5).

- ``foggy-cityscapes``: Cityscapes val clean (reference) and Foggy
  Cityscapes val at β = 0.005, 0.01, 0.02 (``FoggyCityscapesDataset``);
- ``bdd100k-weather``: BDD100k val clear (reference), rainy, snowy;
- ``bdd100k-daynight``: BDD100k val daytime (reference), night
  (``BDD100kDataset`` with the file lists of ``make_bdd100k_splits.py``).

Results (``shift.json``, written atomically after every split; a rerun
resumes) hold each split's metrics and, per metric, P (the reference
split's value), the value per split and rPC per split = value / P.
"""
import copy
import numbers
import os.path as osp
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mmengine.dist import is_main_process
from mmengine.registry import LOOPS

from ..utils.checkpoint import load_checkpoint_file
from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, sha256_file
from ..version import __version__
from .job_configs import unwrap_corrupted
from .results import config_fingerprint, read_results_file
from .testing import build_test_runner

FORMAT = 'robustdet-shift/1'
RESULTS_FILE = 'shift.json'
BETAS = (0.005, 0.01, 0.02)


@dataclass(frozen=True)
class ShiftBenchmark:
    """A set of splits and how each is made from the config's test set.

    Args:
        name (str): Benchmark name (``--benchmark``).
        dataset_types (tuple[str]): Test dataset types it applies to.
        reference (str): The split P is measured on.
        splits (tuple): ``(split name, dataset overrides)`` pairs, the
            reference first; ``{split_dir}`` in a string value is the
            ``--split-dir``.
        table (str): The paper's table with this layout.
    """
    name: str
    dataset_types: Tuple[str, ...]
    reference: str
    splits: Tuple[Tuple[str, Dict[str, Any]], ...]
    table: str

    @property
    def split_names(self) -> List[str]:
        return [name for name, _ in self.splits]


def _bdd(name: str, reference: str, splits: Sequence[str],
         table: str) -> ShiftBenchmark:
    return ShiftBenchmark(
        name, ('BDD100kDataset', ), reference,
        tuple((s,
               dict(
                   file_list=f'{{split_dir}}/val_{s}.txt',
                   weather=None,
                   timeofday=None,
                   scene=None)) for s in splits), table)


BENCHMARKS: Dict[str, ShiftBenchmark] = {
    b.name: b
    for b in (
        ShiftBenchmark(
            'foggy-cityscapes',
            ('FoggyCityscapesDataset', 'CityscapesDataset'), 'clean',
            (('clean', dict(type='FoggyCityscapesDataset', beta=None)), ) +
            tuple((f'beta={beta}',
                   dict(type='FoggyCityscapesDataset', beta=beta))
                  for beta in BETAS), 'table 4'),
        _bdd('bdd100k-weather', 'clear', ('clear', 'rainy', 'snowy'),
             'table 5 (weather)'),
        _bdd('bdd100k-daynight', 'daytime', ('daytime', 'night'),
             'table 5 (time of day)'),
    )
}


def get_benchmark(name: str) -> ShiftBenchmark:
    if name not in BENCHMARKS:
        raise RobustDetError(f'unknown shift benchmark {name!r}; choose '
                             f'from {", ".join(BENCHMARKS)}')
    return BENCHMARKS[name]


def _leaf(dataset: Dict[str, Any]) -> Dict[str, Any]:
    """The innermost dataset config (through ``dataset=`` wrappers)."""
    while isinstance(dataset.get('dataset'), dict):
        dataset = dataset['dataset']
    return dataset


def split_dataloader_cfg(dl_cfg: Dict[str, Any], bench: ShiftBenchmark,
                         split: str, split_dir: str) -> Dict[str, Any]:
    """The test dataloader config of one split of ``bench``.

    Args:
        dl_cfg (dict): The config's test dataloader.
        bench (ShiftBenchmark): The benchmark.
        split (str): One of its splits.
        split_dir (str): Directory of the BDD100k file lists (relative to
            the working directory, not to the dataset's ``data_root``).

    Returns:
        dict: A copy with the test dataset set to the split.
    """
    dl_cfg = copy.deepcopy(dict(dl_cfg))
    leaf = _leaf(dl_cfg['dataset'])
    if leaf.get('type') not in bench.dataset_types:
        raise RobustDetError(
            f'--benchmark {bench.name} needs a test dataset of type '
            f'{" or ".join(bench.dataset_types)}, the config has '
            f'{leaf.get("type")!r}')
    for key, value in dict(bench.splits)[split].items():
        if isinstance(value, str):
            value = value.format(split_dir=osp.abspath(split_dir))
        leaf[key] = value
    return dl_cfg


def _split_metrics(metrics: Dict[str, Any]) -> Dict[str, float]:
    return {
        k: float(v)
        for k, v in metrics.items()
        if isinstance(v, numbers.Real) and not isinstance(v, bool)
    }


def shift_summary(bench: ShiftBenchmark,
                  splits: Dict[str, Dict[str, float]]) -> Dict[str, Any]:
    """P, the value per split and rPC per split, for every metric.

    Args:
        bench (ShiftBenchmark): The benchmark.
        splits (dict): ``{split: {metric: value}}`` (those evaluated).

    Returns:
        dict: ``{metric: {'P': ..., 'splits': {split: value},
        'rPC': {split: value / P}}}``; values < 0 (mmdet's "not
        applicable") and splits not evaluated are None.
    """
    ref = splits.get(bench.reference) or {}
    metrics = list(ref) or sorted({k for m in splits.values() for k in m})
    summary = {}
    for metric in metrics:
        p = ref.get(metric)
        p = p if p is not None and p >= 0 else None
        values, rpc = {}, {}
        for split in bench.split_names:
            v = (splits.get(split) or {}).get(metric)
            v = v if v is not None and v >= 0 else None
            values[split] = v
            rpc[split] = v / p if v is not None and p else None
        summary[metric] = dict(P=p, splits=values, rPC=rpc)
    return summary


@dataclass
class ShiftJob:
    """What to evaluate.

    Args:
        config (str): Config path (recorded).
        checkpoint (str): Checkpoint path.
        benchmark (str): A key of :data:`BENCHMARKS`.
        work_dir (str): Results directory.
        split_dir (str): Directory of the BDD100k file lists.
        splits (list[str], optional): A subset of the splits.
        launcher (str): mmengine launcher.
        unsafe_load (bool): Unpickle the checkpoint fully.
        overwrite (bool): Discard results of another run.
    """
    config: str
    checkpoint: str
    benchmark: str
    work_dir: str
    split_dir: str = 'data/bdd100k/splits'
    splits: Optional[Sequence[str]] = None
    launcher: str = 'none'
    unsafe_load: bool = False
    overwrite: bool = False

    def __post_init__(self) -> None:
        self.bench = get_benchmark(self.benchmark)
        names = self.bench.split_names
        chosen = list(self.splits or names)
        bad = [s for s in chosen if s not in names]
        if bad:
            raise RobustDetError(
                f'unknown split {bad[0]!r} of {self.benchmark}; choose from '
                f'{", ".join(names)}')
        self.splits = [s for s in names if s in chosen]

    @property
    def results_file(self) -> str:
        return osp.join(self.work_dir, RESULTS_FILE)


def _identity(job: ShiftJob, cfg: Any) -> Dict[str, Any]:
    return dict(
        benchmark=job.benchmark,
        config_sha256=config_fingerprint(cfg),
        checkpoint_sha256=sha256_file(job.checkpoint),
        split_dir=osp.abspath(job.split_dir)
        if job.bench.name.startswith('bdd') else None)


def load_shift_results(path: str) -> Dict[str, Any]:
    """Read a ``shift.json``, with a one-line error if it is not one."""
    return read_results_file(path, FORMAT, 'shift results')


def prepare_shift_results(job: ShiftJob, cfg: Any) -> Dict[str, Any]:
    """The results to continue: those on disk if they are this run's,
    else a new record (another run's are refused unless overwrite)."""
    identity = _identity(job, cfg)
    if osp.exists(job.results_file) and not job.overwrite:
        old = load_shift_results(job.results_file)
        diffs = [k for k in identity if old.get(k) != identity[k]]
        if diffs:
            raise RobustDetError(
                f'{job.results_file} holds results of another run '
                f'({diffs[0]} differs); use another --work-dir or '
                '--overwrite')
        return old
    return dict(
        format=FORMAT,
        robustdet_version=__version__,
        **identity,
        config=job.config,
        checkpoint=job.checkpoint,
        reference=job.bench.reference,
        table=job.bench.table,
        splits={},
        seconds={},
        summary={})


def _evaluate_split(runner: Any, job: ShiftJob, cfg: Any,
                    test_cfg: Dict[str, Any], split: str,
                    results: Dict[str, Any]) -> None:
    """Evaluate one split with its own evaluator and record it."""
    loop = LOOPS.build(
        test_cfg,
        default_args=dict(
            runner=runner,
            dataloader=split_dataloader_cfg(cfg.test_dataloader, job.bench,
                                            split, job.split_dir),
            evaluator=runner.build_evaluator(cfg.test_evaluator)))
    start = time.perf_counter()
    metrics = _split_metrics(loop.run())
    seconds = time.perf_counter() - start
    runner.logger.info(
        f'[shift] {split} ({len(loop.dataloader.dataset)} images) done in '
        f'{seconds:.1f}s: ' +
        ', '.join(f'{k}={v:.4f}' for k, v in metrics.items()))
    results['splits'][split] = metrics
    results['seconds'][split] = round(seconds, 3)
    results['splits'] = {
        s: results['splits'][s]
        for s in job.bench.split_names if s in results['splits']
    }
    results['summary'] = shift_summary(job.bench, results['splits'])
    if is_main_process():
        dump_json_atomic(results, job.results_file)


def run_shift(job: ShiftJob, cfg: Any) -> Dict[str, Any]:
    """Evaluate the job's splits that are not done yet.

    Args:
        job (ShiftJob): What to do.
        cfg (mmengine.Config): The test config.

    Returns:
        dict: The results (also in ``job.results_file``).
    """
    cfg = unwrap_corrupted(cfg)
    for split in job.splits:  # fail on the config before building anything
        split_dataloader_cfg(cfg.test_dataloader, job.bench, split,
                             job.split_dir)
    ckpt = load_checkpoint_file(job.checkpoint, unsafe=job.unsafe_load)
    results = prepare_shift_results(job, cfg)
    todo = [s for s in job.splits if s not in results['splits']]
    if not todo:
        return results
    runner = build_test_runner(cfg, job.checkpoint, job.work_dir,
                               job.launcher, loaded=ckpt)
    del ckpt
    test_cfg = dict(cfg.test_cfg)
    test_cfg.setdefault('type', 'TestLoop')
    runner.call_hook('before_run')
    try:
        for split in todo:
            _evaluate_split(runner, job, cfg, test_cfg, split, results)
    finally:
        runner.call_hook('after_run')
    return results
