# Faster R-CNN R50-FPN trained on BDD100k images taken in clear weather and
# tested on clear / rainy / snowy val subsets of equal size (Michaelis et
# al. 2019, table 5; schedule as for COCO: 12 epochs, lr 0.01, steps 8
# and 11):
#   python tools/train.py configs/shift/faster-rcnn_r50_fpn_1x_bdd100k-clear.py
#   python tools/test_shift.py \
#       configs/shift/faster-rcnn_r50_fpn_1x_bdd100k-clear.py CKPT \
#       --benchmark bdd100k-weather --split-dir data/bdd100k/splits
# Linear scaling rule: lr 0.01 is taken as given for base_batch_size images
# (8 GPUs x 2); pass --cfg-options auto_scale_lr.enable=True to scale it to
# another total batch.
_base_ = [
    'mmdet::_base_/models/faster-rcnn_r50_fpn.py',
    '../_base_/datasets/bdd100k_detection.py',
    'mmdet::_base_/schedules/schedule_1x.py',
    'mmdet::_base_/default_runtime.py',
    '../_base_/custom_imports.py',
]

model = dict(roi_head=dict(bbox_head=dict(num_classes=10)))
# The dataset part trains on splits/train_clear.txt and tests on
# splits/val_clear.txt.
optim_wrapper = dict(optimizer=dict(lr=0.01))
