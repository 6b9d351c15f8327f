# Faster R-CNN R50-FPN on COCO + Stylized COCO trained with image
# corruptions: the combined scheme of
# ../stylized/faster-rcnn_r50_fpn_1x_cocoscoco.py (make the stylized copy as
# described there) with RandomCorrupt right after the image loading step of
# both the clean and the stylized set (../_base_/random_corrupt.py):
#   python tools/train.py \
#       configs/robust_training/faster-rcnn_r50_fpn_1x_cocoscoco-randcorrupt.py
_base_ = [
    '../stylized/faster-rcnn_r50_fpn_1x_cocoscoco.py',
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
