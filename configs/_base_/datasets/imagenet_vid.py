# ImageNet VID val as a CocoVID-style video detection dataset (every frame
# of the 555 val videos, 30 classes), for the clip corruptions of
# `tools/test_robust.py --corruptions video`. Convert the XML annotations
# with mmtracking's `tools/convert_datasets/ilsvrc/imagenet2coco_vid.py`
# (or any converter that writes videos and images with video_id and
# frame_id). Layout:
#   data/ILSVRC/Data/VID/val/<video>/<frame>.JPEG
#   data/ILSVRC/annotations/imagenet_vid_val.json
_base_ = '../custom_imports.py'

dataset_type = 'CocoDataset'
data_root = 'data/ILSVRC/'
metainfo = dict(classes=(
    'airplane', 'antelope', 'bear', 'bicycle', 'bird', 'bus', 'car',
    'cattle', 'dog', 'domestic_cat', 'elephant', 'fox', 'giant_panda',
    'hamster', 'horse', 'lion', 'lizard', 'monkey', 'motorcycle', 'rabbit',
    'red_panda', 'sheep', 'snake', 'squirrel', 'tiger', 'train', 'turtle',
    'watercraft', 'whale', 'zebra'))
backend_args = None
test_pipeline = [
    dict(type='LoadImageFromFile', backend_args=backend_args),
    dict(type='Resize', scale=(1000, 600), keep_ratio=True),
    # After Resize: ground truth stays in original image coordinates.
    dict(type='LoadAnnotations', with_bbox=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                   'scale_factor'))
]
test_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        metainfo=metainfo,
        ann_file='annotations/imagenet_vid_val.json',
        data_prefix=dict(img='Data/VID/'),
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args))
test_evaluator = dict(
    type='CocoMetric',
    ann_file=data_root + 'annotations/imagenet_vid_val.json',
    metric='bbox',
    format_only=False,
    backend_args=backend_args)
val_dataloader = test_dataloader
val_evaluator = test_evaluator
