# Schedule of the tiny demo detectors: AdamW, 3 epochs, batch 8, validation
# only at the end; mmdet's default runtime.
_base_ = 'mmdet::_base_/default_runtime.py'

max_epochs = 3
train_cfg = dict(
    type='EpochBasedTrainLoop', max_epochs=max_epochs, val_interval=max_epochs)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
param_scheduler = [
    dict(type='LinearLR', start_factor=0.01, by_epoch=False, begin=0,
         end=50),
    dict(
        type='MultiStepLR',
        begin=0,
        end=max_epochs,
        by_epoch=True,
        milestones=[max_epochs - 1],
        gamma=0.1)
]
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=2e-3, weight_decay=0.05),
    clip_grad=dict(max_norm=10, norm_type=2))
# lr 2e-3 is for batch 8 (1 process x 8 images); linear scaling rule.
auto_scale_lr = dict(enable=False, base_batch_size=8)

default_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(type='CheckpointHook', interval=1, max_keep_ckpts=1))
log_processor = dict(window_size=10)
randomness = dict(seed=0)
