# The demo detector on the demo data's PASCAL VOC layout (VOC metric, AP50),
# the PASCAL-C setting. A checkpoint trained on the COCO layout can be
# tested here: the classes are the same, in the same order.
_base_ = [
    '../_base_/models/faster-rcnn_r18-c16_fpn-c64.py',
    '../_base_/datasets/demo_voc.py',
    '../_base_/schedules/demo_adamw_3e.py',
    '../_base_/custom_imports.py',
]
