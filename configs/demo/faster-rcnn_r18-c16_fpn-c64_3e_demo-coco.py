# The demo detector: the tiny Faster R-CNN trained on the demo data's COCO
# layout (`make demo` trains it; see README.md for its figures).
_base_ = [
    '../_base_/models/faster-rcnn_r18-c16_fpn-c64.py',
    '../_base_/datasets/demo_coco_detection.py',
    '../_base_/schedules/demo_adamw_3e.py',
    '../_base_/custom_imports.py',
]
