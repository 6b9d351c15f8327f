# The robustdet demo data, Cityscapes layout (leftImg8bit/ + gtFine/
# polygons, converted to COCO format with mmdet's cityscapes converter).
# The demo shapes carry Cityscapes labels: disc -> car, square -> truck,
# triangle -> bus (demo/demo_data CITYSCAPES_LABELS). Their Cityscapes ids
# ascend in the order of the demo classes, so label i is the same class as in
# the COCO layout and a detector trained there can be tested here.
_base_ = './demo_coco_instance.py'

dataset_type = 'CityscapesDataset'
data_root = 'data/demo/cityscapes/'
metainfo = dict(
    classes=('car', 'truck', 'bus'),
    palette=[(220, 50, 40), (40, 170, 60), (40, 80, 220)])
train_dataloader = dict(
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        metainfo=metainfo,
        ann_file='annotations/instancesonly_filtered_gtFine_train.json',
        data_prefix=dict(img='leftImg8bit/train/')))
val_dataloader = dict(
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        metainfo=metainfo,
        ann_file='annotations/instancesonly_filtered_gtFine_val.json',
        data_prefix=dict(img='leftImg8bit/val/')))
test_dataloader = val_dataloader
val_evaluator = dict(
    ann_file=data_root +
    'annotations/instancesonly_filtered_gtFine_val.json')
test_evaluator = val_evaluator
