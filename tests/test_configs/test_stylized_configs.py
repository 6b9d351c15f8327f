# Copyright (c) robustdet contributors. All rights reserved.
"""The standard / stylized / combined training configs of Michaelis et al.
2019: each trio differs only in its training set, the stylized and
combined sets wrap exactly the standard one, the schedules are the
paper's, and the Stylized-ImageNet backbones load from texture-vs-shape
checkpoints."""
import copy
import glob
import os.path as osp

import pytest
import torch

from tests.conftest import REPO
from tests.test_configs import load_config

STYLIZED = osp.join(REPO, 'configs', 'stylized')
DEMO = osp.join(REPO, 'configs', 'demo')
CONFIGS = sorted(glob.glob(osp.join(STYLIZED, '*.py')))

# (standard, stylized, combined config prefix + tags, stylized root,
# RepeatDataset times or None)
FAMILIES = [
    ('faster-rcnn_r50_fpn_1x_', ('coco', 'scoco', 'cocoscoco'),
     'data/coco-stylized/', None),
    ('mask-rcnn_r50_fpn_1x_', ('coco', 'scoco', 'cocoscoco'),
     'data/coco-stylized/', None),
    ('faster-rcnn_r50_fpn_1x_', ('voc0712', 'svoc0712', 'vocsvoc0712'),
     'data/VOCdevkit-stylized/', 3),
    ('faster-rcnn_r50_fpn_1x_', ('city', 'scity', 'cityscity'),
     'data/cityscapes-stylized/', 8),
    ('mask-rcnn_r50_fpn_1x_', ('city', 'scity', 'cityscity'),
     'data/cityscapes-stylized/', 8),
]
FAMILY_IDS = [prefix + tags[0] for prefix, tags, _, _ in FAMILIES]

SIN = {
    'sin': 'checkpoints/resnet50_trained_on_SIN.pth.tar',
    'sinin': 'checkpoints/resnet50_trained_on_SIN_and_IN.pth.tar',
    'sinin-ftin': 'checkpoints/'
    'resnet50_trained_on_SIN_and_IN_then_finetuned_on_IN.pth.tar',
}


def _load(name, folder=STYLIZED):
    """A config (cached: deep-copy it before changing it)."""
    return load_config(osp.join(folder, name + '.py'))


def _trio(prefix, tags, folder=STYLIZED):
    return [_load(prefix + tag, folder) for tag in tags]


def _unrepeat(dataset, times):
    """The dataset a RepeatDataset of ``times`` repeats (or ``dataset``
    itself when ``times`` is None)."""
    if times is None:
        assert dataset['type'] != 'RepeatDataset'
        return dataset
    assert dataset['type'] == 'RepeatDataset'
    assert dataset['times'] == times
    return dataset['dataset']


def _without_train_set(cfg):
    d = copy.deepcopy(cfg.to_dict())
    del d['train_dataloader']['dataset']
    return d


def _check_schemes(standard, stylized, combined, root, times):
    clean = _unrepeat(standard.train_dataloader.dataset, times)
    assert clean['type'] != 'StylizedDataset'
    styl = _unrepeat(stylized.train_dataloader.dataset, times)
    assert styl == dict(
        type='StylizedDataset', stylized_root=root, dataset=clean)
    comb = _unrepeat(combined.train_dataloader.dataset, times)
    assert comb['type'] == 'ConcatDataset'
    assert comb['datasets'] == [clean, styl]
    # Everything but the training set is the same: model, schedule,
    # runtime, the loader's batch/sampler, val/test sets and evaluators.
    for cfg in (stylized, combined):
        assert _without_train_set(cfg) == _without_train_set(standard)


def test_every_config_is_covered():
    names = {
        prefix + tag
        for prefix, tags, _, _ in FAMILIES for tag in tags
    } | {f'faster-rcnn_r50-{n}_fpn_1x_coco' for n in SIN}
    assert {osp.basename(p)[:-3] for p in CONFIGS} == names


@pytest.mark.parametrize('family', FAMILIES, ids=FAMILY_IDS)
def test_trio_differs_only_in_train_set(family):
    prefix, tags, root, times = family
    _check_schemes(*_trio(prefix, tags), root, times)


def test_voc_combined_keeps_voc0712_concat():
    standard, _, combined = _trio('faster-rcnn_r50_fpn_1x_',
                                  ('voc0712', 'svoc0712', 'vocsvoc0712'))
    clean = standard.train_dataloader.dataset.dataset
    assert clean['type'] == 'ConcatDataset'
    assert [d['ann_file'] for d in clean['datasets']] == [
        'VOC2007/ImageSets/Main/trainval.txt',
        'VOC2012/ImageSets/Main/trainval.txt'
    ]
    comb = combined.train_dataloader.dataset.dataset
    assert comb['ignore_keys'] == ['dataset_type']


def _resize_scales(pipeline):
    return [(t['type'], t['scale']) for t in pipeline
            if 'Resize' in t['type']]


def _train_pipelines(dataset):
    if 'pipeline' in dataset:
        return [dataset['pipeline']]
    inner = dataset.get('datasets', [dataset.get('dataset')])
    return [p for d in inner if d for p in _train_pipelines(d)]


