# Copyright (c) robustdet contributors. All rights reserved.
"""Import the results of other robustness tools as a ``robustness.json``.

:func:`import_results` reads result files of Michaelis et al. 2019's
benchmark, mmdet 1.x / 2.x and 3.x ``test_robustness.py`` and robustdet
itself, checks them, and writes the ``robustness.json`` that
``tools/test_robust.py`` writes, so that reports, comparisons and the
leaderboard treat imported and native runs alike.
Pickles are read with :func:`robustdet.utils.safe_pickle.load_pickle`,
which runs nothing they name. Every name and number is checked before
anything is written: a file from a stranger gets one line, never a
traceback or half a work dir.
"""
import json
import math
import numbers
import os
import os.path as osp
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from ..baselines import DATASETS, TASKS
from ..corruptions import CLEAN_SEVERITY, CORRUPTION_NAMES, SEVERITIES
from ..corruptions.grid import CLEAN
from ..evaluation.functional.video_robustness import CLIP_NAMES
from ..reports import report_names
from ..utils.errors import RobustDetError
from ..utils.io import sha256_file
from ..utils.safe_pickle import (MAX_DEPTH, MAX_FILE_BYTES, PICKLE_FIRST_BYTES,
                                 load_pickle, nesting_depth, show)
from .results import (FORMAT, IDENTITY_KEYS, check_same_run, load_results,
                      new_results, ordered_cells, refresh_summary,
                      results_path, save_results)

# What each layout looks like, for the messages.
LAYOUTS = {
    'mmdet2-coco':
    "{corruption: {severity: {'bbox'|'segm': {'AP', 'AP50', ...}}}}: the "
    'raw results of Michaelis et al. 2019 and of mmdet 1.x/2.x '
    'test_robustness.py on COCO or Cityscapes',
    'mmdet2-voc':
    "{corruption: {severity: [{'ap': ...} per class]}}: the same on "
    'PASCAL VOC',
    'mmdet3':
    "{corruption: {severity: {'coco/bbox_mAP'|'pascal_voc/mAP': ...}}}: "
    'mmdet 3.x test_robustness.py',
    'robustdet': f"robustdet's robustness.json (format {FORMAT})",
}
# COCOeval's summary names in mmdet 1.x/2.x eval dicts -> mmdet 3.x keys.
# The recall entries (AR1, AR10, ...) have no mmdet 3.x counterpart with
# the same maxDets and are left out.
_COCO_KEYS = dict(
    AP='mAP', AP50='mAP_50', AP75='mAP_75', APs='mAP_s', APm='mAP_m',
    APl='mAP_l')
# Metric key prefixes of mmdet 3.x evaluators per dataset.
_PREFIXES = dict(
    coco=('coco/', ), cityscapes=('coco/', 'cityscapes/'),
    voc=('pascal_voc/', ))
# mmdet's test_robustness.py --corruptions None: a clean-only run.
_CLEAN_ONLY = 'None'
VOC_METRICS = ('pascal_voc/mAP', 'pascal_voc/AP50')
# What one file may hold: metrics of a cell (mmdet's class-wise COCO
# metrics of 80 classes are ~100), classes of a per-class list, and the
# characters of a metric or run name (they become file names and titles).
MAX_METRICS = 1000
MAX_CLASSES = 1000
MAX_NAME_CHARS = 100
VOC_CLASSES = ('aeroplane', 'bicycle', 'bird', 'boat', 'bottle', 'bus',
               'car', 'cat', 'chair', 'cow', 'diningtable', 'dog', 'horse',
               'motorbike', 'person', 'pottedplant', 'sheep', 'sofa',
               'train', 'tvmonitor')


