# Faster R-CNN R50-FPN on Stylized COCO, the "stylized" training scheme of
# Michaelis et al. 2019: train2017 with every image stylized (AdaIN, styles
# from Painter by Numbers), same annotations; schedule, model and the clean
# val2017 test set as in faster-rcnn_r50_fpn_1x_coco.py. Make the
# stylized copy first, then train:
#   python tools/stylize_dataset.py \
#       --coco data/coco/annotations/instances_train2017.json \
#       data/coco/train2017 --style-dir data/painter-by-numbers/train \
#       --out-dir data/coco-stylized
#   python tools/train.py configs/stylized/faster-rcnn_r50_fpn_1x_scoco.py
_base_ = './faster-rcnn_r50_fpn_1x_coco.py'

train_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='StylizedDataset',
        stylized_root='data/coco-stylized/',
        dataset={{_base_.train_dataloader.dataset}}))
