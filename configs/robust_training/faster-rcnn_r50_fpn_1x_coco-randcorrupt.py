# Faster R-CNN R50-FPN on COCO trained with image corruptions: the
# standard scheme of ../stylized/faster-rcnn_r50_fpn_1x_coco.py (same
# model, schedule and clean val2017 test set) with RandomCorrupt right
# after the image loading step (../_base_/random_corrupt.py: half the
# samples get one of the 4 hold-out corruptions at severity 1-5, drawn per
# sample and epoch from the run's seed). Train, then test on COCO-C:
#   python tools/train.py \
#       configs/robust_training/faster-rcnn_r50_fpn_1x_coco-randcorrupt.py
_base_ = [
    '../stylized/faster-rcnn_r50_fpn_1x_coco.py',
    '../_base_/random_corrupt.py',
]

from robustdet.datasets.transforms.random_corrupt import \
    with_random_corrupt  # noqa: E402

train_dataloader = dict(
    dataset=with_random_corrupt(_base_.train_dataloader.dataset,
                                _base_.random_corrupt))
