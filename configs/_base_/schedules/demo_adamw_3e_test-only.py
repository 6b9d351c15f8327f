# The demo runtime for configs that only test (the video and pm-k demos):
# demo_adamw_3e.py with its training parts unset.
_base_ = './demo_adamw_3e.py'

train_dataloader = None
train_cfg = None
optim_wrapper = None
param_scheduler = None
