# Copyright (c) robustdet contributors. All rights reserved.
"""The robustness results file: ``WORK_DIR/robustness.json``.

It is written first (atomically, after every cell); Markdown, CSV and
plots are derived from it and can be regenerated from it alone.
"""
import copy
import fcntl
import json
import logging
import os
import os.path as osp
from typing import Any, Dict, Iterable, List, Optional, Tuple

from mmengine.logging import print_log

from ..corruptions import CLEAN_SEVERITY, CORRUPTION_NAMES, CPU_DEPENDENT, grid
from ..corruptions.grid import CLEAN, Cell, cell_key
from ..evaluation import (class_mean_rpc, grid_coverage, robustness_summary,
                          video_coverage, video_summary)
from ..evaluation.functional.corruption_error import family_errors
from ..evaluation.functional.video_robustness import CLIP_NAMES
from ..utils.deprecation import moved_names
from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, sha256_json
from ..version import __version__

FORMAT = 'robustdet.robustness/1'
RESULTS_FILE = 'robustness.json'
SHARD_DIR = 'shards'
# A run may only resume or merge results that agree on these.
IDENTITY_KEYS = ('config_sha256', 'checkpoint_sha256', 'seed', 'backend',
                 'channel_order', 'corruption_device', 'video_clips',
                 'ground_truth', 'region', 'depth')
# How video corruptions cut clips (see robustdet.datasets.video_corrupted):
# recorded by every run, so video cells can be added to a run of image
# corruptions with the same settings.
DEFAULT_VIDEO_CLIPS = dict(clip_len=32, clip_mode='auto', short_clips='error')
# Ground truth the evaluator scores against: 'config' (the evaluator's own,
# e.g. CocoMetric's ann_file) or 'pipeline' (what the dataset delivers,
# needed when camera-motion corruptions move the boxes).
GROUND_TRUTHS = ('config', 'pipeline')
# Identity keys a run may leave out, with the value they then have (also in
# files written before the key existed): corruption_device is the device
# type ('cpu', 'cuda') that backend torch corrupts on (its noise pixels
# depend on the device's generator), None for the other backends; region
# is where the image corruptions apply ('all', 'objects', 'background');
# depth the DepthSource config of the depth-aware corruptions.
DEFAULT_IDENTITY = dict(
    corruption_device=None,
    video_clips=DEFAULT_VIDEO_CLIPS,
    ground_truth='config',
    region='all',
    depth=None)
# Version of the settings of the CRF clip corruptions (h264_crf,
# h265_crf) a file's cells were computed with: 2 = a plain encode at the
# stated CRF; files without the key hold version 1 (low-latency settings,
# a milder corruption), whose cells a resumed run computes again.
CLIP_CODECS = 2
_CLIP_CODECS_CHANGED = ('h264_crf', 'h265_crf')
# Config parts that decide the numbers (dataloader workers do not).
_FINGERPRINT_KEYS = ('model', 'test_dataloader', 'test_evaluator',
                     'test_cfg')
# How the data is loaded and the ranks' results are gathered, not what
# they are: a run may resume with other settings, or another world size.
_NOT_FINGERPRINTED = ('num_workers', 'persistent_workers', 'pin_memory',
                      'collect_device', 'collect_dir')


def parse_shard(text: Optional[str]) -> Tuple[int, int]:
    """Parse ``--shard I/N`` (1-based: ``1/4`` ... ``4/4``).

    Args:
        text (str, optional): The flag's value; None means ``1/1``.

    Returns:
        tuple[int, int]: ``(index, count)``.
    """
    if text is None:
        return 1, 1
    try:
        index, count = (int(x) for x in text.split('/'))
    except ValueError:
        raise RobustDetError(
            f'--shard must look like I/N (e.g. 1/4), got {text!r}') from None
    if not (count >= 1 and 1 <= index <= count):
        raise RobustDetError(
            f'--shard {text}: need 1 <= I <= N (shards are numbered 1..N)')
    return index, count


def results_path(work_dir: str, index: int = 1, count: int = 1) -> str:
    """Where a run (or shard) writes its results."""
    if count == 1:
        return osp.join(work_dir, RESULTS_FILE)
    return osp.join(work_dir, SHARD_DIR,
                    f'robustness.shard-{index}-of-{count}.json')


def config_fingerprint(cfg: Any) -> str:
    """SHA-256 of the config parts that decide the numbers.

    Args:
        cfg (mmengine.Config): The test config.

    Returns:
        str: Hex digest over model, test dataloader (without worker
        settings), test evaluator and test loop settings.
    """

    def strip(node):
        if isinstance(node, dict):
            return {
                k: strip(v)
                for k, v in node.items() if k not in _NOT_FINGERPRINTED
            }
        if isinstance(node, (list, tuple)):
            return [strip(v) for v in node]
        return node

    return sha256_json(
        {k: strip(cfg.to_dict().get(k)) for k in _FINGERPRINT_KEYS})