class _Grid:
    """The cells of one or more files: ``clean``, ``cells`` as in
    ``robustness.json``, and per-class AP where the source has it."""

    def __init__(self):
        self.clean: Optional[Dict[str, float]] = None
        self.cells: Dict[str, Dict[str, Dict[str, float]]] = {}
        self.class_clean: Optional[List[float]] = None
        self.class_cells: Dict[str, Dict[str, List[float]]] = {}
        # cell key -> (metrics, per-class AP), and the file it came from
        self.stored: Dict[str, Tuple[Any, Any]] = {}
        self.sources: Dict[str, str] = {}
        # Cells without any detection (mmdet's CocoMetric returns {}).
        self.empty: Set[str] = set()
        # A robustdet file's per_class entry and name, carried over.
        self.source_classes: Optional[Mapping] = None
        self.source_name: Optional[str] = None

    def add(self, path: str, name: str, severity: int,
            metrics: Dict[str, float],
            per_class: Optional[List[float]] = None) -> None:
        """Store one cell; the same cell twice must hold the same
        numbers (mmdet repeats the clean cell under every corruption)."""
        key = CLEAN if severity == CLEAN_SEVERITY else f'{name}/{severity}'
        here = f'{path} ({name})' if key == CLEAN else path
        if key in self.stored:
            if self.stored[key] != (metrics, per_class):
                raise RobustDetError(
                    f'{here}: the {key} results differ from those in '
                    f'{self.sources[key]}')
            return
        self._check_like_others(here, key, metrics, per_class)
        self.stored[key] = (metrics, per_class)
        self.sources[key] = here
        if severity == CLEAN_SEVERITY:
            self.clean, self.class_clean = metrics, per_class
            return
        self.cells.setdefault(name, {})[str(severity)] = metrics
        if per_class is not None:
            self.class_cells.setdefault(name, {})[str(severity)] = per_class

    def _check_like_others(self, here: str, key: str,
                           metrics: Dict[str, float],
                           per_class: Optional[List[float]]) -> None:
        """Every cell with detections holds the same metrics (and as many
        classes): a mean over cells must not silently average fewer."""
        for other, (m, c) in self.stored.items():
            if not m or not metrics:
                continue  # no detection: filled in from the others
            if set(m) != set(metrics):
                raise RobustDetError(
                    f'{here}: cell {key} has the metrics '
                    f'{", ".join(sorted(metrics))}, cell {other} of '
                    f'{self.sources[other]} has {", ".join(sorted(m))}')
            if (c is None) != (per_class is None) or (
                    c is not None and len(c) != len(per_class)):
                raise RobustDetError(
                    f'{here}: cell {key} has '
                    f'{len(per_class or [])} classes, cell {other} of '
                    f'{self.sources[other]} {len(c or [])}')
            return


