# Faster R-CNN R50-FPN on COCO, the "standard" training scheme of Michaelis
# et al. 2019 (clean train2017 images, ImageNet-pretrained backbone):
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_coco.py
# mmdet's faster-rcnn_r50_fpn_1x_coco.py (the same mmdet parts) with the
# paper's schedule in place of mmdet's 1x: 12 epochs, lr 0.01, steps at
# epochs 8 and 11 (../_base_/schedules/schedule_1x_lr0.01.py); images
# resized to short edge 800 (mmdet's scale (1333, 800)). The stylized
# (scoco) and combined (cocoscoco) configs inherit from this one and
# change only the training set.
_base_ = [
    'mmdet::_base_/models/faster-rcnn_r50_fpn.py',
    'mmdet::_base_/datasets/coco_detection.py',
    '../_base_/schedules/schedule_1x_lr0.01.py',
    'mmdet::_base_/default_runtime.py',
    '../_base_/custom_imports.py',
]
