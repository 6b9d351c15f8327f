# The demo detector (trained on the demo COCO layout) scored with pm-k on
# the synthetic video neighbour sets:
#   python tools/test_pmk.py THIS_CONFIG work_dirs/demo/train/epoch_3.pth
_base_ = [
    '../_base_/models/faster-rcnn_r18-c16_fpn-c64.py',
    '../_base_/datasets/demo_vid_pmk.py',
    '../_base_/schedules/demo_adamw_3e_test-only.py',
]
