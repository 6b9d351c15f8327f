# Faster R-CNN R50-FPN on Cityscapes + Stylized Cityscapes trained with
# image corruptions: the combined scheme of
# ../stylized/faster-rcnn_r50_fpn_1x_cityscity.py (make the stylized copy as
# described there) with RandomCorrupt right after the image loading step of
# both the clean and the stylized set (../_base_/random_corrupt.py; each
# of the 8 passes of an epoch, and each copy, draws its own corruption, as
# in faster-rcnn_r50_fpn_1x_city-randcorrupt.py):
#   python tools/train.py \
#       configs/robust_training/faster-rcnn_r50_fpn_1x_cityscity-randcorrupt.py
_base_ = [
    '../stylized/faster-rcnn_r50_fpn_1x_cityscity.py',
    '../_base_/random_corrupt.py',
]

from robustdet.datasets.transforms.random_corrupt import \
    with_random_corrupt  # noqa: E402

train_dataloader = dict(
    dataset=with_random_corrupt(_base_.train_dataloader.dataset,
                                _base_.random_corrupt))
