# The demo detector (trained on the demo COCO layout; same classes in the
# same order as the demo Cityscapes layout) evaluated on the demo
# Cityscapes val and its synthetic Foggy Cityscapes copy (make_demo_data.py
# --foggy), bbox AP:
#   python tools/test_shift.py \
#       configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-foggy-cityscapes.py \
#       work_dirs/demo/train/epoch_3.pth --benchmark foggy-cityscapes
_base_ = [
    '../_base_/models/faster-rcnn_r18-c16_fpn-c64.py',
    '../_base_/datasets/demo_cityscapes_instance.py',
    '../_base_/schedules/demo_adamw_3e.py',
    '../_base_/custom_imports.py',
]

test_dataloader = dict(
    dataset=dict(
        type='FoggyCityscapesDataset',
        beta=None,
        foggy_prefix='leftImg8bit_foggy/val/'))
test_evaluator = dict(metric='bbox')
