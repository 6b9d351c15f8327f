# Copyright (c) robustdet contributors. All rights reserved.
"""Build an mmengine Runner for testing with a safely loaded checkpoint."""
from typing import Any, Dict, Optional

from mmengine.runner import Runner

from ..models.roi_align import use_fast_roi_align
from ..utils.checkpoint import load_checkpoint_file, load_checkpoint_to_runner
from ..utils.config_text import format_once

# Parts of a config a test run does not build.
_TRAIN_VAL_KEYS = ('train_dataloader', 'train_cfg', 'optim_wrapper',
                   'param_scheduler', 'val_dataloader', 'val_cfg',
                   'val_evaluator')


def build_test_runner(cfg: Any,
                      checkpoint: str,
                      work_dir: str,
                      launcher: str = 'none',
                      unsafe_load: bool = False,
                      loaded: Optional[Dict[str, Any]] = None):
    """A Runner for ``cfg``'s test loop with ``checkpoint`` loaded through
    robustdet's safe loader (mmengine's own loading is switched off).

    Args:
        cfg (mmengine.Config): The config (not modified).
        checkpoint (str): Checkpoint path.
        work_dir (str): The runner's work dir.
        launcher (str): mmengine launcher.
        unsafe_load (bool): Fully unpickle the checkpoint.
        loaded (dict, optional): The checkpoint, if the caller already
            loaded it with :func:`load_checkpoint_file` (to fail fast
            before anything else is built).

    The model's mmcv RoIAlign layers are swapped for
    :class:`~robustdet.models.roi_align.FastRoIAlign`: identical outputs,
    several times faster on a CPU.

    Returns:
        mmengine.runner.Runner: The runner, checkpoint loaded.
    """
    if loaded is None:
        loaded = load_checkpoint_file(checkpoint, unsafe=unsafe_load)
    cfg = format_once(cfg)  # a copy; yapf runs once, not four times
    cfg.work_dir = work_dir
    cfg.launcher = launcher
    cfg.load_from = None
    cfg.resume = False
    for key in _TRAIN_VAL_KEYS:
        cfg[key] = None
    runner = Runner.from_cfg(cfg)
    load_checkpoint_to_runner(runner, checkpoint, checkpoint=loaded)
    swapped = use_fast_roi_align(runner.model)
    if swapped:
        runner.logger.info(f"{swapped} RoIAlign layer(s) use robustdet's "
                           'faster CPU kernel (outputs identical to mmcv)')
    return runner
