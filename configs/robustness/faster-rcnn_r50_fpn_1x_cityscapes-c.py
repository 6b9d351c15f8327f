# Faster R-CNN R50-FPN on Cityscapes-C (bbox AP):
# mmdet's config with the test set wrapped for corruption:
#   python tools/test_robust.py \
#       configs/robustness/faster-rcnn_r50_fpn_1x_cityscapes-c.py \
#       CKPT --corruptions all
# The wrapper is the one of the -C dataset parts in ../_base_/datasets/,
# written again: mmdet's Cityscapes config adds settings to its parts (8
# classes, schedule, load_from), so this config inherits it whole and
# cannot inherit a dataset part too (mmengine allows no key, here
# test_dataloader, in two bases).
_base_ = [
    'mmdet::cityscapes/faster-rcnn_r50_fpn_1x_cityscapes.py',
    '../_base_/custom_imports.py',
]

test_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='CorruptedDataset',
        corruption='gaussian_noise',
        severity=3,
        seed=0,
        dataset={{_base_.test_dataloader.dataset}}))
# COCO-style AP as in the paper (no official Cityscapes metric here).
test_evaluator = dict(
    _delete_=True,
    type='CocoMetric',
    ann_file='data/cityscapes/annotations/'
    'instancesonly_filtered_gtFine_val.json',
    metric='bbox')
