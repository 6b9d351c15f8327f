# The demo detector trained on the stylized copy of the demo data's COCO
# train set (the "stylized" scheme of Michaelis et al. 2019 at demo scale);
# model, schedule and the clean val set as in
# faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py. Make the stylized copy
# first (STYLE_DIR: a folder of style images), then train:
#   python tools/stylize_dataset.py \
#       --coco data/demo/coco/annotations/instances_train2017.json \
#       data/demo/coco/train2017 --style-dir STYLE_DIR \
#       --out-dir data/demo/stylized/coco
#   python tools/train.py \
#       configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-scoco.py
_base_ = './faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py'
custom_imports = dict(imports=['robustdet'], allow_failed_imports=False)

train_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='StylizedDataset',
        stylized_root='data/demo/stylized/coco/',
        dataset={{_base_.train_dataloader.dataset}}))
