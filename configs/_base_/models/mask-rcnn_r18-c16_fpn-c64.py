# The tiny Faster R-CNN of faster-rcnn_r18-c16_fpn-c64.py with mmdet's Mask
# R-CNN mask head, at 64 channels.
_base_ = 'mmdet::_base_/models/mask-rcnn_r50_fpn.py'

model = dict(
    backbone=dict(
        depth=18,
        base_channels=16,
        frozen_stages=-1,
        norm_eval=False,
        init_cfg=None),
    neck=dict(in_channels=[16, 32, 64, 128], out_channels=64),
    rpn_head=dict(in_channels=64, feat_channels=64),
    roi_head=dict(
        bbox_roi_extractor=dict(out_channels=64),
        bbox_head=dict(in_channels=64, fc_out_channels=256, num_classes=3),
        mask_roi_extractor=dict(out_channels=64),
        mask_head=dict(
            in_channels=64, conv_out_channels=64, num_classes=3)))
