# The demo detector trained with image corruptions: the demo data's COCO
# layout as in faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py, with
# RandomCorrupt right after the image loading step
# (../_base_/random_corrupt.py: half the images get one of the 4 hold-out
# corruptions at severity 1-5, picked per image and epoch from the run's
# seed):
#   python tools/train.py \
#       configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco-randcorrupt.py
_base_ = [
    './faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py',
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
