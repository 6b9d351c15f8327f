# Copyright (c) robustdet contributors. All rights reserved.
"""Natural distribution shifts: evaluate a detector on every split of a
shift benchmark and relate each split to the reference one (Michaelis et
al. 2019, section 3.5, tables 4 and 5).

- ``foggy-cityscapes``: Cityscapes val clean (reference) and Foggy
  Cityscapes val at β = 0.005, 0.01, 0.02 (``FoggyCityscapesDataset``);
- ``bdd100k-weather``: BDD100k val clear (reference), rainy, snowy;
- ``bdd100k-daynight``: BDD100k val daytime (reference), night
  (``BDD100kDataset`` with the file lists of ``make_bdd100k_splits.py``);
- ``coco-o``: the config's own COCO test set (reference) and the six
  domains of COCO-O (Mao et al., ICCV 2023), each a COCO val-like tree
  ``<root>/<domain>/{val2017,annotations/instances_val2017.json}``
  evaluated with its own annotation file; the mean over the six domains
  is the benchmark's headline "COCO-O mAP".

Results (``shift.json``, written atomically after every split; a rerun
resumes) hold each split's metrics and, per metric, P (the reference
split's value), the value per split and rPC per split = value / P; for
``coco-o`` also the mean over the domains and its rPC.
"""
import copy
import numbers
import os.path as osp
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mmengine.dist import is_main_process
from mmengine.registry import LOOPS

from ..engine import (LoadedImages, ShowHook, ShowSettings, choose_items,
                      watched_test_cfg, with_batch_runs)
from ..utils.checkpoint import load_checkpoint_file
from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, sha256_file
from ..version import __version__
from .job_configs import unwrap_corrupted
from .results import config_fingerprint, read_results_file
from .testing import build_test_runner
from .training_record import run_training_record

FORMAT = 'robustdet-shift/1'
RESULTS_FILE = 'shift.json'
BETAS = (0.005, 0.01, 0.02)
#: The six COCO-O domains, in the order of the COCO-O README (easyrobust,
#: benchmarks/coco_o).
COCO_O_DOMAINS = ('sketch', 'cartoon', 'painting', 'weather', 'handmake',
                  'tattoo')
#: Default ``--coco-o-root``: the unpacked ``ood_coco.zip``.
COCO_O_ROOT = 'data/coco-o'
#: A COCO-O domain's annotation file and image folder, below its root.
COCO_O_ANN_FILE = 'annotations/instances_val2017.json'
COCO_O_IMAGES = 'val2017'
# Test evaluators whose annotation file a split may replace.
_COCO_METRICS = ('CocoMetric', 'FastCocoMetric')


@dataclass(frozen=True)
class ShiftBenchmark:
    """A set of splits and how each is made from the config's test set.

    Args:
        name (str): Benchmark name (``--benchmark``).
        dataset_types (tuple[str]): Test dataset types it applies to.
        reference (str): The split P is measured on.
        splits (tuple): ``(split name, dataset overrides)`` pairs, the
            reference first; ``{split_dir}`` in a string value is the
            ``--split-dir``, ``{coco_o_root}`` the ``--coco-o-root``
            (both absolute).
        table (str): The paper's table with this layout.
        evaluator (tuple): ``(split name, overrides)`` pairs for the
            splits whose COCO metrics (``CocoMetric``, ``FastCocoMetric``)
            change, formatted as ``splits``; other splits use the
            config's test evaluator as it is.
        required (tuple): ``(split name, paths)`` pairs: files or folders
            (formatted as ``splits``) that must exist before anything is
            evaluated.
        split_word (str): What a split is called in error messages.
        mean_name (str, optional): If set, the summary also holds the mean
            of each metric over the splits other than the reference (the
            benchmark's headline number, called so).
    """
    name: str
    dataset_types: Tuple[str, ...]
    reference: str
    splits: Tuple[Tuple[str, Dict[str, Any]], ...]
    table: str
    evaluator: Tuple[Tuple[str, Dict[str, Any]], ...] = ()
    required: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    split_word: str = 'split'
    mean_name: Optional[str] = None

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


def _coco_o() -> ShiftBenchmark:
    """COCO-O: each domain is a COCO val-like tree below the root, read and
    evaluated with its own annotation file (as the COCO-O README does by
    pointing ``data/coco`` at ``<root>/<domain>``)."""
    root = '{coco_o_root}/'
    return ShiftBenchmark(
        'coco-o', ('CocoDataset', ), 'coco',
        (('coco', {}), ) + tuple(
            (d,
             dict(
                 data_root=f'{root}{d}/',
                 ann_file=COCO_O_ANN_FILE,
                 data_prefix=dict(img=f'{COCO_O_IMAGES}/')))
            for d in COCO_O_DOMAINS),
        'tables 4 and 5, for COCO-O (Mao et al. 2023)',
        evaluator=tuple(
            (d, dict(ann_file=f'{root}{d}/{COCO_O_ANN_FILE}'))
            for d in COCO_O_DOMAINS),
        required=tuple((d, (f'{root}{d}/{COCO_O_ANN_FILE}',
                            f'{root}{d}/{COCO_O_IMAGES}'))
                       for d in COCO_O_DOMAINS),
        split_word='domain',
        mean_name='COCO-O')


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
        _coco_o(),
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


