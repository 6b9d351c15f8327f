# Faster R-CNN R50-FPN for ImageNet VID's 30 classes, tested on every val
# frame under the clip corruptions (codecs, transmission errors, temporal
# and camera perturbations; bbox AP, mPC, rPC, gamma_a / gamma_r):
#   python tools/test_robust.py \
#       configs/robustness/faster-rcnn_r50_fpn_1x_imagenet-vid.py \
#       CKPT --corruptions video
# CKPT: a detector trained on ImageNet VID (+ DET) with this model (mmdet
# ships no VID-trained Faster R-CNN). Clips are 32 consecutive frames of a
# video (--clip-len), each corrupted once.
_base_ = [
    'mmdet::_base_/models/faster-rcnn_r50_fpn.py',
    '../_base_/datasets/imagenet_vid.py',
    'mmdet::_base_/default_runtime.py',
]
model = dict(roi_head=dict(bbox_head=dict(num_classes=30)))
test_cfg = dict(type='TestLoop')
