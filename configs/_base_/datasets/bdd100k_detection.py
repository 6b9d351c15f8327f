# BDD100k detection (10 classes; labels/det_20), for the paper's weather and
# time-of-day shift (Michaelis et al. 2019, table 5). Layout:
#   data/bdd100k/images/100k/{train,val}/*.jpg
#   data/bdd100k/labels/det_20/det_{train,val}.json
#   data/bdd100k/splits/  (python tools/make_bdd100k_splits.py
#       data/bdd100k/labels/det_20/det_val.json --out-dir data/bdd100k/splits
#       --train-labels data/bdd100k/labels/det_20/det_train.json)
# Training uses one of the train_*.txt lists (set train_split), testing
# val_clear.txt / val_daytime.txt; tools/test_shift.py evaluates every
# split. The evaluator builds the ground truth from the dataset itself
# (CocoMetric without ann_file; ignored categories are crowd regions), so
# each split is scored against exactly its own images.
dataset_type = 'BDD100kDataset'
data_root = 'data/bdd100k/'
backend_args = None

train_pipeline = [
    dict(type='LoadImageFromFile', backend_args=backend_args),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(type='Resize', scale=(1333, 800), keep_ratio=True),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PackDetInputs')
]
test_pipeline = [
    dict(type='LoadImageFromFile', backend_args=backend_args),
    dict(type='Resize', scale=(1333, 800), keep_ratio=True),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                   'scale_factor', 'instances'))
]
train_dataloader = dict(
    batch_size=2,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    batch_sampler=dict(type='AspectRatioBatchSampler'),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='labels/det_20/det_train.json',
        file_list='splits/train_clear.txt',
        data_prefix=dict(img='images/100k/train/'),
        filter_cfg=dict(filter_empty_gt=True, min_size=32),
        pipeline=train_pipeline,
        backend_args=backend_args))
val_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='labels/det_20/det_val.json',
        file_list='splits/val_clear.txt',
        data_prefix=dict(img='images/100k/val/'),
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args))
test_dataloader = val_dataloader
val_evaluator = dict(type='CocoMetric', ann_file=None, metric='bbox')
test_evaluator = val_evaluator
