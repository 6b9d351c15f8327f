# Copyright (c) robustdet contributors. All rights reserved.
"""What the detector under test saw in training, for the results.

The checkpoint says it (:func:`robustdet.datasets.training_record.
checkpoint_record`: its own record, else the training config mmengine
stored beside the weights, else "unknown"); the test config's training
pipelines add what they hold, so a mark is never lost whichever config
the run is tested with. ``test_robust.py`` and ``test_shift.py`` store
the result as ``training_corruptions``; every report and comparison
shows the warning of :func:`robustdet.evaluation.functional.run_results.
training_warning` beside the run.
"""
from typing import Any, Dict

from ..datasets.training_record import (checkpoint_record, merge_records,
                                        record_of_config)


def training_corruptions(cfg: Any) -> Dict[str, Any]:
    """The record of a config's training pipelines (``source``
    ``'test config'``).

    Args:
        cfg (mmengine.Config): A full config (its ``train_dataloader``).

    Returns:
        dict: The record
        (:func:`robustdet.datasets.training_record.make_record`).
    """
    return record_of_config(cfg.to_dict(), 'test config')


def run_training_record(checkpoint: Dict[str, Any], path: str,
                        cfg: Any) -> Dict[str, Any]:
    """What the tested detector saw in training: the checkpoint's record
    with whatever the test config's training pipelines add.

    Args:
        checkpoint (dict): The loaded checkpoint.
        path (str): Its path, for messages.
        cfg (mmengine.Config): The test config.

    Returns:
        dict: The record; ``source`` is where it came from
        (``'checkpoint'``, ``'checkpoint config'``, ``'test config'`` or
        ``'unknown'``).

    Raises:
        RobustDetError: The checkpoint's record is malformed.
    """
    own = checkpoint_record(checkpoint, path)
    tested = training_corruptions(cfg)
    if not tested['transforms'] and not tested['stylized']:
        return own
    return merge_records(own, tested)