def _number(value: Any, path: str, where: str, allow_undefined: bool) -> float:
    """An AP value as float: a real Python or numpy number (not a bool,
    complex, string or array) in [0, 1], or -1 (pycocotools' "undefined",
    e.g. no large objects) where ``allow_undefined``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (numbers.Real, np.integer, np.floating)):
        raise RobustDetError(
            f'{path}: {where} is {type(value).__name__}, not a number')
    try:
        value = float(value)
    except OverflowError:
        raise RobustDetError(
            f'{path}: {where} is an integer too large for a number') from None
    if math.isnan(value):
        raise RobustDetError(f'{path}: {where} is NaN')
    if value < 0 and not (allow_undefined and value == -1):
        raise RobustDetError(f'{path}: {where} is negative ({value})')
    if value > 1:
        raise RobustDetError(
            f'{path}: {where} is {value}; AP values are fractions in '
            '[0, 1] (is it in percent?)')
    return value


def _text(value: Any, path: str, what: str,
          limit: int = MAX_NAME_CHARS) -> str:
    """A metric, class or run name: a str of 1 to ``limit`` printable
    characters (it becomes part of file names, tables and titles)."""
    if not isinstance(value, str):
        raise RobustDetError(
            f'{path}: {what} {show(value)} is a {type(value).__name__}, '
            'not a string')
    if not 0 < len(value) <= limit:
        raise RobustDetError(
            f'{path}: {what} {show(value)} has {len(value)} characters; '
            f'names have 1 to {limit}')
    if not value.isprintable():  # control characters, lone surrogates
        raise RobustDetError(
            f'{path}: {what} {show(value)} holds characters that are not '
            'printable')
    return value


def _check_size(obj: Any, path: str, what: str, limit: int) -> None:
    """At most ``limit`` entries in one mapping or list of a file."""
    if len(obj) > limit:
        raise RobustDetError(
            f'{path}: {what} has {len(obj)} entries; at most {limit} are '
            'read')


def _severities(per_sev: Any, path: str, what: str) -> None:
    """``per_sev`` maps at most the severities 0-5 to cells."""
    if not isinstance(per_sev, Mapping):
        raise _unknown_layout(
            path, f'{what} is a {type(per_sev).__name__}, not a mapping of '
            'severities')
    _check_size(per_sev, path, what, len(SEVERITIES) + 1)


def _severity(key: Any, path: str, name: str) -> int:
    try:
        severity = int(key)
        ok = not isinstance(key, bool) and str(severity) == str(key)
    except (TypeError, ValueError):
        ok = False
    if not ok or not CLEAN_SEVERITY <= severity <= max(SEVERITIES):
        raise RobustDetError(
            f'{path}: {name} has severity {show(key)}; severities are 0 '
            f'(clean) to {max(SEVERITIES)}')
    return severity


def _corruption(name: Any, path: str, layout: str) -> str:
    known = CORRUPTION_NAMES + (CLIP_NAMES if layout == 'robustdet' else ())
    if not isinstance(name, str) or (name not in known
                                     and name != _CLEAN_ONLY):
        raise RobustDetError(
            f'{path}: unknown corruption {show(name)}; known are those of '
            f'the corruption table: {", ".join(CORRUPTION_NAMES)}')
    return name


def _no_detection(cell: Any) -> bool:
    """mmdet 3.x's evaluators return no metric at all for a cell without
    any detection (pycocotools cannot load an empty result list); such a
    cell scores AP 0, as ``tools/test_robust.py`` records it."""
    return isinstance(cell, Mapping) and not cell


def _layout_of(cell: Any) -> Optional[str]:
    """The layout one cell's value belongs to, or None."""
    if isinstance(cell, (list, tuple)) and cell and all(
            isinstance(c, Mapping) and 'ap' in c for c in cell):
        return 'mmdet2-voc'
    if isinstance(cell, Mapping) and cell:
        if all(isinstance(k, str) and '/' in k for k in cell):
            return 'mmdet3'
        if any(k in TASKS for k in cell) and all(
                isinstance(v, Mapping) or k not in TASKS
                for k, v in cell.items()):
            return 'mmdet2-coco'
    return None


def _unknown_layout(path: str, what: str) -> RobustDetError:
    known = '; '.join(f'{k}: {v}' for k, v in LAYOUTS.items())
    return RobustDetError(
        f'{path}: unknown layout ({what}); known layouts are {known}')


def detect_layout(obj: Any, path: str) -> str:
    """The layout of a loaded result file (see :data:`LAYOUTS`).

    Args:
        obj: What the file holds.
        path (str): The file, for messages.

    Returns:
        str: A key of :data:`LAYOUTS`.
    """
    if isinstance(obj, Mapping) and 'format' in obj:
        if obj['format'] != FORMAT:
            raise _unknown_layout(path, f'format {obj["format"]!r}')
        return 'robustdet'
    if not isinstance(obj, Mapping) or not obj:
        raise _unknown_layout(
            path, f'a {type(obj).__name__}, not a mapping of corruptions')
    _check_size(obj, path, 'the mapping of corruptions',
                len(CORRUPTION_NAMES) + 1)
    layout = None
    for name, per_sev in obj.items():
        _severities(per_sev, path, f'corruption {show(name)}')
        for sev, cell in per_sev.items():
            if isinstance(cell, (Mapping, list, tuple)):
                _check_size(cell, path, f'cell {show(name)}/{show(sev)}',
                            MAX_METRICS)
            if _no_detection(cell):
                continue
            found = _layout_of(cell)
            if found is None:
                raise _unknown_layout(
                    path, f'cell {show(name)}/{show(sev)} is a '
                    f'{type(cell).__name__} of no known shape')
            if layout not in (None, found):
                raise _unknown_layout(
                    path, f'cell {show(name)}/{show(sev)} is {found}, '
                    f'earlier cells {layout}')
            layout = found
    if layout is None:
        if any(per_sev for per_sev in obj.values()):
            return 'mmdet3'  # every cell without detection: {}
        raise _unknown_layout(path, 'no cells')
    return layout


