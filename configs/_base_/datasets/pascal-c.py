# PASCAL-C (Michaelis et al. 2019): PASCAL VOC 2007 test under one image
# corruption, evaluated like mmdet's voc0712 config (VOC metric: AP50,
# 11-point interpolation). The test set is wrapped in robustdet's
# CorruptedDataset: mmdet's tools/test.py evaluates one (corruption,
# severity) cell, e.g. with
#   --cfg-options test_dataloader.dataset.corruption=fog
#                 test_dataloader.dataset.severity=3
# and tools/test_robust.py evaluates the whole grid (it unwraps this).
_base_ = [
    'mmdet::_base_/datasets/voc0712.py',
    '../custom_imports.py',
]

test_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='CorruptedDataset',
        corruption='gaussian_noise',
        severity=3,
        seed=0,
        dataset={{_base_.test_dataloader.dataset}}))
