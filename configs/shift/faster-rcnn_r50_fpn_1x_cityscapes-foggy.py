# Faster R-CNN R50-FPN trained on Cityscapes, evaluated on Foggy Cityscapes
# val (Michaelis et al. 2019, table 4: clean and fog densities
# beta = 0.005, 0.01, 0.02, COCO-style AP):
#   python tools/test_shift.py \
#       configs/shift/faster-rcnn_r50_fpn_1x_cityscapes-foggy.py CKPT \
#       --benchmark foggy-cityscapes
# Expects data/cityscapes/{leftImg8bit,leftImg8bit_foggy,gtFine,annotations}
# (see docs/shift.md); the foggy images share the clean ground truth, so the
# evaluator is the clean val's.
_base_ = [
    'mmdet::cityscapes/faster-rcnn_r50_fpn_1x_cityscapes.py',
    '../_base_/custom_imports.py',
]

# beta=None reads the clean images; test_shift.py sets each beta in turn.
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
    metric='bbox')
