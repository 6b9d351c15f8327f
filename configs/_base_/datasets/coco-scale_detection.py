# The COCO-sized set that tools/benchmarks/bench_coco_scale.py generates
# (640x480 JPEGs, the 80 COCO categories, about 7 boxes per image) in
# mmdet's COCO test layout and pipeline: mmdet's COCO detection part with
# the test set pointed at it. Test only: no training or validation (an
# mmengine Runner wants all of a loop's parts or none), and the test loop.
_base_ = ['mmdet::_base_/datasets/coco_detection.py']

data_root = 'data/coco_scale/'
train_dataloader = None
val_dataloader = None
val_evaluator = None
test_dataloader = dict(
    dataset=dict(
        data_root=data_root,
        ann_file='annotations/instances_val.json',
        data_prefix=dict(img='images/')))
test_evaluator = dict(ann_file=data_root + 'annotations/instances_val.json')
test_cfg = dict(type='TestLoop')
