# Mask R-CNN R50-FPN trained on Cityscapes, evaluated on Foggy Cityscapes
# val (Michaelis et al. 2019, table 4; bbox and segm AP, COCO-style):
#   python tools/test_shift.py \
#       configs/shift/mask-rcnn_r50_fpn_1x_cityscapes-foggy.py CKPT \
#       --benchmark foggy-cityscapes
_base_ = [
    'mmdet::cityscapes/mask-rcnn_r50_fpn_1x_cityscapes.py',
    '../_base_/custom_imports.py',
]

test_dataloader = dict(
    dataset=dict(
        type='FoggyCityscapesDataset',
        beta=None,
        foggy_prefix='leftImg8bit_foggy/val/'))
test_evaluator = dict(
    _delete_=True,
    type='CocoMetric',
    ann_file='data/cityscapes/annotations/'
    'instancesonly_filtered_gtFine_val.json',
    metric=['bbox', 'segm'])