def _dataset_of(layout: str, keys: Sequence[str]) -> Tuple[str, ...]:
    """The datasets a file's results can belong to."""
    if layout == 'mmdet2-voc':
        return ('voc', )
    if layout == 'mmdet2-coco':
        return ('coco', 'cityscapes')
    return tuple(
        d for d in DATASETS
        if keys and all(k.startswith(_PREFIXES[d]) for k in keys))


_DATASET_WORDS = dict(
    voc='PASCAL VOC results (AP50)', coco='COCO-style results (AP)',
    cityscapes='COCO-style results (AP)')


def _check_dataset(path: str, layout: str, keys: Sequence[str],
                   dataset: str) -> None:
    fits = _dataset_of(layout, keys)
    if dataset in fits:
        return
    if not fits:
        raise RobustDetError(
            f'{path}: its metrics ({", ".join(sorted(keys)[:4])}) belong '
            f'to no known dataset; --dataset {dataset} expects keys '
            f'starting with {" or ".join(_PREFIXES[dataset])}')
    raise RobustDetError(
        f'{path} holds {_DATASET_WORDS[fits[0]]}, not {dataset} results; '
        f'pass --dataset {fits[0]}')


def _task_filter(path: str, metrics: Dict[str, float],
                 task: Optional[str], where: str) -> Dict[str, float]:
    if task is None:
        return metrics
    # PASCAL VOC metrics are box AP; mmdet's CityScapesMetric's mask AP.
    implied = dict(pascal_voc='bbox', cityscapes='segm')
    kept = {
        k: v
        for k, v in metrics.items()
        if f'/{task}_' in k or implied.get(k.split('/')[0]) == task
    }
    if not kept:
        raise RobustDetError(
            f'{path}: {where} has no {task} results (it has '
            f'{", ".join(sorted(metrics))})')
    return kept


def _cell_metrics(path: str, layout: str, cell: Any, where: str,
                  dataset: str, task: Optional[str]
                  ) -> Tuple[Dict[str, float], Optional[List[float]]]:
    """One cell as ``({metric: value}, per-class AP or None)``."""
    if layout == 'mmdet2-voc':
        if task not in (None, 'bbox'):
            raise RobustDetError(
                f'{path}: PASCAL VOC results hold bbox AP50 only, not '
                f'{task}')
        aps = [
            _number(c['ap'], path, f'{where} class {i} ap', False)
            for i, c in enumerate(cell)
        ]
        mean = sum(aps) / len(aps)
        return {k: mean for k in VOC_METRICS}, aps
    if layout == 'mmdet2-coco':
        metrics = {}
        for t, values in cell.items():
            if t not in TASKS or not isinstance(values, Mapping):
                continue  # 'proposal', 'keypoints': not AP of this task
            _check_size(values, path, f'{where} {t}', MAX_METRICS)
            for old, new in _COCO_KEYS.items():
                if old in values:
                    metrics[f'coco/{t}_{new}'] = _number(
                        values[old], path, f'{where} {t} {old}', True)
        return _task_filter(path, metrics, task, where), None
    metrics = {
        _text(k, path, f'{where}: the metric'):
        _number(v, path, f'{where} {k}', True)
        for k, v in cell.items()
    }
    _check_dataset(path, layout, list(metrics), dataset)
    return _task_filter(path, metrics, task, where), None


