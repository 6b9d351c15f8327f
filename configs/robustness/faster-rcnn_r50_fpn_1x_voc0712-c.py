# Faster R-CNN R50-FPN on PASCAL-C (the paper's PASCAL VOC model):
# mmdet's voc0712 config with the test set wrapped for corruption:
#   python tools/test_robust.py \
#       configs/robustness/faster-rcnn_r50_fpn_1x_voc0712-c.py \
#       CKPT --corruptions all
# The wrapper is the one of ../_base_/datasets/pascal-c.py, written again:
# mmdet's voc0712 config adds settings to its parts (20 classes, VOC's
# schedule), so this config inherits it whole and cannot inherit
# pascal-c.py too (mmengine allows no key, here test_dataloader, in two
# bases).
_base_ = [
    'mmdet::pascal_voc/faster-rcnn_r50_fpn_1x_voc0712.py',
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
