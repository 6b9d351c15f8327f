# Faster R-CNN R50-FPN on COCO (standard data and schedule) with a ResNet-50
# pre-trained on Stylized-ImageNet (SIN) instead of ImageNet (IN): the
# paper's table 3 (Michaelis et al. 2019). The IN row is
# faster-rcnn_r50_fpn_1x_coco.py; SIN+IN and SIN+IN fine-tuned on IN are
# faster-rcnn_r50-sinin_fpn_1x_coco.py and
# faster-rcnn_r50-sinin-ftin_fpn_1x_coco.py.
#   python tools/train.py configs/stylized/faster-rcnn_r50-sin_fpn_1x_coco.py
#
# Backbone checkpoints: the ResNet-50 models of Geirhos et al. 2019 (see the
# README of github.com/rgeirhos/texture-vs-shape for their download links:
# resnet50_trained_on_SIN, resnet50_trained_on_SIN_and_IN and
# resnet50_trained_on_SIN_and_IN_then_finetuned_on_IN). Save each as
# checkpoints/<model name>.pth.tar (the paths below). Each file is a
# training checkpoint whose 'state_dict' has torchvision ResNet-50 keys
# prefixed with 'module.' (saved from DataParallel); mmengine's Pretrained
# init with prefix='module.' reads 'state_dict', keeps the keys under the
# prefix and strips it (the 'fc.*' keys have no place in the backbone and
# are skipped with a warning). torch >= 2.6 loads with weights_only=True;
# if loading fails with a weights_only ("Unsupported global") error, re-save
# the file once from a trusted session as {'state_dict': <its state_dict>}
# (setting TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 also works, but unpickles
# every checkpoint fully).
_base_ = './faster-rcnn_r50_fpn_1x_coco.py'

model = dict(
    backbone=dict(
        init_cfg=dict(
            type='Pretrained',
            checkpoint='checkpoints/resnet50_trained_on_SIN.pth.tar',
            prefix='module.')))
