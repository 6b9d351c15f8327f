# Faster R-CNN R50-FPN on COCO with a ResNet-50 pre-trained on
# Stylized-ImageNet and ImageNet together, then fine-tuned on ImageNet
# (SIN+IN -> IN), the paper's table 3. Download and checkpoint format: see
# faster-rcnn_r50-sin_fpn_1x_coco.py.
#   python tools/train.py \
#       configs/stylized/faster-rcnn_r50-sinin-ftin_fpn_1x_coco.py
_base_ = './faster-rcnn_r50-sin_fpn_1x_coco.py'

model = dict(
    backbone=dict(
        init_cfg=dict(
            checkpoint='checkpoints/'
            'resnet50_trained_on_SIN_and_IN_then_finetuned_on_IN.pth.tar')))
