# The COCO schedule of Michaelis et al. 2019: mmdet's 1x schedule (SGD,
# 12 epochs, linear warm-up over 500 iterations, lr x0.1 after epochs 8
# and 11) at lr 0.01.
# Linear scaling rule: the lr is for a total batch of base_batch_size
# images (mmdet's 8 GPUs x 2 images; auto_scale_lr from mmdet's 1x
# schedule). tools/train.py has no --auto-scale-lr flag; pass
# `--cfg-options auto_scale_lr.enable=True` and mmengine's Runner
# multiplies the lr by (GPUs x images per GPU) / base_batch_size.
_base_ = 'mmdet::_base_/schedules/schedule_1x.py'

max_epochs = 12
train_cfg = dict(max_epochs=max_epochs)
param_scheduler = [
    dict(
        type='LinearLR', start_factor=0.001, by_epoch=False, begin=0, end=500),
    dict(
        type='MultiStepLR',
        begin=0,
        end=max_epochs,
        by_epoch=True,
        milestones=[8, 11],
        gamma=0.1)
]
optim_wrapper = dict(optimizer=dict(lr=0.01))
