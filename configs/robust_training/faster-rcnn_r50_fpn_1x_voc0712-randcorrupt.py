# Faster R-CNN R50-FPN on PASCAL VOC 2007+2012 trainval trained with image
# corruptions: the standard scheme of
# ../stylized/faster-rcnn_r50_fpn_1x_voc0712.py with RandomCorrupt right
# after the image loading step of VOC2007 and VOC2012
# (../_base_/random_corrupt.py). The base repeats the training set 3 times
# per epoch (RepeatDataset); each of the 3 passes draws its own corruption
# for an image (the draws include the sample's position in the epoch):
#   python tools/train.py \
#       configs/robust_training/faster-rcnn_r50_fpn_1x_voc0712-randcorrupt.py
_base_ = [
    '../stylized/faster-rcnn_r50_fpn_1x_voc0712.py',
    '../_base_/random_corrupt.py',
]

from robustdet.datasets.transforms.random_corrupt import \
    with_random_corrupt  # noqa: E402

train_dataloader = dict(
    dataset=with_random_corrupt(_base_.train_dataloader.dataset,
                                _base_.random_corrupt))
