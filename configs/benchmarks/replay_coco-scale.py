# A benchmark instrument, not a detector: ReplayDetector returns the
# detections that bench_coco_scale.py wrote for each image, so that a
# robustness tool's own cost (decoding, corrupting, collating, evaluating,
# writing) can be timed apart from the model's. mmdet's standard data
# preprocessor still normalises and pads each batch.
_base_ = [
    '../_base_/datasets/coco-scale_detection.py',
    'mmdet::_base_/default_runtime.py',
    '../_base_/custom_imports.py',
]

model = dict(
    type='ReplayDetector',
    detections='data/coco_scale/detections.npz',
    # Ignored; mmdet's test_robustness.py sets backbone.init_cfg.type.
    backbone=dict(init_cfg=dict(type='Pretrained')),
    data_preprocessor=dict(
        type='DetDataPreprocessor',
        mean=[123.675, 116.28, 103.53],
        std=[58.395, 57.12, 57.375],
        bgr_to_rgb=True,
        pad_size_divisor=32))