# (standard config, passes over the data, lr, steps in passes, train
# resizes, test resize, warm-up)
SCHEDULES = [
    ('faster-rcnn_r50_fpn_1x_coco', 12, 0.01, [8, 11],
     [('Resize', (1333, 800))], (1333, 800), True),
    ('mask-rcnn_r50_fpn_1x_coco', 12, 0.01, [8, 11],
     [('Resize', (1333, 800))], (1333, 800), True),
    ('faster-rcnn_r50_fpn_1x_voc0712', 12, 0.00125, [9],
     [('Resize', (1000, 600))], (1000, 600), False),
    ('faster-rcnn_r50_fpn_1x_city', 64, 0.0025, [48],
     [('RandomResize', [(2048, 800), (2048, 1024)])], (2048, 1024), True),
    ('mask-rcnn_r50_fpn_1x_city', 64, 0.0025, [48],
     [('RandomResize', [(2048, 800), (2048, 1024)])], (2048, 1024), True),
]


@pytest.mark.parametrize('schedule', SCHEDULES, ids=lambda s: s[0])
def test_paper_schedule(schedule):
    name, passes, lr, steps, train_resize, test_scale, warmup = schedule
    cfg = _load(name)
    dataset = cfg.train_dataloader.dataset
    times = dataset['times'] if dataset['type'] == 'RepeatDataset' else 1
    epochs = cfg.train_cfg.max_epochs
    assert cfg.train_cfg.type == 'EpochBasedTrainLoop'
    assert epochs * times == passes
    assert cfg.optim_wrapper.optimizer.type == 'SGD'
    assert cfg.optim_wrapper.optimizer.lr == lr
    step = cfg.param_scheduler[-1]
    assert step['type'] == 'MultiStepLR' and step['by_epoch']
    assert step['end'] == epochs and step['gamma'] == 0.1
    assert [m * times for m in step['milestones']] == steps
    assert (cfg.param_scheduler[0]['type'] == 'LinearLR') == warmup
    assert len(cfg.param_scheduler) == 1 + warmup
    assert cfg.auto_scale_lr == dict(enable=False, base_batch_size=16)
    for pipeline in _train_pipelines(dataset):
        assert _resize_scales(pipeline) == train_resize
    assert _resize_scales(cfg.test_dataloader.dataset.pipeline) == [
        ('Resize', test_scale)
    ]
    assert cfg.test_dataloader.dataset.data_root.startswith('data/')
    assert 'stylized' not in cfg.test_dataloader.dataset.data_root


@pytest.mark.parametrize('name', list(SIN))
def test_sin_backbones(name):
    cfg = copy.deepcopy(_load(f'faster-rcnn_r50-{name}_fpn_1x_coco'))
    standard = _load('faster-rcnn_r50_fpn_1x_coco')
    assert cfg.model.backbone.init_cfg == dict(
        type='Pretrained', checkpoint=SIN[name], prefix='module.')
    assert standard.model.backbone.init_cfg.checkpoint == (
        'torchvision://resnet50')
    # Only the backbone's initialisation differs from the IN model.
    cfg.model.backbone.init_cfg = standard.model.backbone.init_cfg
    assert cfg.to_dict() == standard.to_dict()


def test_sin_checkpoint_format_loads(tmp_path):
    """A checkpoint in the texture-vs-shape format (an ImageNet training
    checkpoint of 2019 torch: legacy serialization, DataParallel keys of a
    torchvision ResNet-50 under 'state_dict', plus training fields) loads
    into the backbone through the SIN config's init_cfg, with torch's
    default weights_only loading."""
    from mmdet.registry import MODELS
    backbone_cfg = copy.deepcopy(
        _load('faster-rcnn_r50-sin_fpn_1x_coco').model.backbone)
    # mmdet's ResNet uses torchvision's parameter names; the checkpoint's
    # weights are random, BN statistics included.
    torch.manual_seed(1)
    source = MODELS.build(dict(type='ResNet', depth=50))
    weights = {}
    for key, value in source.state_dict().items():
        if value.is_floating_point():
            value = torch.randn_like(value)
            if key.endswith('running_var'):
                value = value.abs() + 0.5
        weights[key] = value
    for key in ('conv1.weight', 'bn1.running_mean', 'layer1.0.conv1.weight',
                'layer1.0.downsample.0.weight',
                'layer1.0.downsample.1.weight', 'layer4.2.bn3.weight'):
        assert key in weights
    assert len(weights) == 318  # torchvision's 320 less fc.weight/bias
    state_dict = {f'module.{k}': v for k, v in weights.items()}
    state_dict['module.fc.weight'] = torch.randn(1000, 2048)
    state_dict['module.fc.bias'] = torch.randn(1000)
    path = str(tmp_path / 'resnet50_trained_on_SIN.pth.tar')
    optimizer = dict(
        state={},
        param_groups=[
            dict(lr=0.001, momentum=0.9, weight_decay=1e-4, params=[0, 1])
        ])
    torch.save(
        dict(
            epoch=60,
            arch='resnet50',
            state_dict=state_dict,
            best_prec1=torch.tensor(76.0),
            optimizer=optimizer),
        path,
        _use_new_zipfile_serialization=False)

    backbone_cfg.init_cfg.checkpoint = path
    torch.manual_seed(2)
    backbone = MODELS.build(backbone_cfg)
    before = backbone.state_dict()['conv1.weight'].clone()
    backbone.init_weights()
    loaded = backbone.state_dict()
    assert set(loaded) == set(weights)
    assert not torch.equal(before, weights['conv1.weight'])
    for key, value in weights.items():
        assert torch.equal(loaded[key], value), key


def test_demo_schemes():
    standard, stylized, combined = _trio(
        'faster-rcnn_r18-c16_fpn-c64_3e_demo-', ('coco', 'scoco',
                                                 'cocoscoco'), DEMO)
    _check_schemes(standard, stylized, combined, 'data/demo/stylized/coco/',
                   None)
    assert combined.train_cfg.max_epochs == 3
