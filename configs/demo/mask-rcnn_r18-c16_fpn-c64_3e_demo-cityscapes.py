# The demo detector with a mask head on the demo data's Cityscapes layout
# (COCO-format annotations, bbox and segm AP), the Cityscapes-C setting.
# Its labels (car, truck, bus) are the demo classes in the same order, so a
# checkpoint trained on the COCO layout can be tested here.
_base_ = [
    '../_base_/models/mask-rcnn_r18-c16_fpn-c64.py',
    '../_base_/datasets/demo_cityscapes_instance.py',
    '../_base_/schedules/demo_adamw_3e.py',
    '../_base_/custom_imports.py',
]
