# The robustdet demo data, PASCAL VOC layout (VOCdevkit/VOC2007), evaluated
# like mmdet's voc0712 config: AP50, 11-point ('voc07') interpolation.
_base_ = './demo_coco_detection.py'

dataset_type = 'VOCDataset'
data_root = 'data/demo/VOCdevkit/'
backend_args = None
train_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type=dataset_type,
        data_root=data_root,
        metainfo={{_base_.metainfo}},
        ann_file='VOC2007/ImageSets/Main/trainval.txt',
        data_prefix=dict(sub_data_root='VOC2007/'),
        filter_cfg=dict(filter_empty_gt=True, min_size=8, bbox_min_size=8),
        pipeline={{_base_.train_pipeline}},
        backend_args=backend_args))
val_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type=dataset_type,
        data_root=data_root,
        metainfo={{_base_.metainfo}},
        ann_file='VOC2007/ImageSets/Main/test.txt',
        data_prefix=dict(sub_data_root='VOC2007/'),
        test_mode=True,
        pipeline={{_base_.test_pipeline}},
        backend_args=backend_args))
test_dataloader = val_dataloader
val_evaluator = dict(
    _delete_=True, type='VOCMetric', metric='mAP', eval_mode='11points')
test_evaluator = val_evaluator