def read_result_file(path: str) -> Any:
    """Load a result file: JSON, or a pickle (any protocol) through the
    safe loader; what it is is told by its first bytes, not its name.

    Args:
        path (str): The file.

    Returns:
        What it holds: plain data, nested at most
        :data:`~robustdet.utils.safe_pickle.MAX_DEPTH` deep.
    """
    if osp.isdir(path):
        raise RobustDetError(f'{path}: is a directory, not a result file')
    if not osp.isfile(path):
        raise RobustDetError(f'{path}: no such file')
    if osp.getsize(path) > MAX_FILE_BYTES:
        raise RobustDetError(
            f'{path}: {osp.getsize(path)} bytes; result files of more than '
            f'{MAX_FILE_BYTES} bytes are not read')
    with open(path, 'rb') as f:
        head = f.read(64)
    if not head.strip():
        raise RobustDetError(f'{path}: empty file')
    if head.lstrip()[:1] in (b'{', b'['):
        return _read_json(path)
    if head[0] not in PICKLE_FIRST_BYTES:
        raise RobustDetError(
            f'{path}: not a pickle or JSON file (it starts with '
            f'{head[:8]!r})')
    return load_pickle(path)


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding='utf-8') as f:
            obj = json.load(f)
    except RecursionError:
        obj = None  # nested deeper than the interpreter goes: as below
    except (ValueError, UnicodeDecodeError) as e:
        text = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        raise RobustDetError(
            f'{path}: not a readable JSON file ({text})') from None
    if obj is None or nesting_depth(obj) > MAX_DEPTH:
        raise RobustDetError(
            f'{path}: not a readable JSON file (nested more than '
            f'{MAX_DEPTH} deep)')
    return obj


def _read_into(grid: _Grid, path: str, dataset: str,
               task: Optional[str]) -> str:
    """Check one file and add its cells to ``grid``; return its layout."""
    obj = read_result_file(path)
    layout = detect_layout(obj, path)
    source = layout
    robustdet_empty = []
    if layout == 'robustdet':
        _check_robustdet(obj, path)
        robustdet_empty = obj.get('empty_cells') or []
        grid.source_name = grid.source_name or obj.get('name')
        if obj.get('per_class'):
            _add_per_class(grid, obj['per_class'], path)
        cells = dict(obj.get('cells') or {})
        if obj.get('clean') is not None:
            cells = {_CLEAN_ONLY: {'0': obj['clean']}, **cells}
        obj, layout = cells, 'mmdet3'
    if layout != 'mmdet3':
        _check_dataset(path, layout, [], dataset)
    for name, per_sev in obj.items():
        name = _corruption(name, path, source)
        for sev_key, cell in per_sev.items():
            severity = _severity(sev_key, path, name)
            if name == _CLEAN_ONLY and severity != CLEAN_SEVERITY:
                raise RobustDetError(
                    f'{path}: corruption {_CLEAN_ONLY!r} (a clean-only '
                    f'run) has severity {severity}')
            where = CLEAN if severity == CLEAN_SEVERITY else \
                f'{name}/{severity}'
            if _no_detection(cell):
                grid.add(path, name, severity, {}, None)
                grid.empty.add(where)
                continue
            metrics, per_class = _cell_metrics(path, layout, cell, where,
                                               dataset, task)
            if source == 'robustdet':
                per_class = _class_values(grid, name, severity)
            grid.add(path, name, severity, metrics, per_class)
    if source == 'robustdet':
        grid.empty.update(robustdet_empty)
    return source


def _check_robustdet(obj: Mapping, path: str) -> None:
    """A robustdet results file holds ``{name: {severity: {metric:
    value}}}`` cells, a ``{metric: value}`` clean entry, a list of the
    cells without detections, and its name, config and identity as short
    plain values."""
    cells, clean = obj.get('cells'), obj.get('clean')
    ok = isinstance(cells, Mapping) and all(
        isinstance(per_sev, Mapping) and all(
            isinstance(m, Mapping) for m in per_sev.values())
        for per_sev in cells.values())
    if not ok or not (clean is None or isinstance(clean, Mapping)):
        raise _unknown_layout(
            path, 'format robustdet.robustness/1 but its clean / cells '
            'are not mappings of metrics')
    _check_size(cells, path, 'cells', len(CORRUPTION_NAMES + CLIP_NAMES))
    for name, per_sev in cells.items():
        _check_size(per_sev, path, f'cells of {show(name)}',
                    len(SEVERITIES) + 1)
        for metrics in per_sev.values():
            _check_size(metrics, path, f'a cell of {show(name)}',
                        MAX_METRICS)
    _check_size(clean or {}, path, 'clean', MAX_METRICS)
    empty = obj.get('empty_cells') or []
    if not isinstance(empty, list) or not all(
            isinstance(k, str) and len(k) <= MAX_NAME_CHARS for k in empty):
        raise _unknown_layout(path, 'its empty_cells are not cell names')
    if obj.get('name') is not None:
        _text(obj['name'], path, 'the run name', 2 * MAX_NAME_CHARS)
    for key in ('config', 'checkpoint', *IDENTITY_KEYS):
        value = obj.get(key)
        if len(json.dumps(value)) > 4096:
            raise RobustDetError(
                f'{path}: its {key} entry is too long ({show(value)})')


