# Faster R-CNN R50-FPN on COCO, the "standard" training scheme of Michaelis
# et al. 2019 (clean train2017 images, ImageNet-pretrained backbone):
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_coco.py
# The stylized (scoco) and combined (cocoscoco) configs inherit from this
# one and change only the training set.
_base_ = 'mmdet::faster_rcnn/faster-rcnn_r50_fpn_1x_coco.py'
custom_imports = dict(imports=['robustdet'], allow_failed_imports=False)

# The paper's schedule: 12 epochs, lr 0.01, steps at epochs 8 and 11;
# images resized to short edge 800 (mmdet's scale (1333, 800), kept from
# the base config).
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
# Linear scaling rule: the lr is for a total batch of base_batch_size
# images (mmdet's 8 GPUs x 2 images). tools/train.py has no --auto-scale-lr
# flag; pass `--cfg-options auto_scale_lr.enable=True` and mmengine's Runner
# multiplies the lr by (GPUs x images per GPU) / base_batch_size.
auto_scale_lr = dict(enable=False, base_batch_size=16)