def _format(value: Any, split_dir: str, coco_o_root: str) -> Any:
    """``value`` with ``{split_dir}`` and ``{coco_o_root}`` filled in (as
    absolute paths) if it is a string."""
    if not isinstance(value, str):
        return value
    return value.format(
        split_dir=osp.abspath(split_dir),
        coco_o_root=osp.abspath(coco_o_root))


def split_dataloader_cfg(dl_cfg: Dict[str, Any],
                         bench: ShiftBenchmark,
                         split: str,
                         split_dir: str,
                         coco_o_root: str = COCO_O_ROOT) -> Dict[str, Any]:
    """The test dataloader config of one split of ``bench``.

    Args:
        dl_cfg (dict): The config's test dataloader.
        bench (ShiftBenchmark): The benchmark.
        split (str): One of its splits.
        split_dir (str): Directory of the BDD100k file lists (relative to
            the working directory, not to the dataset's ``data_root``).
        coco_o_root (str): The COCO-O root (holding one folder per
            domain), relative to the working directory.

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
        leaf[key] = _format(value, split_dir, coco_o_root)
    return dl_cfg


def split_evaluator_cfg(ev_cfg: Any,
                        bench: ShiftBenchmark,
                        split: str,
                        split_dir: str,
                        coco_o_root: str = COCO_O_ROOT) -> Any:
    """The test evaluator config of one split of ``bench``.

    Args:
        ev_cfg (dict | list): The config's test evaluator (one metric or a
            list of them).
        bench (ShiftBenchmark): The benchmark.
        split (str): One of its splits.
        split_dir (str): As for :func:`split_dataloader_cfg`.
        coco_o_root (str): As for :func:`split_dataloader_cfg`.

    Returns:
        dict | list: A copy, with the split's overrides (e.g. the
        annotation file of a COCO-O domain) set in every COCO metric; the
        copy as it is for a split without overrides.
    """
    ev_cfg = copy.deepcopy(ev_cfg)
    overrides = dict(bench.evaluator).get(split)
    if not overrides:
        return ev_cfg
    metrics = ev_cfg if isinstance(ev_cfg, (list, tuple)) else [ev_cfg]
    coco = [m for m in metrics
            if isinstance(m, dict) and m.get('type') in _COCO_METRICS]
    if not coco:
        found = [m.get('type') if isinstance(m, dict) else m
                 for m in metrics]
        raise RobustDetError(
            f'--benchmark {bench.name} needs a test evaluator of type '
            f'{" or ".join(_COCO_METRICS)}, the config has {found}')
    for metric in coco:
        for key, value in overrides.items():
            metric[key] = _format(value, split_dir, coco_o_root)
    return ev_cfg


def check_split_inputs(bench: ShiftBenchmark,
                       split: str,
                       split_dir: str,
                       coco_o_root: str = COCO_O_ROOT) -> None:
    """Check that the files and folders a split reads exist.

    Args:
        bench (ShiftBenchmark): The benchmark.
        split (str): One of its splits.
        split_dir (str): As for :func:`split_dataloader_cfg`.
        coco_o_root (str): As for :func:`split_dataloader_cfg`.

    Raises:
        RobustDetError: Naming the split and the first missing path.
    """
    for path in dict(bench.required).get(split, ()):
        path = _format(path, split_dir, coco_o_root)
        if not osp.exists(path):
            raise RobustDetError(
                f'{bench.name} {bench.split_word} {split!r} is missing: '
                f'expected {path}')


def _split_metrics(metrics: Dict[str, Any]) -> Dict[str, float]:
    return {
        k: float(v)
        for k, v in metrics.items()
        if isinstance(v, numbers.Real) and not isinstance(v, bool)
    }


def _mean(values: Sequence[Optional[float]]) -> Optional[float]:
    """The mean of ``values``; None if any is None (or there are none)."""
    if not values or any(v is None for v in values):
        return None
    return sum(values) / len(values)


def shift_summary(bench: ShiftBenchmark,
                  splits: Dict[str, Dict[str, float]]) -> Dict[str, Any]:
    """P, the value per split and rPC per split, for every metric.

    Args:
        bench (ShiftBenchmark): The benchmark.
        splits (dict): ``{split: {metric: value}}`` (those evaluated).

    Returns:
        dict: ``{metric: {'P': ..., 'splits': {split: value},
        'rPC': {split: value / P}}}``; values < 0 (mmdet's "not
        applicable") and splits not evaluated are None. With
        ``bench.mean_name`` each metric also has ``mean`` (the mean over
        the splits other than the reference; None unless all of them have
        a value) and ``mean_rPC`` (= mean / P).
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
        if bench.mean_name:
            mean = _mean([
                values[s] for s in bench.split_names if s != bench.reference
            ])
            summary[metric].update(
                mean=mean,
                mean_rPC=mean / p if mean is not None and p else None)
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
        coco_o_root (str): The COCO-O root (one folder per domain).
        show (ShowSettings | dict, optional): Draw the first images of
            each split (``--show-dir``), into ``<out_dir>/<split>/``; not
            part of the results' identity.
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
    coco_o_root: str = COCO_O_ROOT
    show: Optional[ShowSettings] = None

    def __post_init__(self) -> None:
        self.show = ShowSettings.from_cfg(self.show)
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
    identity = dict(
        benchmark=job.benchmark,
        config_sha256=config_fingerprint(cfg),
        checkpoint_sha256=sha256_file(job.checkpoint),
        split_dir=osp.abspath(job.split_dir)
        if job.bench.name.startswith('bdd') else None)
    if job.bench.name == 'coco-o':
        identity['coco_o_root'] = osp.abspath(job.coco_o_root)
    return identity


def load_shift_results(path: str) -> Dict[str, Any]:
    """Read a ``shift.json``, with a one-line error if it is not one."""
    return read_results_file(path, FORMAT, 'shift results')


def prepare_shift_results(job: ShiftJob, cfg: Any,
                          trained: Optional[Dict[str, Any]] = None
                          ) -> Dict[str, Any]:
    """The results to continue: those on disk if they are this run's,
    else a new record (another run's are refused unless overwrite), with
    what the detector saw in training (``trained``, see
    :func:`~robustdet.apis.training_record.run_training_record`) as
    ``training_corruptions``."""
    identity = _identity(job, cfg)
    if osp.exists(job.results_file) and not job.overwrite:
        old = load_shift_results(job.results_file)
        diffs = [k for k in identity if old.get(k) != identity[k]]
        if diffs:
            raise RobustDetError(
                f'{job.results_file} holds results of another run '
                f'({diffs[0]} differs); use another --work-dir or '
                '--overwrite')
        old['training_corruptions'] = trained
        return old
    record = dict(
        format=FORMAT,
        robustdet_version=__version__,
        **identity,
        config=job.config,
        checkpoint=job.checkpoint,
        reference=job.bench.reference,
        table=job.bench.table,
        training_corruptions=trained)
    if job.bench.mean_name:
        record['mean_name'] = job.bench.mean_name
    return dict(record, splits={}, seconds={}, summary={})


def _evaluate_split(runner: Any,
                    job: ShiftJob,
                    cfg: Any,
                    test_cfg: Dict[str, Any],
                    split: str,
                    results: Dict[str, Any],
                    show: Optional[ShowHook] = None) -> None:
    """Evaluate one split with its own evaluator and record it (and draw
    its first images with ``show``)."""
    dirs = (job.split_dir, job.coco_o_root)
    evaluator_cfg = split_evaluator_cfg(cfg.test_evaluator, job.bench, split,
                                        *dirs)
    # Launched: each rank scores whole batches of one process.
    dataloader = with_batch_runs(
        split_dataloader_cfg(cfg.test_dataloader, job.bench, split, *dirs),
        evaluator_cfg)
    loop = LOOPS.build(
        test_cfg,
        default_args=dict(
            runner=runner,
            dataloader=dataloader,
            evaluator=runner.build_evaluator(evaluator_cfg)))
    if show is not None:
        dataset = loop.dataloader.dataset
        show.set_source(
            choose_items(dataset, show.settings.num), LoadedImages(dataset),
            dataset.metainfo)
        show.set_cell(None, split)
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
    dirs = (job.split_dir, job.coco_o_root)
    # Fail on the config and the data before building anything.
    split_datasets = []
    for split in job.splits:
        split_datasets.append(
            split_dataloader_cfg(cfg.test_dataloader, job.bench, split,
                                 *dirs)['dataset'])
        split_evaluator_cfg(cfg.test_evaluator, job.bench, split, *dirs)
    if job.show is not None:
        job.show.check_outside(split_datasets)
    for split in job.splits:
        check_split_inputs(job.bench, split, *dirs)
    ckpt = load_checkpoint_file(job.checkpoint, unsafe=job.unsafe_load)
    results = prepare_shift_results(
        job, cfg, run_training_record(ckpt, job.checkpoint, cfg))
    todo = [s for s in job.splits if s not in results['splits']]
    if not todo:
        return results
    runner = build_test_runner(cfg, job.checkpoint, job.work_dir,
                               job.launcher, loaded=ckpt)
    del ckpt
    # Launched, a rank stuck mid-split stops the others.
    test_cfg = watched_test_cfg(dict(cfg.test_cfg))
    show = None
    if job.show is not None:
        show = ShowHook(job.show)
        runner.register_hook(show)
    runner.call_hook('before_run')
    try:
        for split in todo:
            _evaluate_split(runner, job, cfg, test_cfg, split, results,
                            show)
    finally:
        runner.call_hook('after_run')
    return results
