# The tiny demo detector (12 epochs here) on the synthetic BDD100k tree
# (make_demo_data.py --bdd100k: 320x180 frames with every weather and
# time-of-day value, the split lists in data/demo/bdd100k/splits), trained
# on the clear-weather train frames and tested on the clear / rainy /
# snowy val subsets:
#   python tools/train.py \
#       configs/demo/faster-rcnn_r18-c16_fpn-c64_12e_demo-bdd100k-clear.py \
#       --work-dir work_dirs/demo/train-bdd100k-clear
#   python tools/test_shift.py \
#       configs/demo/faster-rcnn_r18-c16_fpn-c64_12e_demo-bdd100k-clear.py \
#       work_dirs/demo/train-bdd100k-clear/epoch_12.pth \
#       --benchmark bdd100k-weather --split-dir data/demo/bdd100k/splits
_base_ = [
    '../_base_/models/faster-rcnn_r18-c16_fpn-c64.py',
    '../_base_/datasets/bdd100k_detection.py',
    '../_base_/schedules/demo_adamw_3e.py',
    '../_base_/custom_imports.py',
]

data_root = 'data/demo/bdd100k/'
img_size = (180, 320)  # (h, w) of the synthetic frames (BDD: 720x1280)
model = dict(roi_head=dict(bbox_head=dict(num_classes=10)))
train_dataloader = dict(
    batch_size=8,
    dataset=dict(
        data_root=data_root,
        img_size=img_size,
        filter_cfg=dict(filter_empty_gt=True, min_size=4),
        pipeline=[
            dict(type='LoadImageFromFile'),
            dict(type='LoadAnnotations', with_bbox=True),
            dict(type='Resize', scale=(320, 180), keep_ratio=True),
            dict(type='RandomFlip', prob=0.5),
            dict(type='PackDetInputs')
        ]))
test_dataloader = dict(
    batch_size=8,
    dataset=dict(
        data_root=data_root,
        img_size=img_size,
        pipeline=[
            dict(type='LoadImageFromFile'),
            dict(type='Resize', scale=(320, 180), keep_ratio=True),
            dict(type='LoadAnnotations', with_bbox=True),
            dict(
                type='PackDetInputs',
                meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                           'scale_factor', 'instances'))
        ]))
val_dataloader = test_dataloader
# 10 classes of small objects learn slower than the 3 demo shapes: the
# demo schedule stretched to 12 epochs (~270 iterations), same warm-up,
# lr x0.1 after epoch 10 (_base_.xxx reads the merged bases, as
# {{_base_.xxx}} does).
max_epochs = 12
train_cfg = dict(max_epochs=max_epochs, val_interval=max_epochs)
param_scheduler = [
    _base_.param_scheduler[0],
    dict(_base_.param_scheduler[1], end=max_epochs, milestones=[10]),
]
