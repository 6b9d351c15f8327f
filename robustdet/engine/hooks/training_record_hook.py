# Copyright (c) robustdet contributors. All rights reserved.
"""The hook that writes what a model was trained on into its
checkpoints."""
from typing import Any, Dict, List, Optional, Sequence

from mmdet.registry import HOOKS
from mmengine.hooks import Hook

from ...datasets.training_record import (RECORD_KEY, checkpoint_record,
                                         merge_records, record_of_config,
                                         training_fingerprint)
from .hook_list import with_hook


@HOOKS.register_module()
class TrainingRecordHook(Hook):
    """Write the training record
    (:mod:`robustdet.datasets.training_record`) into every checkpoint
    the run saves, under ``meta['robustdet_training_record']``: every
    corruption the training pipelines can apply (``RandomCorrupt``,
    ``CorruptImage``, mmdet's ``Corrupt``), whether the training set holds
    stylized images, and the training config's fingerprint.

    The record is the union of the run's own and those of the checkpoints
    it resumed or started from (``resume``, ``load_from``), so resuming
    with another pipeline keeps what the earlier epochs saw. A loaded
    checkpoint that records nothing adds nothing. ``tools/train.py`` adds
    the hook to every training run.
    """

    priority = 'VERY_LOW'

    def __init__(self) -> None:
        self._loaded: List[Dict[str, Any]] = []
        self._own: Optional[Dict[str, Any]] = None

    def after_load_checkpoint(self, runner, checkpoint: dict) -> None:
        """Keep the record of a checkpoint the run resumes or starts
        from."""
        record = checkpoint_record(checkpoint, 'the loaded checkpoint')
        if record['source'] != 'unknown':
            self._loaded.append(record)

    def record(self, runner) -> Dict[str, Any]:
        """The record this run writes (its config's part read once: the
        config does not change while the run trains)."""
        if self._own is None:
            cfg = runner.cfg.to_dict()
            self._own = record_of_config(cfg, 'checkpoint',
                                         training_fingerprint(cfg))
        return merge_records(self._own, *self._loaded)

    def before_save_checkpoint(self, runner, checkpoint: dict) -> None:
        """Write the record into the checkpoint's ``meta``."""
        checkpoint.setdefault('meta', {})[RECORD_KEY] = self.record(runner)


def with_training_record(
        hooks: Optional[Sequence[Any]]) -> List[Any]:
    """``custom_hooks`` with a :class:`TrainingRecordHook` (added once).

    Args:
        hooks (Sequence, optional): A config's ``custom_hooks``.

    Returns:
        list: The hooks.
    """
    return with_hook(hooks, TrainingRecordHook)
