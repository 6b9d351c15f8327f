# Faster R-CNN R50-FPN on COCO + Stylized COCO, the "combined" training scheme
# of Michaelis et al. 2019: each epoch goes over the clean and the
# stylized train2017 images (twice the images of the standard scheme, same
# number of epochs); schedule, model and the clean val2017 test set as in
# faster-rcnn_r50_fpn_1x_coco.py. Make the stylized copy first, then
# train:
#   python tools/stylize_dataset.py \
#       --coco data/coco/annotations/instances_train2017.json \
#       data/coco/train2017 --style-dir data/painter-by-numbers/train \
#       --out-dir data/coco-stylized
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_cocoscoco.py
_base_ = './faster-rcnn_r50_fpn_1x_scoco.py'

# [clean, stylized]: the clean set is the one the stylized set wraps.
train_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='ConcatDataset',
        datasets=[
            {{_base_.train_dataloader.dataset.dataset}},
            {{_base_.train_dataloader.dataset}},
        ]))
