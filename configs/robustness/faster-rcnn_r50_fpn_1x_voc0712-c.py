# Faster R-CNN R50-FPN on PASCAL-C (the paper's PASCAL VOC model):
# mmdet's voc0712 config with the test set wrapped for corruption:
#   python tools/test_robust.py \
#       configs/robustness/faster-rcnn_r50_fpn_1x_voc0712-c.py \
#       CKPT --corruptions all
_base_ = 'mmdet::pascal_voc/faster-rcnn_r50_fpn_1x_voc0712.py'
custom_imports = dict(imports=['robustdet'], allow_failed_imports=False)

test_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='CorruptedDataset',
        corruption='gaussian_noise',
        severity=3,
        seed=0,
        dataset={{_base_.test_dataloader.dataset}}))
