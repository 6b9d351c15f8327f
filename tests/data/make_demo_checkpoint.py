# Copyright (c) robustdet contributors. All rights reserved.
"""Train the committed demo checkpoint of the tests.

Trains the tiny demo Faster R-CNN with the tests' recipe
(`tests.conftest.overfit_config`) on the small demo data and writes its
weights, as float16 and without optimizer state, to
`tests/data/faster-rcnn_r18-c16_fpn-c64_overfit-demo.pth`. Training gives
other weights on other CPU generations, so this is run once and the file
is committed; print its sha256 into `tests/conftest.py`
(`DEMO_CHECKPOINT_SHA256`) with it.

Run from the repository root:
    python -m tests.data.make_demo_checkpoint
"""
import os.path as osp
import tempfile

import torch

from tests.conftest import (DEMO_CHECKPOINT, OVERFIT_EPOCHS, SMALL_DEMO,
                            overfit_config, sha256_file, sha256_tree)


def main():
    from mmengine.runner import Runner

    from demo_data import generate_demo_data
    from robustdet.utils import register_all_modules
    register_all_modules()
    with tempfile.TemporaryDirectory() as tmp:
        demo_dir = osp.join(tmp, 'demo')
        generate_demo_data(demo_dir, **SMALL_DEMO)
        data_sha256 = sha256_tree(demo_dir)
        Runner.from_cfg(overfit_config(demo_dir, osp.join(tmp,
                                                          'work'))).train()
        ckpt = torch.load(
            osp.join(tmp, 'work', f'epoch_{OVERFIT_EPOCHS}.pth'),
            map_location='cpu', weights_only=False)
    state = {
        key: value.half() if value.is_floating_point() else value
        for key, value in ckpt['state_dict'].items()
    }
    meta = dict(
        recipe='tests.conftest.overfit_config',
        epochs=OVERFIT_EPOCHS,
        small_demo_sha256=data_sha256,
        torch=str(torch.__version__),
        cpu_capability=torch.backends.cpu.get_cpu_capability())
    torch.save(dict(meta=meta, state_dict=state), DEMO_CHECKPOINT)
    print(f'small demo data sha256: {data_sha256}')
    print(f'{DEMO_CHECKPOINT} sha256: {sha256_file(DEMO_CHECKPOINT)}')


if __name__ == '__main__':
    main()
