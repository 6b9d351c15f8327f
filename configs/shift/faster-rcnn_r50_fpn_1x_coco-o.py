# Faster R-CNN R50-FPN trained on COCO, evaluated on COCO val2017 (the
# reference) and the six COCO-O domains (Mao et al., ICCV 2023: sketch,
# cartoon, painting, weather, handmake, tattoo; bbox AP, COCO-style):
#   python tools/test_shift.py \
#       configs/shift/faster-rcnn_r50_fpn_1x_coco-o.py CKPT \
#       --benchmark coco-o --coco-o-root data/coco-o
# mmdet's faster-rcnn_r50_fpn_1x_coco.py as it is: easyrobust's maintainers
# suggest mmdet's R-50-FPN 1x weights to reproduce the paper's Faster R-CNN
# R-50-FPN row (easyrobust issue #21). Expects data/coco (see mmdet) and the
# unpacked ood_coco.zip as <root>/<domain>/{val2017,annotations}
# (docs/shift.md); test_shift.py points the test set and the evaluator's
# ann_file at each domain in turn.
_base_ = [
    'mmdet::faster_rcnn/faster-rcnn_r50_fpn_1x_coco.py',
    '../_base_/custom_imports.py',
]