def _add_per_class(grid: _Grid, per_class: Any, path: str) -> None:
    """Per-class AP of a robustdet file (from an earlier VOC import),
    checked (a list of AP50 per class for clean and each cell, all of one
    length) and kept aside to be stored with each cell."""
    if not isinstance(per_class, Mapping) or not isinstance(
            per_class.get('cells'), Mapping):
        raise _unknown_layout(path, 'its per_class entry is not a mapping')

    def values(aps: Any, where: str) -> Optional[List[float]]:
        if aps is None:
            return None
        if not isinstance(aps, list):
            raise RobustDetError(
                f'{path}: per_class {where} is a {type(aps).__name__}, '
                'not a list of AP values')
        _check_size(aps, path, f'per_class {where}', MAX_CLASSES)
        return [
            _number(v, path, f'per_class {where} class {i}', False)
            for i, v in enumerate(aps)
        ]

    cells = per_class['cells']
    _check_size(cells, path, 'per_class cells', len(CORRUPTION_NAMES))
    checked = dict(clean=values(per_class.get('clean'), CLEAN), cells={})
    for name, per_sev in cells.items():
        _severities(per_sev, path, f'per_class cells of {show(name)}')
        checked['cells'][name] = {
            sev: values(aps, f'{show(name)}/{show(sev)}')
            for sev, aps in per_sev.items()
        }
    grid.source_classes = checked


def _class_values(grid: _Grid, name: str,
                  severity: int) -> Optional[List[float]]:
    """The per-class AP of a cell of a robustdet file, if it has them."""
    source = grid.source_classes
    if not source:
        return None
    if severity == CLEAN_SEVERITY:
        return source.get('clean')
    return source['cells'].get(name, {}).get(str(severity))


def _per_class(grid: _Grid, layouts: List[str]) -> Optional[Dict[str, Any]]:
    """The per-class AP50 of a VOC import (when every file had it)."""
    if grid.class_clean is None or any(lay not in ('mmdet2-voc', 'robustdet')
                                       for lay in layouts):
        return None
    n = len(grid.class_clean)
    classes = list(VOC_CLASSES) if n == len(VOC_CLASSES) else [
        str(i) for i in range(n)
    ]
    return dict(metrics=list(VOC_METRICS), classes=classes,
                clean=grid.class_clean, cells=grid.class_cells)


def _identity(paths: Sequence[str], layouts: Sequence[str]
              ) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """The identity (and config / checkpoint) of the imported run: that
    of robustdet's own files, else mmdet's (its ``Corrupt`` runs
    imagecorruptions on BGR arrays, with no seed)."""
    if 'robustdet' not in layouts:
        identity = dict.fromkeys(IDENTITY_KEYS)
        identity.update(backend='reference', channel_order='bgr')
        del identity['video_clips'], identity['ground_truth']  # defaults
        return identity, dict(config=None, checkpoint=None)
    if any(lay != 'robustdet' for lay in layouts):
        raise RobustDetError(
            'robustdet results cannot be merged with results of other '
            f'tools ({", ".join(paths)}); import them separately')
    first = load_results(paths[0])  # checked by _check_robustdet
    identity = {k: first.get(k) for k in IDENTITY_KEYS}
    for key in ('video_clips', 'ground_truth'):  # defaults if left out
        if identity[key] is None:
            del identity[key]
    for path in paths[1:]:
        check_same_run(load_results(path), identity, path,
                       f'it cannot be merged with {paths[0]}')
    return identity, dict(
        config=first.get('config'), checkpoint=first.get('checkpoint'))


