# Copyright (c) robustdet contributors. All rights reserved.
"""What a detector saw in training: every corruption its training
transforms can apply and whether it saw stylized images, read from a
training config, kept in the checkpoint's ``meta`` and read back.

A detector trained on a corruption is not tested on an unseen one there,
and one trained on the 15 benchmark corruptions makes mPC meaningless.
:class:`~robustdet.engine.TrainingRecordHook` writes the record of a
training run into every checkpoint it saves (``meta['robustdet_training
_record']``), the union of the records of the checkpoints the run
resumed or started from; the test tools read it back from the checkpoint
whatever the test config says (:func:`checkpoint_record`), else from the
training config mmengine stores beside it (``meta['cfg']``, read as data,
never run), else mark the run "training record unknown".
"""
from typing import Any, Dict, Iterable, List, Optional

from ..corruptions import (BENCHMARK_CORRUPTIONS, CORRUPTION_NAMES,
                           resolve_corruptions)
from ..utils.config_text import literal_config
from ..utils.errors import RobustDetError
from ..utils.io import sha256_json
from .transforms.random_corrupt import DEFAULT_TRAIN_CORRUPTIONS

RECORD_KEY = 'robustdet_training_record'
RECORD_FORMAT = 'robustdet.training_record/1'
# Training transforms that corrupt images: robustdet's two and mmdet's.
CORRUPTING = ('RandomCorrupt', 'CorruptImage', 'Corrupt')
# The config parts a training fingerprint covers.
TRAINING_KEYS = ('model', 'train_dataloader', 'train_cfg', 'optim_wrapper',
                 'param_scheduler', 'randomness')
# Where a record came from.
SOURCES = ('checkpoint', 'checkpoint config', 'test config', 'unknown')


def _type_name(kind: Any) -> str:
    """``'Corrupt'`` of ``'mmdet.Corrupt'``, of a class, of its text."""
    return str(getattr(kind, '__name__', kind)).split('.')[-1]


def _step_corruptions(step: Dict[str, Any]) -> List[str]:
    """The corruptions a corrupting step can apply."""
    if _type_name(step.get('type')) == 'RandomCorrupt':
        wanted = step.get('corruptions', DEFAULT_TRAIN_CORRUPTIONS)
        tokens = [wanted] if isinstance(wanted, str) else list(wanted)
        try:
            return list(resolve_corruptions(tokens))
        except RobustDetError:
            return [str(t) for t in tokens]
    return [str(step.get('corruption'))]


def _walk(node: Any, steps: List[Dict[str, Any]],
          kinds: List[str]) -> None:
    if isinstance(node, dict):
        kind = _type_name(node.get('type'))
        if kind in CORRUPTING:
            steps.append(node)
        kinds.append(kind)
        for value in node.values():
            _walk(value, steps, kinds)
    elif isinstance(node, (list, tuple)):
        for value in node:
            _walk(value, steps, kinds)


def make_record(transforms: Iterable[str], corruptions: Iterable[str],
                stylized: bool, source: str,
                config_sha256: Optional[str] = None) -> Dict[str, Any]:
    """A training record: ``format``, ``source``, ``transforms`` (the
    corrupting ones, sorted), ``corruptions`` (table order, unknown names
    after), ``benchmark`` (those among the 15 of mPC), ``stylized`` and
    ``config_sha256`` (the training configs', None where not known)."""
    names = set(corruptions)
    ordered = [n for n in CORRUPTION_NAMES if n in names] + sorted(
        names - set(CORRUPTION_NAMES))
    return dict(
        format=RECORD_FORMAT,
        source=source,
        transforms=sorted(set(transforms)),
        corruptions=ordered,
        benchmark=[n for n in ordered if n in BENCHMARK_CORRUPTIONS],
        stylized=bool(stylized),
        config_sha256=config_sha256)


def record_of_config(cfg: Dict[str, Any], source: str,
                     config_sha256: Optional[str] = None) -> Dict[str, Any]:
    """The record of a config's training dataloader.

    Args:
        cfg (dict): The config as plain data (``Config.to_dict()``, or
            :func:`~robustdet.utils.config_text.literal_config`).
        source (str): One of :data:`SOURCES`.
        config_sha256 (str, optional): The config's fingerprint.

    Returns:
        dict: The record (:func:`make_record`).
    """
    steps: List[Dict[str, Any]] = []
    kinds: List[str] = []
    _walk(cfg.get('train_dataloader'), steps, kinds)
    return make_record([_type_name(s.get('type')) for s in steps],
                       [n for s in steps for n in _step_corruptions(s)],
                       'StylizedDataset' in kinds, source, config_sha256)