def new_results(identity: Dict[str, Any], **extra: Any) -> Dict[str, Any]:
    """An empty results dict for a run with the given identity."""
    identity = dict(DEFAULT_IDENTITY, **identity)
    missing = [k for k in IDENTITY_KEYS if k not in identity]
    assert not missing, f'identity lacks {missing}'
    return dict(
        format=FORMAT,
        robustdet_version=__version__,
        clip_codecs=CLIP_CODECS,
        **identity,
        **extra,
        clean=None,
        cells={},
        seconds={},
        skipped_images=[],
        empty_cells=[],
        coverage=None,
        summary=None)


def read_results_file(path: str, fmt: str, what: str) -> Dict[str, Any]:
    """Read a JSON results file of format ``fmt``, with a one-line error
    if it is missing, unreadable or of another kind.

    Args:
        path (str): The file.
        fmt (str): Its expected ``format`` entry.
        what (str): What it is, for the messages.

    Returns:
        dict: The results.
    """
    try:
        with open(path, encoding='utf-8') as f:
            results = json.load(f)
    except FileNotFoundError:
        raise RobustDetError(f'results file not found: {path}') from None
    except (OSError, ValueError) as e:
        raise RobustDetError(
            f'{path} is not a readable {what} file: {e}') from None
    if not isinstance(results, dict) or results.get('format') != fmt:
        raise RobustDetError(
            f'{path} is not a robustdet {what} file (format '
            f'{results.get("format") if isinstance(results, dict) else None}'
            f', expected {fmt})')
    return results


def load_results(path: str) -> Dict[str, Any]:
    """Read a results file, with a one-line error if it is not one.

    Args:
        path (str): Path of a ``robustness.json`` (or shard) file.

    Returns:
        dict: The results.
    """
    return read_results_file(path, FORMAT, 'robustness results')


def _identity_value(results: Dict[str, Any], key: str) -> Any:
    """An identity entry (its default where the results or identity
    leave it out, e.g. a file written before the key existed)."""
    return results.get(key, DEFAULT_IDENTITY.get(key))


def check_same_run(existing: Dict[str, Any], identity: Dict[str, Any],
                   path: str, hint: str) -> None:
    """Refuse to mix results of different runs.

    Args:
        existing (dict): Results already on disk.
        identity (dict): The identity of this run.
        path (str): Path of the existing results, for the message.
        hint (str): What the user can do, for the message.
    """
    diffs = [
        f'{k}: {_identity_value(existing, k)!r} there, '
        f'{_identity_value(identity, k)!r} now' for k in IDENTITY_KEYS
        if _identity_value(existing, k) != _identity_value(identity, k)
    ]
    if diffs:
        raise RobustDetError(
            f'{path} holds results of another run ({"; ".join(diffs)}); '
            f'{hint}')


def drop_stale_codec_cells(results: Dict[str, Any], path: str,
                           then: str) -> List[str]:
    """Remove the h264_crf / h265_crf cells of results written before
    their settings changed (no ``clip_codecs`` key), so that they are not
    mixed with cells of the current definition, say so in the log, and
    mark the results as current.

    Args:
        results (dict): Results read from a file (modified).
        path (str): The file, for the warning.
        then (str): What becomes of the removed cells, for the warning.

    Returns:
        list[str]: The cell keys removed.
    """
    dropped = []
    if results.get('clip_codecs', 1) < CLIP_CODECS:
        for name in _CLIP_CODECS_CHANGED:
            for sev in results['cells'].pop(name, {}):
                key = f'{name}/{sev}'
                dropped.append(key)
                results['seconds'].pop(key, None)
        results['empty_cells'] = [
            k for k in results.get('empty_cells', []) if k not in dropped
        ]
        results['clip_codecs'] = CLIP_CODECS
        refresh_summary(results)
    if dropped:
        print_log(
            f'{path}: {len(dropped)} h264_crf / h265_crf cells were '
            'computed with the former (low-latency) encoder settings; '
            f'{then}', logger='current', level=logging.WARNING)
    return dropped


def has_cell(results: Dict[str, Any], cell: Cell) -> bool:
    """Whether a cell's metrics are recorded."""
    name, severity = cell
    if severity == CLEAN_SEVERITY:
        return results.get('clean') is not None
    return str(severity) in results['cells'].get(name, {})


