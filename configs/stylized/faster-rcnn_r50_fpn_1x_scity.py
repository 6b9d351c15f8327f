# Faster R-CNN R50-FPN on Stylized Cityscapes, the "stylized" training
# scheme of Michaelis et al. 2019: the train images stylized (AdaIN, styles
# from Painter by Numbers), same annotations; schedule, model and the
# clean val test set as in faster-rcnn_r50_fpn_1x_city.py. Make the
# stylized copy first, then train:
#   python tools/stylize_dataset.py --cityscapes data/cityscapes \
#       --split train --style-dir data/painter-by-numbers/train \
#       --out-dir data/cityscapes-stylized
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_scity.py
_base_ = './faster-rcnn_r50_fpn_1x_city.py'

# Stylize what the base's RepeatDataset (times=8) repeats, so that 8 epochs
# stay 64 passes over the (stylized) data.
train_dataloader = dict(
    dataset=dict(
        dataset=dict(
            _delete_=True,
            type='StylizedDataset',
            stylized_root='data/cityscapes-stylized/',
            dataset={{_base_.train_dataloader.dataset.dataset}})))
