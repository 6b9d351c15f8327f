# Copyright (c) robustdet contributors. All rights reserved.
import copy

import pytest
import torch
from mmdet.registry import DATASETS

from robustdet.datasets import (CorruptedDataset, MultiCellPipeline,
                                MultiCorruptedDataset)
from robustdet.utils import RobustDetError
from robustdet.utils.cli import load_config
from tests.conftest import REPO, replace_data_root

CELLS = [('clean', 0), ('gaussian_noise', 2), ('fog', 1), ('contrast', 5)]


def _dataset_cfg(demo_dir, layout='coco_instance'):
    cfg = load_config(
        f'{REPO}/configs/_base_/datasets/demo_{layout}.py')
    cfg = replace_data_root(cfg, demo_dir)
    return copy.deepcopy(cfg.test_dataloader.dataset.to_dict())


def _same_sample(a, b):
    assert torch.equal(a['inputs'], b['inputs'])
    sa, sb = a['data_samples'], b['data_samples']
    assert sa.metainfo == sb.metainfo
    boxes_a, boxes_b = sa.gt_instances.bboxes, sb.gt_instances.bboxes
    assert torch.equal(getattr(boxes_a, 'tensor', boxes_a),
                       getattr(boxes_b, 'tensor', boxes_b))
    assert torch.equal(sa.gt_instances.labels, sb.gt_instances.labels)


@pytest.mark.parametrize('layout', ['coco_instance', 'voc'])
def test_samples_equal_one_cell_datasets(demo_dir, layout):
    multi = DATASETS.build(
        dict(type='MultiCorruptedDataset', cells=CELLS, seed=4,
             dataset=_dataset_cfg(demo_dir, layout)))
    assert isinstance(multi, MultiCorruptedDataset)
    singles = [
        DATASETS.build(_dataset_cfg(demo_dir, layout)) if s == 0 else
        CorruptedDataset(_dataset_cfg(demo_dir, layout), n, s, seed=4)
        for n, s in CELLS
    ]
    assert len(multi) == len(singles[0]) > 0
    assert multi.metainfo == singles[0].metainfo
    for i in range(len(multi)):
        samples = multi[i]
        assert len(samples) == len(CELLS)
        for sample, single in zip(samples, singles):
            _same_sample(sample, single[i])
        # The cells really differ from each other.
        assert not torch.equal(samples[0]['inputs'], samples[1]['inputs'])
    # A subset, in another order, gives the same samples.
    sub = multi.get(1, [CELLS[2], CELLS[0]])
    _same_sample(sub[0], singles[2][1])
    _same_sample(sub[1], singles[0][1])


def test_image_loaded_once_per_item(demo_dir):
    multi = MultiCorruptedDataset(_dataset_cfg(demo_dir), CELLS)
    pipeline = multi.dataset.pipeline
    assert isinstance(pipeline, MultiCellPipeline)
    assert [type(t).__name__ for t in pipeline.head] == ['LoadImageFromFile']
    calls = []
    loader = pipeline.head[0]
    pipeline.head[0] = lambda data: calls.append(1) or loader(data)
    assert len(multi[0]) == len(CELLS)
    assert len(calls) == 1


def test_bad_cells_and_double_corruption(demo_dir):
    with pytest.raises(RobustDetError, match="unknown corruption 'fgo'"):
        MultiCorruptedDataset(_dataset_cfg(demo_dir), [('fgo', 1)])
    with pytest.raises(RobustDetError, match='out of range'):
        MultiCorruptedDataset(_dataset_cfg(demo_dir), [('fog', 6)])
    with pytest.raises(RobustDetError, match='repeated cells'):
        MultiCorruptedDataset(_dataset_cfg(demo_dir), [('fog', 1)] * 2)
    multi = MultiCorruptedDataset(_dataset_cfg(demo_dir), CELLS[:2])
    with pytest.raises(RobustDetError, match='already corrupts'):
        CorruptedDataset(multi.dataset, 'snow', 1)
    with pytest.raises(KeyError, match='not among'):
        multi.get(0, [('fog', 1)])
