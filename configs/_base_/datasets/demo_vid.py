# The robustdet synthetic videos (`python demo/make_demo_data.py --video` /
# demo/demo_data/video.py) as a CocoVID-style video detection dataset: every
# frame of the first 4 videos (31 frames each, 320x240, moving demo shapes
# with box tracks), for the clip corruptions of `test_robust.py --corruptions
# video`. Layout as ImageNet VID converted by mmtracking:
#   data/demo/vid/Data/VID/val/<video>/<frame>.JPEG
#   data/demo/vid/annotations/vid_val.json  (videos; images with video_id,
#                                            frame_id; annotations)
_base_ = '../custom_imports.py'

dataset_type = 'CocoDataset'
data_root = 'data/demo/vid/'
backend_args = None
test_pipeline = [
    dict(type='LoadImageFromFile', backend_args=backend_args),
    dict(type='Resize', scale=(320, 240), keep_ratio=True),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                   'scale_factor'))
]
test_dataloader = dict(
    batch_size=8,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        metainfo=dict(classes=('disc', 'square', 'triangle')),
        ann_file='annotations/vid_val.json',
        data_prefix=dict(img='Data/VID/'),
        # The first 124 frames: videos 0-3 (the demo's CPU budget).
        indices=124,
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args))
test_evaluator = dict(
    type='CocoMetric',
    ann_file=data_root + 'annotations/vid_val.json',
    metric='bbox',
    format_only=False,
    backend_args=backend_args)
val_dataloader = test_dataloader
val_evaluator = test_evaluator
