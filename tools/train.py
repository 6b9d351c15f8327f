# Copyright (c) robustdet contributors. All rights reserved.
"""Train a detector from a config with mmengine's Runner (as mmdet's
``tools/train.py``), with robustdet's modules registered, one-line
errors for bad input, and what the model was trained on written into its
checkpoints (``TrainingRecordHook``)."""

from robustdet.utils.cli import (ArgumentParser, add_runner_args, cli_entry,
                                 default_work_dir, init_launcher, load_config)


def parse_args(argv=None):
    parser = ArgumentParser(description='Train a detector')
    parser.add_argument('config', help='train config file path')
    parser.add_argument('--work-dir', help='where to save logs and models')
    parser.add_argument(
        '--resume',
        action='store_true',
        help='resume from the latest checkpoint in the work dir')
    add_runner_args(parser, checkpoint=False)
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    import torch
    from mmengine.runner import Runner

    from robustdet.engine import with_training_record, with_watchdog
    from robustdet.utils import register_all_modules
    from robustdet.utils.checkpoint import checkpoint_safe_globals
    register_all_modules()
    cfg = load_config(
        args.config,
        args.cfg_options,
        require=('train_dataloader', 'train_cfg', 'optim_wrapper'))
    init_launcher(args, cfg)
    cfg.work_dir = (args.work_dir or cfg.get('work_dir')
                    or default_work_dir(args.config))
    # Every checkpoint records what the model was trained on; launched,
    # a rank stuck mid-epoch stops the others.
    cfg.custom_hooks = with_watchdog(
        with_training_record(cfg.get('custom_hooks')))
    if args.resume:
        cfg.resume = True
        cfg.load_from = None
    runner = Runner.from_cfg(cfg)
    # mmengine resumes with torch.load(weights_only=True) on torch >= 2.6,
    # which refuses its own HistoryBuffer without this allow-list.
    with torch.serialization.safe_globals(checkpoint_safe_globals()):
        runner.train()


if __name__ == '__main__':
    main()
