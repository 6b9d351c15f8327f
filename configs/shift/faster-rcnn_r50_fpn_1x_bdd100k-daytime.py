# Faster R-CNN R50-FPN trained on BDD100k daytime images and tested on
# daytime / night val subsets of equal size (Michaelis et al. 2019,
# table 5; schedule as for COCO):
#   python tools/train.py \
#       configs/shift/faster-rcnn_r50_fpn_1x_bdd100k-daytime.py
#   python tools/test_shift.py \
#       configs/shift/faster-rcnn_r50_fpn_1x_bdd100k-daytime.py CKPT \
#       --benchmark bdd100k-daynight --split-dir data/bdd100k/splits
_base_ = './faster-rcnn_r50_fpn_1x_bdd100k-clear.py'

train_dataloader = dict(dataset=dict(file_list='splits/train_daytime.txt'))
test_dataloader = dict(dataset=dict(file_list='splits/val_daytime.txt'))
val_dataloader = test_dataloader
