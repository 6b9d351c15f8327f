# The demo detector (trained on the demo COCO layout) benchmarked under
# the clip corruptions on the synthetic videos:
#   python tools/test_robust.py THIS_CONFIG work_dirs/demo/train/epoch_3.pth \
#       --corruptions video
_base_ = [
    '../_base_/models/faster-rcnn_r18-c16_fpn-c64.py',
    '../_base_/datasets/demo_vid.py',
    '../_base_/schedules/demo_adamw_3e_test-only.py',
]