def record_cell(results: Dict[str, Any],
                cell: Cell,
                metrics: Dict[str, float],
                seconds: float,
                num_predictions: Optional[int] = None) -> None:
    """Store a cell's metrics (and time) and refresh the summary.

    Args:
        results (dict): The results to update.
        cell (Cell): ``(corruption, severity)``.
        metrics (dict): What the evaluator returned.
        seconds (float): Wall time of the cell.
        num_predictions (int, optional): Predicted instances in the cell.
            With 0, the cell is recorded in ``empty_cells``: mmdet's
            CocoMetric returns no metrics at all when there is no detection
            (pycocotools' loadRes fails on an empty list), but the AP of
            such a cell is 0, and leaving it out would raise mPC.
    """
    name, severity = cell
    metrics = {k: float(v) for k, v in metrics.items()}
    # Only when the evaluator returned nothing: in a distributed run this
    # rank's count can be 0 while other ranks found detections.
    if num_predictions == 0 and not metrics:
        key = cell_key(cell)
        results['empty_cells'] = sorted(
            set(results.get('empty_cells', [])) | {key})
    if severity == CLEAN_SEVERITY:
        results['clean'] = metrics
    else:
        results['cells'].setdefault(name, {})[str(severity)] = metrics
        results['cells'] = ordered_cells(results['cells'])
    results['seconds'][cell_key(cell)] = round(float(seconds), 3)
    refresh_summary(results)


