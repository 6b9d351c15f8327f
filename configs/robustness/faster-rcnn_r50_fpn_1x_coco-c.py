# Faster R-CNN R50-FPN on COCO-C (bbox AP): mmdet's
# faster-rcnn_r50_fpn_1x_coco.py, composed from the same mmdet parts with
# mmdet's COCO dataset part replaced by the COCO-C one (the test set
# wrapped for corruption, ../_base_/datasets/coco-c_detection.py):
#   python tools/test_robust.py \
#       configs/robustness/faster-rcnn_r50_fpn_1x_coco-c.py \
#       CKPT --corruptions all
_base_ = [
    'mmdet::_base_/models/faster-rcnn_r50_fpn.py',
    '../_base_/datasets/coco-c_detection.py',
    'mmdet::_base_/schedules/schedule_1x.py',
    'mmdet::_base_/default_runtime.py',
]
