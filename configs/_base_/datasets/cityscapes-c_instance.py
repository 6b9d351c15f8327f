# Cityscapes-C (Michaelis et al. 2019): Cityscapes val (COCO-format
# annotations from mmdet's cityscapes converter) under one image corruption,
# bbox and segm AP with COCO's evaluation, single test scale 2048x1024. See
# pascal-c.py for how to pick the cell.
_base_ = [
    'mmdet::_base_/datasets/cityscapes_instance.py',
    '../custom_imports.py',
]

test_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='CorruptedDataset',
        corruption='gaussian_noise',
        severity=3,
        seed=0,
        dataset={{_base_.test_dataloader.dataset}}))
# The paper reports COCO-style AP; the official Cityscapes metric is left
# out of the test evaluator (it stays in val_evaluator for training).
test_evaluator = dict(
    _delete_=True,
    type='CocoMetric',
    ann_file='data/cityscapes/annotations/'
    'instancesonly_filtered_gtFine_val.json',
    metric=['bbox', 'segm'])
