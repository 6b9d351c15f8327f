# Faster R-CNN R50-FPN on PASCAL VOC 2007+2012 trainval, the "standard"
# training scheme of Michaelis et al. 2019 (clean images, ImageNet-pretrained
# backbone):
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_voc0712.py
# The stylized (svoc0712) and combined (vocsvoc0712) configs inherit from
# this one and change only what the RepeatDataset repeats.
_base_ = [
    'mmdet::pascal_voc/faster-rcnn_r50_fpn_1x_voc0712.py',
    '../_base_/custom_imports.py',
]

# The paper's schedule: 12 epochs, lr 0.00125, one step at epoch 9; images
# resized to short edge 600 (mmdet's scale (1000, 600), kept from the base
# config). The base repeats VOC07+12 3 times per epoch (RepeatDataset,
# times=3), so 4 epochs here are 12 passes over the data and the step
# after epoch 3 is the step after pass 9.
max_epochs = 4
train_cfg = dict(max_epochs=max_epochs)
param_scheduler = [
    dict(
        type='MultiStepLR',
        begin=0,
        end=max_epochs,
        by_epoch=True,
        milestones=[3],
        gamma=0.1)
]
optim_wrapper = dict(optimizer=dict(lr=0.00125))
# Linear scaling rule: the lr is for a total batch of base_batch_size
# images (mmdet's 8 GPUs x 2 images; auto_scale_lr from the base config).
# tools/train.py has no --auto-scale-lr flag; pass
# `--cfg-options auto_scale_lr.enable=True` and mmengine's Runner
# multiplies the lr by (GPUs x images per GPU) / base_batch_size.
