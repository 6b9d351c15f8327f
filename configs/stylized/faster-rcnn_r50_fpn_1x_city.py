# Faster R-CNN R50-FPN on Cityscapes train, the "standard" training scheme of
# Michaelis et al. 2019 (clean images):
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_city.py
# As in mmdet's base config, the whole detector starts from mmdet's COCO
# model (load_from, downloaded on first use). The stylized (scity) and
# combined (cityscity) configs inherit from this one and change only what
# the RepeatDataset repeats.
_base_ = [
    'mmdet::cityscapes/faster-rcnn_r50_fpn_1x_cityscapes.py',
    '../_base_/custom_imports.py',
]

# The paper's schedule: 64 epochs, lr 0.0025, one step at epoch 48;
# training short edge sampled in 800-1024 (the base's RandomResize between
# (2048, 800) and (2048, 1024)), testing at short edge 1024 (2048, 1024).
# The base repeats the training set 8 times per epoch (RepeatDataset,
# times=8), so 8 epochs here are 64 passes over the data and the step
# after epoch 6 is the step after pass 48.
max_epochs = 8
train_cfg = dict(max_epochs=max_epochs)
param_scheduler = [
    dict(
        type='LinearLR', start_factor=0.001, by_epoch=False, begin=0, end=500),
    dict(
        type='MultiStepLR',
        begin=0,
        end=max_epochs,
        by_epoch=True,
        milestones=[6],
        gamma=0.1)
]
optim_wrapper = dict(optimizer=dict(lr=0.0025))
# Linear scaling rule: the lr is for a total batch of base_batch_size
# images (8 GPUs x 2 images, as for COCO and VOC; auto_scale_lr from
# mmdet's 1x schedule, which the base inherits; mmdet's Cityscapes loader
# puts 1 image on each GPU). tools/train.py has no --auto-scale-lr flag;
# pass `--cfg-options auto_scale_lr.enable=True` and mmengine's Runner
# multiplies the lr by (GPUs x images per GPU) / base_batch_size.
