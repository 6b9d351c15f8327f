# Faster R-CNN R50-FPN on PASCAL VOC + Stylized PASCAL VOC (2007+2012
# trainval) trained with image corruptions: the combined scheme of
# ../stylized/faster-rcnn_r50_fpn_1x_vocsvoc0712.py (make the stylized copy
# as described there) with RandomCorrupt right after the image loading step
# of the four training sets, clean and stylized VOC2007 and VOC2012
# (../_base_/random_corrupt.py; each pass and each copy of an image draws
# its own corruption, as in faster-rcnn_r50_fpn_1x_voc0712-randcorrupt.py):
#   python tools/train.py \
#   configs/robust_training/faster-rcnn_r50_fpn_1x_vocsvoc0712-randcorrupt.py
_base_ = [
    '../stylized/faster-rcnn_r50_fpn_1x_vocsvoc0712.py',
    '../_base_/random_corrupt.py',
]

from robustdet.datasets.transforms.random_corrupt import \
    with_random_corrupt  # noqa: E402

train_dataloader = dict(
    dataset=with_random_corrupt(_base_.train_dataloader.dataset,
                                _base_.random_corrupt))
