# The robustdet synthetic video neighbour sets (`python demo/make_demo_data.py
# --video` / demo/demo_data/video.py): moving demo shapes with mild per-frame
# noise, one anchor per video with neighbours at offsets -10..10, in the
# ImageNet VID / ImageNet-Vid-Robust layout.
_base_ = '../custom_imports.py'

dataset_type = 'NeighborSetDataset'
data_root = 'data/demo/vid/'
backend_args = None
test_pipeline = [
    dict(type='LoadImageFromFile', backend_args=backend_args),
    dict(type='Resize', scale=(320, 240), keep_ratio=True),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                   'scale_factor', 'frame_key', 'anchor_key', 'anchor_id',
                   'offset', 'frame_labels'))
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
        sets_file='metadata/pmsets.json',
        labels_file='metadata/labels.json',
        ann_file='annotations/vid_val.json',
        ann_format='coco',
        data_prefix=dict(img='Data/VID/', ann='Annotations/VID/'),
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args))
test_evaluator = dict(type='PMKMetric', ks=list(range(11)), judge='frame')
val_dataloader = test_dataloader
val_evaluator = test_evaluator
