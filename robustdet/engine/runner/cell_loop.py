# Copyright (c) robustdet contributors. All rights reserved.
"""Cells one at a time through the config's own test loop."""
import time
from typing import List

from mmengine.registry import LOOPS

from ...corruptions.grid import Cell
from ...models import find_corrupting_preprocessor
from .base import BaseGridRunner, CellResult, real_metrics
from .cell_datasets import cell_dataloader_cfg


class CellLoopRunner(BaseGridRunner):
    """Evaluate each cell with the loop its ``test_cfg`` names, for test
    loops other than mmengine's ``TestLoop`` (which :class:`PassRunner`
    replaces): the loop is built per cell on that cell's dataloader
    (:func:`cell_dataloader_cfg`) and run as it is, one cell per pass.

    One evaluator serves every cell (the loop's ``evaluate`` clears it),
    or a new one per cell when the ground truth comes from the pipeline.
    When the model's data preprocessor corrupts (backend ``'torch'``), it
    is set to the cell first.

    Args:
        runner (Runner): The runner (model loaded).
        job (RobustnessJob): The job (seed, backend, channel order, clip
            settings, ground truth).
        dl_cfg (dict): The test dataloader config of the clean cell.
        test_cfg (dict): The test loop config; its ``type`` is the loop.
        evaluator_cfg (dict | list): The test evaluator config.
        record (Callable[[list[CellResult]], None]): Takes each finished
            cell.
        show (ShowHook, optional): Draws the chosen images of every cell.
    """

    def run_passes(self, passes: List[List[Cell]]) -> None:
        """Evaluate the cells of the passes one by one."""
        evaluator = self.runner.build_evaluator(self.evaluator_cfg)
        for cells in passes:
            for cell in cells:
                if self.fresh_evaluators:
                    evaluator = self.runner.build_evaluator(
                        self.evaluator_cfg)
                self._run_cell(cell, evaluator)

    def _run_cell(self, cell: Cell, evaluator) -> None:
        runner = self.runner
        loop = LOOPS.build(
            self.test_cfg,
            default_args=dict(
                runner=runner,
                dataloader=cell_dataloader_cfg(self.dl_cfg, cell, self.job),
                evaluator=evaluator))
        if self.job.corrupts_on_device:
            preprocessor = find_corrupting_preprocessor(runner.model)
            assert preprocessor is not None, 'the model does not corrupt'
            preprocessor.set_cell(*cell)
        self.progress.start_cell(cell, len(loop.dataloader))
        self.set_cell(cell)
        start = time.perf_counter()
        metrics = real_metrics(loop.run())
        seconds = time.perf_counter() - start
        self.done([
            CellResult(cell, metrics, seconds, self.progress.cell_predictions)
        ])
