# Copyright (c) robustdet contributors. All rights reserved.
"""The hook that tells the distributed watchdog of a training's
progress, as :class:`~robustdet.engine.runner.WatchedTestLoop` does for
the test tools."""
from typing import Any, List, Optional, Sequence

from mmdet.registry import HOOKS
from mmengine.hooks import Hook

from ...utils.watchdog import progress_begin, progress_idle, progress_tick
from .hook_list import with_hook


@HOOKS.register_module()
class WatchdogHook(Hook):
    """Mark every training iteration as a step of the watchdog
    (:func:`robustdet.utils.watchdog.progress_begin`); an epoch's first
    iteration is timed but not watched, and validation and checkpoint
    saving are no steps (they take as long as they take).

    On a launched run, a rank whose main thread then finishes no
    iteration for ``--dist-stall-timeout`` seconds (or 4 times its
    slowest iteration) stops the others; a rank that waits for it inside
    an iteration's collective stops in turn. Without a launcher it does
    nothing. Its priority runs it before the checkpoint hook.
    """

    priority = 'VERY_HIGH'

    def before_train_epoch(self, runner: Any) -> None:
        # An epoch's first iteration may start dataloader workers: timed,
        # not watched.
        progress_begin()

    def after_train_iter(self,
                         runner: Any,
                         batch_idx: int,
                         data_batch: Any = None,
                         outputs: Optional[dict] = None) -> None:
        progress_tick()

    def before_save_checkpoint(self, runner: Any, checkpoint: dict) -> None:
        progress_idle()

    def before_val(self, runner: Any) -> None:
        progress_idle()

    def after_val(self, runner: Any) -> None:
        progress_begin()

    def after_train(self, runner: Any) -> None:
        progress_idle()


def with_watchdog(hooks: Optional[Sequence[Any]]) -> List[Any]:
    """``custom_hooks`` with a :class:`WatchdogHook` (added once).

    Args:
        hooks (Sequence, optional): A config's ``custom_hooks``.

    Returns:
        list: The hooks.
    """
    return with_hook(hooks, WatchdogHook)
