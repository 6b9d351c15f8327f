# Copyright (c) robustdet contributors. All rights reserved.
"""Each config concept is written in one place and inherited from there,
and every leaf config takes its detector from an mmdet:: base.

Reads the config sources (no mmengine): a concept counts where a file's code
writes it, not where a comment names it. mmengine resolves
``{{_base_.xxx}}`` only against the bases of the file that writes it, and
allows no top-level key in two bases of one file; so a wrapper around a
dataset is written once per config whose dataset it wraps, and a part can be
shared only by configs composed of parts, not by configs that inherit a
whole mmdet config which adds settings to its parts (VOC, Cityscapes).
"""
import ast
import glob
import os.path as osp

import pytest

from tests.conftest import REPO

CONFIGS = osp.join(REPO, 'configs')


def _is_name(node, name):
    return isinstance(node, ast.Name) and node.id == name


def _assigns(name):
    """The file assigns the top-level variable ``name``."""

    def match(tree):
        return any(
            isinstance(node, ast.Assign) and any(
                _is_name(t, name) for t in node.targets)
            for node in tree.body)

    return match


def _string(value):
    """The file's code holds the string ``value`` (e.g. a type name)."""

    def match(tree):
        return any(
            isinstance(node, ast.Constant) and node.value == value
            for node in ast.walk(tree))

    return match


def _keyword(name, value):
    """The file passes ``name=value`` (a literal) somewhere."""

    def match(tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == name:
                try:
                    if ast.literal_eval(node.value) == value:
                        return True
                except ValueError:  # not a literal, e.g. [max_epochs - 1]
                    pass
        return False

    return match


def _any(*matchers):
    return lambda tree: any(match(tree) for match in matchers)


# concept: (what writing it looks like, the files that may write it)
CONCEPTS = {
    'custom_imports': (_assigns('custom_imports'),
                       ['_base_/custom_imports.py']),
    # The paper's COCO schedule: 12 epochs, steps after epochs 8 and 11.
    'schedule_1x_lr0.01': (_keyword('milestones', [8, 11]),
                           ['_base_/schedules/schedule_1x_lr0.01.py']),
    # The demo schedule: AdamW after a warm-up from 1% of the lr.
    'demo_schedule': (_any(
        _string('AdamW'), _keyword('start_factor', 0.01)),
                      ['_base_/schedules/demo_adamw_3e.py']),
    # The -C test set wrapper: the four -C dataset parts (the COCO-C
    # configs are composed of mmdet's parts and the COCO-C part), and the
    # configs that inherit mmdet's whole VOC and Cityscapes configs.
    'CorruptedDataset': (_string('CorruptedDataset'), [
        '_base_/datasets/cityscapes-c_instance.py',
        '_base_/datasets/coco-c_detection.py',
        '_base_/datasets/coco-c_instance.py',
        '_base_/datasets/pascal-c.py',
        'robustness/faster-rcnn_r50_fpn_1x_cityscapes-c.py',
        'robustness/faster-rcnn_r50_fpn_1x_voc0712-c.py',
        'robustness/mask-rcnn_r50_fpn_1x_cityscapes-c.py',
    ]),
    # The stylized training set and the clean + stylized concatenation:
    # one of each per training set (COCO boxes, COCO masks, VOC07+12,
    # Cityscapes boxes, Cityscapes masks, the demo data), each written in
    # the config that inherits the one whose training set it wraps.
    'StylizedDataset': (_string('StylizedDataset'), [
        'demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-scoco.py',
        'stylized/faster-rcnn_r50_fpn_1x_scity.py',
        'stylized/faster-rcnn_r50_fpn_1x_scoco.py',
        'stylized/faster-rcnn_r50_fpn_1x_svoc0712.py',
        'stylized/mask-rcnn_r50_fpn_1x_scity.py',
        'stylized/mask-rcnn_r50_fpn_1x_scoco.py',
    ]),
    'ConcatDataset': (_string('ConcatDataset'), [
        'demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-cocoscoco.py',
        'stylized/faster-rcnn_r50_fpn_1x_cityscity.py',
        'stylized/faster-rcnn_r50_fpn_1x_cocoscoco.py',
        'stylized/faster-rcnn_r50_fpn_1x_vocsvoc0712.py',
        'stylized/mask-rcnn_r50_fpn_1x_cityscity.py',
        'stylized/mask-rcnn_r50_fpn_1x_cocoscoco.py',
    ]),
    # Training with image corruptions: the transform and its hook, in the
    # part every robust-training config inherits (they insert it by
    # reference).
    'RandomCorrupt': (_any(_string('RandomCorrupt'),
                           _string('RandomCorruptHook')),
                      ['_base_/random_corrupt.py']),
}


def _sources():
    """{path relative to configs/: parsed source} of every config file."""
    paths = glob.glob(osp.join(CONFIGS, '**', '*.py'), recursive=True)
    trees = {}
    for path in paths:
        with open(path, encoding='utf-8') as f:
            trees[osp.relpath(path, CONFIGS)] = ast.parse(f.read(), path)
    return trees


def _bases(path):
    """The ``_base_`` entries of the config file at ``path``."""
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                _is_name(t, '_base_') for t in node.targets):
            bases = ast.literal_eval(node.value)
            return [bases] if isinstance(bases, str) else list(bases)
    return []


def _chain(path):
    """([path and its local bases, recursively], [their mmdet:: bases])."""
    local, mmdet = [path], []
    for base in _bases(path):
        if base.startswith('mmdet::'):
            mmdet.append(base)
        else:
            sub_local, sub_mmdet = _chain(
                osp.normpath(osp.join(osp.dirname(path), base)))
            local += sub_local
            mmdet += sub_mmdet
    return local, mmdet


def _writes_model(path):
    """A top-level ``model = dict(type=...)``: a detector written here."""
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read(), path)
    return any(
        isinstance(node, ast.Assign) and any(
            _is_name(t, 'model') for t in node.targets)
        and isinstance(node.value, ast.Call) and any(
            k.arg == 'type' for k in node.value.keywords)
        for node in tree.body)


LEAVES = sorted(glob.glob(osp.join(CONFIGS, '[!_]*', '*.py')))
# Benchmark instruments, not detectors: robustdet's ReplayDetector.
INSTRUMENTS = ('benchmarks/replay_coco-scale.py', )


@pytest.mark.parametrize('concept', list(CONCEPTS))
def test_concept_is_written_once(concept):
    match, expected = CONCEPTS[concept]
    writers = sorted(
        rel for rel, tree in _sources().items() if match(tree))
    assert writers == sorted(expected)


@pytest.mark.parametrize(
    'leaf', LEAVES, ids=lambda p: osp.relpath(p, CONFIGS))
def test_detector_comes_from_mmdet(leaf):
    local, mmdet = _chain(leaf)
    if osp.relpath(leaf, CONFIGS) in INSTRUMENTS:
        assert [p for p in local if _writes_model(p)] == [leaf]
        with open(leaf, encoding='utf-8') as f:
            assert "type='ReplayDetector'" in f.read()
        return
    # An mmdet model part, or a whole mmdet model config.
    models = [
        b for b in mmdet if b.startswith('mmdet::_base_/models/')
        or not b.startswith('mmdet::_base_/')
    ]
    assert models, f'no mmdet:: model among the bases: {mmdet}'
    assert not [p for p in local if _writes_model(p)]
