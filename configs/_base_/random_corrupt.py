# Training with image corruptions (robustdet.datasets.RandomCorrupt): each
# training sample is corrupted with probability 0.5, with one of the 4
# hold-out corruptions (speckle_noise, gaussian_blur, spatter, saturate) at
# a severity drawn from 1-5, drawn per sample and epoch from the run's seed
# (randomness.seed). The configs of ../robust_training/ insert
# `random_corrupt` right after the image loading step of every training
# pipeline and wrap the training set in an EpochPositionDataset
# (with_random_corrupt); RandomCorruptHook sets the epoch and the seed on
# it, for the dataloader workers too. The 15 benchmark corruptions stay
# unseen, so mPC still measures unseen corruptions; the newer families
# (cbar, 3dcc_depth_free) are left out so that mPC_cbar and mPC_3dcc do
# too.
random_corrupt = dict(
    type='RandomCorrupt',
    corruptions=('holdout', ),
    severities=(1, 5),
    prob=0.5)
custom_hooks = [dict(type='RandomCorruptHook')]
