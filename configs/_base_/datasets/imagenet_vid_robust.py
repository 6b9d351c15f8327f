# ImageNet-Vid-Robust (Shankar et al. 2019): 1,109 anchor frames of ImageNet
# VID val, each with up to 20 reviewed neighbour frames at offsets -10..10,
# scored with the pm-k metric. Layout (see data/README.md):
#   data/ILSVRC/Data/VID/val/<video>/<frame>.JPEG
#   data/ILSVRC/Annotations/VID/val/<video>/<frame>.xml
#   data/imagenet_vid_robust/metadata/{pmsets.json,labels.json}
# Works with mmdet's tools/test.py and robustdet's tools/test_pmk.py.
_base_ = '../custom_imports.py'

dataset_type = 'NeighborSetDataset'
data_root = 'data/'
backend_args = None
test_pipeline = [
    dict(type='LoadImageFromFile', backend_args=backend_args),
    dict(type='Resize', scale=(1000, 600), keep_ratio=True),
    # After Resize: ground truth stays in original image coordinates.
    dict(type='LoadAnnotations', with_bbox=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                   'scale_factor', 'frame_key', 'anchor_key', 'anchor_id',
                   'offset', 'frame_labels'))
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
        sets_file='imagenet_vid_robust/metadata/pmsets.json',
        labels_file='imagenet_vid_robust/metadata/labels.json',
        ann_format='vid_xml',
        data_prefix=dict(
            img='ILSVRC/Data/VID/', ann='ILSVRC/Annotations/VID/'),
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args))
test_evaluator = dict(type='PMKMetric', ks=list(range(11)), judge='frame')
val_dataloader = test_dataloader
val_evaluator = test_evaluator
