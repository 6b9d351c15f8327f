# Faster R-CNN R50-FPN on Stylized PASCAL VOC 2007+2012 trainval, the
# "stylized" training scheme of Michaelis et al. 2019: every train image
# stylized (AdaIN, styles from Painter by Numbers), same annotations;
# schedule, model and the clean VOC2007 test set as in
# faster-rcnn_r50_fpn_1x_voc0712.py. Make the stylized copy first, then
# train:
#   python tools/stylize_dataset.py --voc data/VOCdevkit \
#       --style-dir data/painter-by-numbers/train \
#       --out-dir data/VOCdevkit-stylized
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_svoc0712.py
_base_ = './faster-rcnn_r50_fpn_1x_voc0712.py'

# Stylize what the base's RepeatDataset (times=3) repeats (VOC07+12), so
# that 4 epochs stay 12 passes over the (stylized) data.
train_dataloader = dict(
    dataset=dict(
        dataset=dict(
            _delete_=True,
            type='StylizedDataset',
            stylized_root='data/VOCdevkit-stylized/',
            dataset={{_base_.train_dataloader.dataset.dataset}})))
