# A tiny, real Faster R-CNN for the robustdet demo data: ResNet-18 with 16
# base channels (stages of 16/32/64/128 channels), a 64-channel FPN, trained
# from scratch with AdamW on 320x240 images. It trains on a 2-core CPU in a
# few minutes (see README for the measured time and AP).
_base_ = [
    'mmdet::_base_/models/faster-rcnn_r50_fpn.py',
    '../_base_/datasets/demo_coco_detection.py',
    '../_base_/schedules/demo_adamw_3e.py',
]
custom_imports = dict(imports=['robustdet'], allow_failed_imports=False)

model = dict(
    backbone=dict(
        depth=18,
        base_channels=16,
        # Trained from scratch: nothing frozen, BN statistics updated.
        frozen_stages=-1,
        norm_eval=False,
        init_cfg=None),
    neck=dict(in_channels=[16, 32, 64, 128], out_channels=64),
    rpn_head=dict(in_channels=64, feat_channels=64),
    roi_head=dict(
        bbox_roi_extractor=dict(out_channels=64),
        bbox_head=dict(in_channels=64, fc_out_channels=256, num_classes=3)))
