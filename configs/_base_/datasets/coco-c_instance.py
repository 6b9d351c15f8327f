# COCO-C (Michaelis et al. 2019): COCO val2017 under one image corruption,
# bbox and segm AP. See pascal-c.py for how to pick the cell.
_base_ = [
    'mmdet::_base_/datasets/coco_instance.py',
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
