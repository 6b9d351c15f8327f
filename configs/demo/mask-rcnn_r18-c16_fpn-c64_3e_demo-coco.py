# The demo detector with a mask head, on the demo data's COCO layout
# (bbox and segm AP).
_base_ = [
    '../_base_/models/mask-rcnn_r18-c16_fpn-c64.py',
    '../_base_/datasets/demo_coco_instance.py',
    '../_base_/schedules/demo_adamw_3e.py',
    '../_base_/custom_imports.py',
]
