# Copyright (c) robustdet contributors. All rights reserved.
"""mmengine's test loop, watched for a stuck main thread: the loop of
``tools/test_shift.py`` (a split) and ``tools/test_pmk.py``, as
:class:`~robustdet.engine.runner.PassRunner` is for ``test_robust.py``."""
from typing import Any, Dict

from mmdet.registry import LOOPS
from mmengine.runner import TestLoop

from ...utils.watchdog import progress_begin, progress_idle, progress_tick

# The loop types :func:`watched_test_cfg` replaces.
PLAIN_TEST_LOOPS = ('TestLoop', 'mmengine.TestLoop')


@LOOPS.register_module()
class WatchedTestLoop(TestLoop):
    """mmengine's ``TestLoop`` that tells the distributed watchdog of its
    progress (:func:`robustdet.utils.watchdog.progress_begin`): a step after
    every batch, none due while the metrics are computed and the ranks
    gather. On a launched run, a rank whose main thread then makes no
    step for ``--dist-stall-timeout`` seconds (or 4 times its slowest
    batch) stops the others; without a launcher it is mmengine's loop.

    Args:
        *args: ``TestLoop``'s.
        **kwargs: ``TestLoop``'s.
    """

    def run(self) -> Dict[str, Any]:
        """Run the loop (mmengine's), watched."""
        progress_begin()
        try:
            return super().run()
        finally:
            progress_idle()

    def run_iter(self, idx: int, data_batch: Any) -> None:
        """Run a batch (mmengine's), then mark the step; after the last
        batch no step is due (the evaluation and its collective wait
        follow, however long)."""
        super().run_iter(idx, data_batch)
        progress_tick()
        if idx + 1 >= len(self.dataloader):
            progress_idle()


def watched_test_cfg(test_cfg: Dict[str, Any]) -> Dict[str, Any]:
    """The test loop config with :class:`WatchedTestLoop` in place of
    mmengine's plain ``TestLoop`` (another loop type is kept as it is).

    Args:
        test_cfg (dict): A config's ``test_cfg``.

    Returns:
        dict: A copy where changed.
    """
    if (test_cfg or {}).get('type', 'TestLoop') not in PLAIN_TEST_LOOPS:
        return test_cfg
    return dict(test_cfg or {}, type='WatchedTestLoop')
