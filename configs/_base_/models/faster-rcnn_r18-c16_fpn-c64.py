# A tiny, real Faster R-CNN: ResNet-18 with 16 base channels (stages of
# 16/32/64/128 channels) and a 64-channel FPN, for 3 classes, trained from
# scratch (nothing frozen, BN statistics updated). Small enough to train on
# a 2-core CPU in minutes.
_base_ = 'mmdet::_base_/models/faster-rcnn_r50_fpn.py'

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
        bbox_head=dict(in_channels=64, fc_out_channels=256, num_classes=3)),
    # 300 proposals per image at test time, as in the Faster R-CNN paper
    # (mmdet's COCO recipe keeps 1,000): the demo images hold a few
    # objects, and the RoI head on 1,000 proposals was half of the
    # model's time in `make demo`.
    test_cfg=dict(rpn=dict(max_per_img=300)))
