# Copyright (c) robustdet contributors. All rights reserved.
"""The pieces of several cells per data pass: planning, the (pass, image)
dataset, the batch sampler, the collate function and the progress hook."""
import os

import pytest
import torch
from mmengine.dataset import pseudo_collate
from mmengine.structures import InstanceData

from robustdet.corruptions.grid import plan_passes
from robustdet.engine import (DecodedOnce, GridDataset, GridProgressHook,
                              PassBatchSampler, PassCollate, PassRunner,
                              metrics_ignore_order, resolve_collate_fn)

CELLS = [('clean', 0), ('fog', 1), ('fog', 2), ('snow', 1), ('snow', 2)]


def test_batch_sampler_never_mixes_passes():
    sampler = PassBatchSampler(3, 5, 2, rank=0, world_size=1)
    batches = list(sampler)
    assert len(batches) == len(sampler) == 3 * sampler.batches_per_pass == 9
    assert batches[:3] == [[0, 1], [2, 3], [4]]
    assert batches[3:6] == [[5, 6], [7, 8], [9]]
    assert {i // 5 for b in batches for i in b if b[0] // 5 != i // 5} == set()


@pytest.mark.parametrize('num_images', range(1, 12))
@pytest.mark.parametrize('batch_size', [1, 2, 3])
@pytest.mark.parametrize('world_size', [1, 2, 3, 5])
def test_batch_sampler_ranks_take_whole_batches(num_images, batch_size,
                                                world_size):
    """Each rank takes a consecutive run of the batches of one process
    (every image in the batch it has on one process), the runs as even as
    whole batches allow, rank 0 first; every pass alike."""
    one = list(PassBatchSampler(2, num_images, batch_size, rank=0,
                                world_size=1))
    per_pass = len(one) // 2
    samplers = [
        PassBatchSampler(2, num_images, batch_size, rank=r,
                         world_size=world_size) for r in range(world_size)
    ]
    ranks = [list(sampler) for sampler in samplers]
    for p in range(2):
        runs = [r[p * len(r) // 2:(p + 1) * len(r) // 2] for r in ranks]
        assert [b for run in runs for b in run] == \
            one[p * per_pass:(p + 1) * per_pass]
        assert max(map(len, runs)) - min(map(len, runs)) <= 1
        assert [len(run) for run in runs] == sorted(map(len, runs),
                                                    reverse=True)
    # Every rank knows every rank's images per pass (for the evaluation).
    for sampler in samplers:
        assert sampler.counts == [sum(map(len, r)) // 2 for r in ranks]


class _Multi:
    """Stands in for a MultiCorruptedDataset; says which process made
    each sample."""

    def __len__(self):
        return 4

    @property
    def metainfo(self):
        return dict(classes=('a', ))

    def get(self, idx, cells):
        return [
            dict(image=idx, cell=f'{c[0]}/{c[1]}', pid=os.getpid())
            for c in cells
        ]


def test_one_loader_for_all_passes_keeps_its_workers():
    passes = plan_passes(CELLS, 2)
    dataset = GridDataset(_Multi(), passes)
    assert len(dataset) == 3 * 4 and dataset.metainfo['classes'] == ('a', )
    sampler = PassBatchSampler(len(passes), 4, 3, rank=0, world_size=1)
    loader = torch.utils.data.DataLoader(
        dataset, batch_sampler=sampler, num_workers=2,
        collate_fn=PassCollate(pseudo_collate))
    batches = list(loader)
    assert [b['pass_index'] for b in batches] == [0, 0, 1, 1, 2, 2]
    pids = set()
    for batch in batches:
        cells = passes[batch['pass_index']]
        assert len(batch['cells']) == len(cells)
        for cell, data in zip(cells, batch['cells']):
            # One batch per cell, collated by the config's function.
            assert data['cell'] == [f'{cell[0]}/{cell[1]}'] * len(
                data['image'])
            pids.update(data['pid'])
    assert [i for b in batches[:2] for i in b['cells'][0]['image']] == [
        0, 1, 2, 3
    ]
    # The same two worker processes served every pass.
    assert len(pids) == 2 and os.getpid() not in pids


def test_grid_dataset_first_images_only():
    passes = plan_passes(CELLS, 3)
    grid = GridDataset(_Multi(), passes, num_images=3)
    assert grid.num_images == 3 and len(grid) == 6
    assert grid[4][0] == 1 and grid[4][1][0]['image'] == 1
    assert GridDataset(_Multi(), passes, num_images=9).num_images == 4


def test_collate_refuses_mixed_passes():
    with pytest.raises(AssertionError, match='mixes passes'):
        PassCollate(pseudo_collate)([(0, [1]), (1, [2])])


def test_resolve_collate_fn():
    assert resolve_collate_fn(None)([1, 2]) == pseudo_collate([1, 2])
    assert resolve_collate_fn(dict(type='pseudo_collate'))([3]) == [3]
    assert resolve_collate_fn(len)([1, 2]) == 2


def _outputs(n):
    sample = InstanceData(bboxes=torch.zeros(n, 4))

    class Out:
        pred_instances = sample

    return [Out()]


def test_progress_counts_per_cell():
    hook = GridProgressHook(CELLS, interval=1e9)
    hook.start_pass(CELLS[:2], 3)
    assert hook.line().startswith(
        '[robustness] cells 1-2/5 (clean, fog/1) | batches 0/15')
    for _ in range(3):
        hook.set_cell(CELLS[0])
        hook.after_test_iter(None, 0, outputs=_outputs(2))
        hook.set_cell(CELLS[1])
        hook.after_test_iter(None, 0, outputs=_outputs(0))
    assert hook.predictions == {CELLS[0]: 6, CELLS[1]: 0}
    assert hook.cell_predictions == 0
    hook.start_cell(CELLS[4], 3)
    assert hook.done == 12 and hook.eta() is not None
    assert '] cell 5/5 (snow/2) | batches 12/15' in hook.line()
    hook.after_test_iter(None, 0, outputs=_outputs(1))
    assert hook.cell_predictions == 1


class _Decoded:
    metainfo = dict(classes=('a', ))

    def __len__(self):
        return 3

    def __getitem__(self, idx):
        return dict(image=idx, inputs=torch.full((2, ), idx))


def test_device_corruption_decodes_once_per_pass():
    """Backend torch: one decoded sample per image serves every cell of a
    pass; each cell but the last gets its own copy of the batch."""
    dataset = DecodedOnce(_Decoded())
    assert len(dataset) == 3 and dataset.metainfo == _Decoded.metainfo
    passes = plan_passes(CELLS[:3], 3)
    grid = GridDataset(dataset, passes)
    batch = PassCollate(pseudo_collate)([grid[0], grid[1]])
    assert len(batch['cells']) == 1
    assert batch['cells'][0]['image'] == [0, 1]

    runner = PassRunner.__new__(PassRunner)
    runner.device_corrupter = object()
    batches = batch['cells']
    first = runner._cell_batch(batches, 0, 3)
    assert first is not batches[0] and first['image'] == [0, 1]
    assert torch.equal(first['inputs'][1], batches[0]['inputs'][1])
    assert first['inputs'][1] is not batches[0]['inputs'][1]
    assert runner._cell_batch(batches, 2, 3) is batches[0]
    runner.device_corrupter = None
    assert runner._cell_batch(['a', 'b'], 1, 2) == 'b'


@pytest.mark.parametrize('evaluator, ignore', [
    (dict(type='CocoMetric', ann_file='a.json'), True),
    (dict(type='mmdet.CocoMetric', metric=['bbox', 'segm']), True),
    ([dict(type='FastCocoMetric'), dict(type='PMKMetric')], True),
    (dict(metrics=[dict(type='CocoMetric')]), True),
    (dict(type='CocoMetric', metric='proposal_fast'), False),
    (dict(type='VOCMetric'), False),
    ([dict(type='CocoMetric'), dict(type='VOCMetric')], False),
])
def test_metrics_ignore_order(evaluator, ignore):
    """Clip runs split frames into blocks per rank only where the metrics
    score by image id (the collected order then differs from the
    dataset's)."""
    assert metrics_ignore_order(evaluator) is ignore
