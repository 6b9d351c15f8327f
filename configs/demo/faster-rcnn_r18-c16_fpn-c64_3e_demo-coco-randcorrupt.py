# The demo detector trained with image corruptions: the demo data's COCO
# layout as in faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py, with
# RandomCorrupt right after the image loading step
# (../_base_/random_corrupt.py: half the samples get one of the 4 hold-out
# corruptions at severity 1-5, drawn per sample and epoch from the run's
# seed):
#   python tools/train.py \
#       configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco-randcorrupt.py
_base_ = [
    './faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py',
    '../_base_/random_corrupt.py',
]

from robustdet.datasets.transforms.random_corrupt import \
    with_random_corrupt  # noqa: E402

train_dataloader = dict(
    dataset=with_random_corrupt(_base_.train_dataloader.dataset,
                                _base_.random_corrupt))