def _check_work_dir(work_dir: str, overwrite: bool) -> List[str]:
    """Refuse a work dir that is a file, or holds files without
    ``overwrite``; return what replacing its run removes: its
    ``robustness.json`` and the reports written for it."""
    if osp.exists(work_dir) and not osp.isdir(work_dir):
        raise RobustDetError(f'--work-dir {work_dir} is a file')
    if not osp.isdir(work_dir) or not os.listdir(work_dir):
        return []
    if not overwrite:
        raise RobustDetError(
            f'{work_dir} exists and is not empty; pass --overwrite to '
            'replace its results, or choose another --work-dir')
    path = results_path(work_dir)
    if not osp.exists(path):
        return []
    try:
        old = load_results(path)
        names = report_names(old)
    except (RobustDetError, KeyError, TypeError, AttributeError) as e:
        raise RobustDetError(
            f'--overwrite: {path} is not a readable robustdet results file '
            f'({str(e)[:200] or type(e).__name__}), so what was written '
            'for it cannot be told; empty the work dir by hand') from None
    return [path] + [osp.join(work_dir, n) for n in names]


def import_results(paths: Sequence[str],
                   dataset: str,
                   work_dir: str,
                   name: Optional[str] = None,
                   task: Optional[str] = None,
                   overwrite: bool = False) -> Dict[str, Any]:
    """Import result files of one model into ``WORK_DIR/robustness.json``
    (its reports: :func:`robustdet.reports.write_reports`).

    Several files are merged (e.g. one per corruption group); a cell in
    two files must hold the same numbers. Every file is read and checked
    before anything is written.

    Args:
        paths (Sequence[str]): Result files (see :data:`LAYOUTS`).
        dataset (str): ``'coco'``, ``'voc'`` or ``'cityscapes'``.
        work_dir (str): Where to write.
        name (str, optional): The run's name in comparisons (default: the
            work dir's name).
        task (str, optional): Import only ``'bbox'`` or ``'segm'``
            metrics (default: all).
        overwrite (bool): Replace the run of an existing, non-empty work
            dir: its ``robustness.json`` and the reports written for it
            are removed (other files stay).

    Returns:
        dict: The results written.
    """
    if dataset not in DATASETS:
        raise RobustDetError(
            f'--dataset {dataset!r}: choose from {", ".join(DATASETS)}')
    if task is not None and task not in TASKS:
        raise RobustDetError(
            f'--task {task!r}: choose from {", ".join(TASKS)}')
    if not paths:
        raise RobustDetError('give at least one result file')
    if name is not None:
        _text(name, '--name', 'the run name', 2 * MAX_NAME_CHARS)
    replaced = _check_work_dir(work_dir, overwrite)
    grid = _Grid()
    layouts = [_read_into(grid, p, dataset, task) for p in paths]
    if grid.clean is None and not grid.cells:
        raise RobustDetError(f'{", ".join(paths)}: no results in it')
    identity, extra = _identity(paths, layouts)
    imported = dict(
        dataset=dataset,
        task=task,
        files=[
            dict(path=osp.abspath(p), sha256=sha256_file(p), layout=lay)
            for p, lay in zip(paths, layouts)
        ])
    results = new_results(
        identity,
        **extra,
        name=name or grid.source_name or osp.basename(
            osp.normpath(work_dir)),
        imported=imported)
    results['clean'] = grid.clean
    results['cells'] = ordered_cells(grid.cells)
    results['empty_cells'] = sorted(grid.empty)
    per_class = _per_class(grid, layouts)
    if per_class is not None:
        results['per_class'] = per_class
    refresh_summary(results)
    for path in replaced:  # the replaced run's results and reports
        if osp.isfile(path):
            os.remove(path)
    os.makedirs(work_dir, exist_ok=True)
    save_results(results, results_path(work_dir))
    return results
