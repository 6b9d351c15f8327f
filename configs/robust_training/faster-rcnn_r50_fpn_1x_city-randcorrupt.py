# Faster R-CNN R50-FPN on Cityscapes train trained with image corruptions:
# the standard scheme of ../stylized/faster-rcnn_r50_fpn_1x_city.py with
# RandomCorrupt right after the image loading step
# (../_base_/random_corrupt.py). The base repeats the training set 8 times
# per epoch (RepeatDataset) and the picks change per epoch, so the 8
# passes of an epoch corrupt an image alike:
#   python tools/train.py \
#       configs/robust_training/faster-rcnn_r50_fpn_1x_city-randcorrupt.py
_base_ = [
    '../stylized/faster-rcnn_r50_fpn_1x_city.py',
    '../_base_/random_corrupt.py',
]


def with_random_corrupt(node):
    """A dataset config with ``random_corrupt`` (../_base_/random_corrupt.py)
    right after the image loading step of every training pipeline in it."""
    if isinstance(node, list):
        return [with_random_corrupt(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: with_random_corrupt(v) for k, v in node.items()}
    if 'pipeline' in node:
        load, *rest = node['pipeline']
        node['pipeline'] = [load, _base_.random_corrupt, *rest]
    return node


train_dataloader = dict(
    dataset=with_random_corrupt(_base_.train_dataloader.dataset))