def unknown_record() -> Dict[str, Any]:
    """The record of a checkpoint that says nothing of its training."""
    return make_record((), (), False, 'unknown')


def merge_records(*records: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The union of records (None ones skipped): what any of them saw.
    The source is the first known one's; the fingerprints are joined."""
    records = [r for r in records if r]
    if not records:
        return unknown_record()
    known = [r for r in records if r['source'] != 'unknown']
    prints = [r['config_sha256'] for r in records if r.get('config_sha256')]
    return make_record(
        [t for r in records for t in r['transforms']],
        [c for r in records for c in r['corruptions']],
        any(r['stylized'] for r in records),
        known[0]['source'] if known else 'unknown',
        ','.join(dict.fromkeys(prints)) or None)


def check_record(record: Any, where: str) -> Dict[str, Any]:
    """``record`` if it is a well-formed training record.

    Args:
        record: What a checkpoint holds under :data:`RECORD_KEY`.
        where (str): Where it was read from, for the message.

    Returns:
        dict: The record.

    Raises:
        RobustDetError: One line naming the malformed key.
    """
    if not isinstance(record, dict):
        raise RobustDetError(
            f'{where}: malformed training record: {RECORD_KEY!r} is a '
            f'{type(record).__name__}, not a dict')
    if record.get('format') != RECORD_FORMAT:
        raise RobustDetError(
            f"{where}: malformed training record: key 'format' is "
            f'{record.get("format")!r}, not {RECORD_FORMAT!r}')
    for key in ('transforms', 'corruptions', 'benchmark'):
        value = record.get(key)
        if not isinstance(value, list) or not all(
                isinstance(v, str) for v in value):
            raise RobustDetError(
                f'{where}: malformed training record: key {key!r} is not '
                'a list of names')
    if not isinstance(record.get('stylized'), bool):
        raise RobustDetError(
            f"{where}: malformed training record: key 'stylized' is not "
            'a bool')
    if record.get('source') not in SOURCES:
        raise RobustDetError(
            f"{where}: malformed training record: key 'source' is "
            f'{record.get("source")!r}, not one of {", ".join(SOURCES)}')
    sha = record.get('config_sha256')
    if sha is not None and not isinstance(sha, str):
        raise RobustDetError(
            f"{where}: malformed training record: key 'config_sha256' is "
            'not a string')
    return make_record(record['transforms'], record['corruptions'],
                       record['stylized'], record['source'], sha)


def checkpoint_record(checkpoint: Dict[str, Any],
                      path: str) -> Dict[str, Any]:
    """What a loaded checkpoint says its model was trained on: its record
    (``source`` ``'checkpoint'``), else the record of the training config
    mmengine saved in it (``'checkpoint config'``), else
    :func:`unknown_record`.

    Args:
        checkpoint (dict): The checkpoint, loaded safely
            (:func:`robustdet.utils.checkpoint.load_checkpoint_file`).
        path (str): Its path, for messages.

    Returns:
        dict: The record.

    Raises:
        RobustDetError: The record is malformed (one line naming the key).
    """
    meta = checkpoint.get('meta')
    if not isinstance(meta, dict):
        return unknown_record()
    if RECORD_KEY in meta:
        return dict(check_record(meta[RECORD_KEY], f'{path}: meta'),
                    source='checkpoint')
    text = meta.get('cfg')
    if isinstance(text, str):
        try:
            return record_of_config(literal_config(text),
                                    'checkpoint config')
        except RobustDetError:
            return unknown_record()
    return unknown_record()


def training_fingerprint(cfg: Dict[str, Any]) -> str:
    """SHA-256 of the config parts that decide what a model learns: the
    model, the training dataloader, loop, optimizer, schedule and
    randomness.

    Args:
        cfg (dict): The config as plain data.

    Returns:
        str: The hex digest.
    """
    return sha256_json({k: cfg.get(k) for k in TRAINING_KEYS})
