# Mask R-CNN R50-FPN on Cityscapes-C (bbox and segm AP):
# mmdet's config with the test set wrapped for corruption:
#   python tools/test_robust.py \
#       configs/robustness/mask-rcnn_r50_fpn_1x_cityscapes-c.py \
#       CKPT --corruptions all
# The wrapper and evaluator are those of
# ../_base_/datasets/cityscapes-c_instance.py, written again: mmdet's
# Cityscapes config adds settings to its parts (8 classes, schedule,
# load_from), so this config inherits it whole and cannot inherit the part
# too (mmengine allows no key, here test_dataloader, in two bases).
_base_ = [
    'mmdet::cityscapes/mask-rcnn_r50_fpn_1x_cityscapes.py',
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
    metric=['bbox', 'segm'])