def ordered_cells(
        cells: Dict[str, Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """Corruptions in a stable order, severities ascending: image
    corruptions in table order, then clip corruptions in the order of
    :data:`robustdet.video.table.CLIP_CORRUPTIONS`, then any other name
    sorted (kept, never dropped)."""
    known = CORRUPTION_NAMES + CLIP_NAMES
    names = [n for n in known if n in cells]
    names += sorted(n for n in cells if n not in known)
    return {
        n: dict(sorted(cells[n].items(), key=lambda x: int(x[0])))
        for n in names
    }


def _fill_empty_cells(results: Dict[str, Any]) -> None:
    """Give cells without any detection the metrics of no detection: 0
    where the metric is defined, and the undefined value (-1) where the
    ground truth leaves it undefined (e.g. no large objects) - the same
    pattern as every other cell, since the ground truth is the same."""
    empty = set(results.get('empty_cells', []))
    filled = [results.get('clean')] + [
        v for n, per_sev in results['cells'].items()
        for s, v in per_sev.items() if f'{n}/{s}' not in empty
    ]
    template = next((m for m in filled if m), None)
    if template is None:
        return
    blank = {k: (0.0 if v >= 0 else float(v)) for k, v in template.items()}
    for key in empty:
        if key == CLEAN:
            results['clean'] = {**blank, **(results.get('clean') or {})}
            continue
        name, sev = key.split('/')
        cell = results['cells'].get(name, {}).get(sev)
        if cell is not None:
            results['cells'][name][sev] = {**blank, **cell}


def refresh_summary(results: Dict[str, Any]) -> None:
    """Complete empty cells, then recompute the derived entries from
    ``clean`` and ``cells``.

    ``coverage`` and ``summary`` are those of the image benchmark
    (:func:`~robustdet.evaluation.grid_coverage`,
    :func:`~robustdet.evaluation.robustness_summary`);
    ``video_coverage`` and ``video_summary`` those of the clip corruptions
    (:func:`~robustdet.evaluation.video_coverage`,
    :func:`~robustdet.evaluation.video_summary`), None and ``{}`` when
    there is no clip cell. Files written before the video entries existed
    get them here.
    """
    _fill_empty_cells(results)
    clean = results.get('clean') or {}
    results['coverage'] = grid_coverage(results['cells'])
    results['summary'] = robustness_summary(clean, results['cells'])
    per_class = results.get('per_class')
    if per_class:
        rpc = class_mean_rpc(per_class['clean'], per_class['cells'])
        for metric in per_class['metrics']:
            if metric in results['summary']:
                results['summary'][metric]['rPC_class_mean'] = rpc
    video = video_coverage(results['cells'])
    results['video_coverage'] = video if video['video'][0] else None
    results['video_summary'] = video_summary(clean, results['cells'])
    if results.get('ce_baseline'):
        results['corruption_errors'] = corruption_errors(results)
    results['cpu_dependent'] = cpu_dependent_corruptions(results)


def cpu_dependent_corruptions(results: Dict[str, Any]) -> List[str]:
    """The corruptions of a run's cells whose pixels depend on the CPU
    with its backend (:data:`robustdet.corruptions.CPU_DEPENDENT`): a
    grey level in a small fraction of the pixels from one CPU generation
    to another, so their numbers may move by a little between machines.

    Args:
        results (dict): A results dict with ``backend`` and ``cells``.

    Returns:
        list[str]: Their names, in the table's order (empty for backends
        that are not listed, and for imported results).
    """
    listed = CPU_DEPENDENT.get(results.get('backend'), ())
    return [n for n in CORRUPTION_NAMES
            if n in listed and n in results.get('cells', {})]


def corruption_errors(results: Dict[str, Any],
                      baseline: Optional[Dict[str, Any]] = None
                      ) -> Optional[Dict[str, Any]]:
    """The results' CE entry against ``baseline`` (default: the one they
    store), for their mAP metrics the baseline has too.

    Args:
        results (dict): A run's results.
        baseline (dict, optional): A baseline record; default
            ``results['ce_baseline']``.

    Returns:
        dict | None: ``baseline`` (its record without the cells) and
        ``metrics`` (``{metric: {family: errors}}``, see
        :func:`~robustdet.evaluation.functional.corruption_error.
        family_errors`); None without a baseline.
    """
    baseline = baseline or results.get('ce_baseline')
    if not baseline:
        return None
    clean = results.get('clean') or {}
    if baseline['kind'] == 'published':
        metrics = [baseline['metric']]
    else:
        metrics = [m for m in clean if m in baseline['clean']]
    metrics = [m for m in metrics if m.endswith('mAP') and m in clean]
    if not metrics:
        raise RobustDetError(
            f'baseline {baseline["name"]!r} has none of the mAP metrics of '
            f'the run ({", ".join(clean) or "none"})')
    return dict(
        baseline={
            k: v
            for k, v in baseline.items() if k not in ('clean', 'cells')
        },
        metrics=family_errors(clean, results['cells'], baseline, metrics))


def save_results(results: Dict[str, Any], path: str) -> None:
    """Write the results atomically."""
    dump_json_atomic(results, path)


def merge_results(parts: Iterable[Dict[str, Any]],
                  names: Iterable[str]) -> Dict[str, Any]:
    """Merge shard results of one run into one results dict.

    Args:
        parts (Iterable[dict]): Results of the shards.
        names (Iterable[str]): Their paths, for messages.

    Returns:
        dict: Results holding every cell of every shard.
    """
    merged: Optional[Dict[str, Any]] = None
    for part, name in zip(parts, names):
        part = copy.deepcopy(part)
        drop_stale_codec_cells(part, name,
                               'left out; rerun that shard to compute them')
        if merged is None:
            identity = {k: _identity_value(part, k) for k in IDENTITY_KEYS}
            merged = new_results(
                identity,
                config=part.get('config'),
                checkpoint=part.get('checkpoint'),
                training_corruptions=part.get('training_corruptions'))
            first = name
        else:
            check_same_run(part, {k: merged[k] for k in IDENTITY_KEYS}, name,
                           f'it cannot be merged with {first}')
        if part.get('clean') is not None:
            merged['clean'] = part['clean']
        for cname, per_sev in part['cells'].items():
            merged['cells'].setdefault(cname, {}).update(per_sev)
        merged['seconds'].update(part.get('seconds', {}))
        for key in ('skipped_images', 'empty_cells'):
            merged[key] = sorted(set(merged[key]) | set(part.get(key, [])))
    if merged is None:
        raise RobustDetError('no results to merge')
    merged['cells'] = ordered_cells(merged['cells'])
    refresh_summary(merged)
    return merged


def shard_files(work_dir: str) -> List[str]:
    """The shard results files in a work dir, sorted by shard index."""
    directory = osp.join(work_dir, SHARD_DIR)
    if not osp.isdir(directory):
        return []
    names = [
        n for n in os.listdir(directory)
        if n.startswith('robustness.shard-') and n.endswith('.json')
    ]

    def index(n):
        return int(n[len('robustness.shard-'):].split('-')[0])

    return [osp.join(directory, n) for n in sorted(names, key=index)]


def merge_shards(work_dir: str) -> Dict[str, Any]:
    """Merge the shard results of a work dir into ``robustness.json``.

    Serialised with a lock file, so shards finishing at the same time do
    not lose each other's cells: the last merge reads every final shard.

    Args:
        work_dir (str): The work dir the shards wrote into.

    Returns:
        dict: The merged results (also written to ``robustness.json``).
    """
    files = shard_files(work_dir)
    if not files:
        raise RobustDetError(f'no shard results under {work_dir}/{SHARD_DIR}')
    with open(osp.join(work_dir, SHARD_DIR, '.merge.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = merge_results([load_results(f) for f in files], files)
        save_results(merged, osp.join(work_dir, RESULTS_FILE))
    return merged


# grid_cells and shard_cells were defined here before the grid got its own
# module; the old path works for one release.
__getattr__ = moved_names(
    __name__, {
        name: (f'robustdet.corruptions.grid.{name}',
               lambda name=name: getattr(grid, name))
        for name in ('grid_cells', 'shard_cells')
    })
