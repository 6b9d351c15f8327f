# Faster R-CNN R50-FPN on Cityscapes + Stylized Cityscapes, the "combined"
# training scheme of Michaelis et al. 2019: each epoch goes over the clean
# and the stylized train images (twice the images of the standard scheme,
# same number of epochs); schedule, model and the clean val test set as in
# faster-rcnn_r50_fpn_1x_city.py. Make the stylized copy first, then
# train:
#   python tools/stylize_dataset.py --cityscapes data/cityscapes \
#       --split train --style-dir data/painter-by-numbers/train \
#       --out-dir data/cityscapes-stylized
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_cityscity.py
_base_ = './faster-rcnn_r50_fpn_1x_scity.py'

# RepeatDataset(times=8) of [clean, stylized]: the clean set is the one the
# stylized set wraps.
train_dataloader = dict(
    dataset=dict(
        dataset=dict(
            _delete_=True,
            type='ConcatDataset',
            datasets=[
                {{_base_.train_dataloader.dataset.dataset.dataset}},
                {{_base_.train_dataloader.dataset.dataset}},
            ])))
