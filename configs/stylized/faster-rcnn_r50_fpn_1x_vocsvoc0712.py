# Faster R-CNN R50-FPN on PASCAL VOC + Stylized PASCAL VOC (2007+2012
# trainval), the "combined" training scheme of Michaelis et al. 2019: each
# epoch goes over the clean and the stylized train images (twice the images
# of the standard scheme, same number of epochs); schedule, model and the
# clean VOC2007 test set as in faster-rcnn_r50_fpn_1x_voc0712.py. Make the
# stylized copy first, then train:
#   python tools/stylize_dataset.py --voc data/VOCdevkit \
#       --style-dir data/painter-by-numbers/train \
#       --out-dir data/VOCdevkit-stylized
#   python tools/train.py \
#       configs/stylized/faster-rcnn_r50_fpn_1x_vocsvoc0712.py
_base_ = './faster-rcnn_r50_fpn_1x_svoc0712.py'

# RepeatDataset(times=3) of [clean VOC07+12, stylized VOC07+12]: the clean
# set is the one the stylized set wraps. VOCDataset's metainfo differs by
# year ('dataset_type'), hence ignore_keys as in mmdet's voc0712 config.
train_dataloader = dict(
    dataset=dict(
        dataset=dict(
            _delete_=True,
            type='ConcatDataset',
            ignore_keys=['dataset_type'],
            datasets=[
                {{_base_.train_dataloader.dataset.dataset.dataset}},
                {{_base_.train_dataloader.dataset.dataset}},
            ])))
