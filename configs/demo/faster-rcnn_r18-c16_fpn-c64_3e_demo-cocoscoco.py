# The demo detector trained on the demo data's COCO train set plus its
# stylized copy (the "combined" scheme of Michaelis et al. 2019 at demo
# scale); model and the clean val set as in
# faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py. The schedule stays 3 epochs:
# as in the paper, each epoch goes over both sets, so the combined run sees
# twice the images (and iterations) of the standard one. Make the stylized
# copy as in faster-rcnn_r18-c16_fpn-c64_3e_demo-scoco.py, then train:
#   python tools/train.py \
#       configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-cocoscoco.py
_base_ = './faster-rcnn_r18-c16_fpn-c64_3e_demo-scoco.py'

# [clean, stylized]: the clean set is the one the stylized set wraps.
train_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='ConcatDataset',
        datasets=[
            {{_base_.train_dataloader.dataset.dataset}},
            {{_base_.train_dataloader.dataset}},
        ]))
