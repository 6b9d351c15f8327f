# mmdet's Faster R-CNN R50-FPN (the architecture of faster-rcnn_r50_fpn_1x
# _coco) on the COCO-sized set of bench_coco_scale.py. No weights can be
# downloaded here: the benchmark saves weights initialised from a fixed
# seed (the speed does not depend on them).
_base_ = [
    'mmdet::_base_/models/faster-rcnn_r50_fpn.py',
    '../_base_/datasets/coco-scale_detection.py',
    'mmdet::_base_/default_runtime.py',
    '../_base_/custom_imports.py',
]

model = dict(backbone=dict(init_cfg=None))
