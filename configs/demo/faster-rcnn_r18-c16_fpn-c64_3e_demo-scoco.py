# The demo detector trained on the stylized copy of the demo data's COCO
# train set (the "stylized" scheme of Michaelis et al. 2019 at demo scale);
# model, schedule and the clean val set as in
# faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py. Make the stylized copy
# first, as `make demo` does (procedural style images, generated AdaIN
# weights; see docs/stylization.md), then train:
#   python demo/make_demo_data.py --out-dir data/demo --styles 6
#   python tools/stylize_dataset.py \
#       --coco data/demo/coco/annotations/instances_train2017.json \
#       data/demo/coco/train2017 --style-dir data/demo/styles \
#       --out-dir data/demo/stylized/coco --generated-weights \
#       --style-size 128 --batch-size 8
#   python tools/train.py \
#       configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-scoco.py
_base_ = './faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py'

train_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type='StylizedDataset',
        stylized_root='data/demo/stylized/coco/',
        dataset={{_base_.train_dataloader.dataset}}))
