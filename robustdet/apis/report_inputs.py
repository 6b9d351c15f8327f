# Copyright (c) robustdet contributors. All rights reserved.
"""What a file given to ``tools/robustness_report.py`` is: a robustdet
robustness, shift or pm-k result (read), or something else, named in a
one-line error (a COCO annotation file, an mmdet metrics dump or results
pickle, another robustdet file...)."""
import json
import os
import os.path as osp
import re
from typing import Any, Dict, Optional

from ..corruptions import CORRUPTION_NAMES
from ..evaluation.functional.comparison import FORMAT as COMPARE_FORMAT
from ..evaluation.functional.run_results import run_name
from ..reports.html import KIND_WORDS, ReportRun
from ..utils.errors import RobustDetError
from .results import FORMAT as ROBUSTNESS_FORMAT
from .shift import FORMAT as SHIFT_FORMAT

# A pm-k report (robustdet.evaluation.functional.pmk_report) has no
# format entry; it holds these keys.
PMK_KEYS = ('map', 'delta', 'localization', 'classification',
            'error_vs_offset', 'counts')
# The files the robustdet tools write, by kind.
RESULT_FILES = dict(
    robustness='robustness.json', shift='shift.json', pmk='pmk.json')
# mmdet metric keys at the top level of a JSON (``coco/bbox_mAP``...).
_METRIC_KEY = re.compile(r'^[A-Za-z_]+/[A-Za-z0-9_.]+$')
_SHOWN_KEYS = 8
# The format of each kind with a format entry, and the entry it needs.
_NEEDS = dict(
    robustness=(ROBUSTNESS_FORMAT, 'cells'), shift=(SHIFT_FORMAT, 'summary'))


def _keys(obj: Dict[str, Any]) -> str:
    keys = [str(k) for k in obj]
    text = ', '.join(keys[:_SHOWN_KEYS])
    if len(keys) > _SHOWN_KEYS:
        text += f' (and {len(keys) - _SHOWN_KEYS} more)'
    return text


def _is_detections(obj: Any) -> bool:
    return bool(obj) and all(
        isinstance(d, dict) and {'image_id', 'category_id', 'score'} <= set(d)
        for d in obj[:20])


def what_is(obj: Any) -> str:
    """What a JSON value that is not a robustdet result is, in words
    that follow "x.json is ..." (with a hint where one helps).

    Args:
        obj: The loaded JSON.

    Returns:
        str: The description.
    """
    if isinstance(obj, list):
        if _is_detections(obj):
            return ('a COCO-style detection results list (image_id, '
                    'category_id, score...), not a robustdet result: '
                    'tools/test_robust.py scores a model into '
                    'robustness.json')
        return f'a JSON list of {len(obj)} items, not a robustdet result'
    if not isinstance(obj, dict):
        return (f'a JSON {type(obj).__name__}, not a robustdet result '
                '(which is an object)')
    if not obj:
        return 'an empty JSON object, not a robustdet result'
    fmt = obj.get('format')
    if fmt == COMPARE_FORMAT:
        return ('a robustdet comparison (compare.json of '
                "tools/compare_results.py), not a run: give the runs' "
                'robustness.json files')
    for kind, (known, key) in _NEEDS.items():
        if fmt == known:
            return (f'a damaged robustdet {KIND_WORDS[kind]} result (its '
                    f'{key!r} entry is missing or not an object)')
    if isinstance(fmt, str) and fmt.startswith('robustdet'):
        return (f'a robustdet file of format {fmt!r}, not a robustness, '
                'shift or pm-k result this version reads '
                f'({ROBUSTNESS_FORMAT}, {SHIFT_FORMAT})')
    if fmt is not None:
        return f'a file of format {fmt!r}, not a robustdet result'
    if {'images', 'annotations', 'categories'} <= set(obj):
        return ('a COCO annotation file (images, annotations, categories), '
                'not a robustdet result')
    metric_keys = [k for k in obj if _METRIC_KEY.match(str(k))]
    if metric_keys and len(metric_keys) >= len(obj) / 2:
        shown = _keys(dict.fromkeys(metric_keys))
        return (f'an mmdet test metrics dump ({shown}), not a robustdet '
                'result: tools/test_robust.py scores the clean and '
                'corrupted test sets into robustness.json')
    names = set(CORRUPTION_NAMES) | {'clean'}
    if all(str(k) in names for k in obj):
        return ("results per corruption of another tool (mmdet's "
                'test_robustness.py layout), not a robustdet result: '
                'import them first with tools/import_results.py')
    return f'not a robustdet result: a JSON object with the keys {_keys(obj)}'


def _kind(obj: Any) -> Optional[str]:
    if not isinstance(obj, dict):
        return None
    fmt = obj.get('format')
    for kind, (known, key) in _NEEDS.items():
        if fmt == known and isinstance(obj.get(key), dict):
            return kind
    if (fmt is None or 'pmk' in str(fmt)) and all(k in obj
                                                  for k in PMK_KEYS):
        return 'pmk'
    return None


def _read(path: str) -> Any:
    """The JSON in ``path``, or a one-line error saying what it is."""
    if osp.isdir(path):
        found = [
            n for n in RESULT_FILES.values()
            if osp.isfile(osp.join(path, n))
        ]
        hint = (f': give {" or ".join(osp.join(path, n) for n in found)}'
                if found else '')
        raise RobustDetError(f'{path} is a directory{hint}')
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except FileNotFoundError:
        raise RobustDetError(f'results file not found: {path}') from None
    except OSError as e:
        raise RobustDetError(f'{path} cannot be read: {e}') from None
    if data[:1] == b'\x80' and data[1:2] in (b'\x02', b'\x03', b'\x04',
                                             b'\x05'):
        raise RobustDetError(
            f'{path} is a Python pickle (such as the results pickle of '
            "mmdet's test_robustness.py or test.py --out), not a robustdet "
            'result JSON: import it first with tools/import_results.py')
    if not data.strip():
        raise RobustDetError(f'{path} is empty, not a robustdet result')
    try:
        return json.loads(data.decode('utf-8'))
    except (UnicodeDecodeError, ValueError) as e:
        raise RobustDetError(
            f'{path} is not JSON ({str(e).splitlines()[0]}), not a '
            'robustdet result') from None


def load_run(path: str, name: Optional[str] = None) -> ReportRun:
    """Read a robustness, shift or pm-k result.

    Args:
        path (str): The JSON.
        name (str, optional): Its name on the page (default:
            :func:`~robustdet.evaluation.functional.run_results.run_name`).

    Returns:
        ReportRun: The run.

    Raises:
        RobustDetError: If the file is missing, not JSON or not a
            robustdet result (the message says what it is).
    """
    path = os.fspath(path)
    obj = _read(path)
    kind = _kind(obj)
    if kind is None:
        raise RobustDetError(f'{path} is {what_is(obj)}')
    if kind == 'robustness' and obj.get('summary') is None:
        obj = dict(obj, summary={})
    return ReportRun(kind, name or run_name(obj, path), path, obj)


def require_robustness(run: ReportRun) -> None:
    """A one-line error unless ``run`` is a robustness run, for the
    report tool's Markdown mode (its other kinds have pages only)."""
    if run.kind == 'robustness':
        return
    writer = dict(shift='tools/test_shift.py', pmk='tools/test_pmk.py or '
                  'tools/eval_pmk.py')[run.kind]
    raise RobustDetError(
        f'{run.path} is a robustdet {KIND_WORDS[run.kind]} result, not a '
        f'robustness run: use --html for its page ({writer} wrote its '
        'Markdown beside it)')
