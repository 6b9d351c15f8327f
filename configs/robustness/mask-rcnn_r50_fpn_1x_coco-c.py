# Mask R-CNN R50-FPN on COCO-C (bbox and segm AP): mmdet's
# mask-rcnn_r50_fpn_1x_coco.py, composed from the same mmdet parts with
# mmdet's COCO dataset part replaced by the COCO-C one (the test set
# wrapped for corruption, ../_base_/datasets/coco-c_instance.py):
#   python tools/test_robust.py \
#       configs/robustness/mask-rcnn_r50_fpn_1x_coco-c.py \
#       CKPT --corruptions all
_base_ = [
    'mmdet::_base_/models/mask-rcnn_r50_fpn.py',
    '../_base_/datasets/coco-c_instance.py',
    'mmdet::_base_/schedules/schedule_1x.py',
    'mmdet::_base_/default_runtime.py',
]
