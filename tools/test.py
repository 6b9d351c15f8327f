# Copyright (c) robustdet contributors. All rights reserved.
"""Evaluate a detector on its config's test set (as mmdet's
``tools/test.py``), loading the checkpoint through robustdet's safe loader
(torch ``weights_only=True`` with an allow-list; ``--unsafe-load`` to opt
out)."""
import json

from robustdet.utils.cli import (ArgumentParser, add_runner_args, cli_entry,
                                 default_work_dir, init_launcher, load_config)


def parse_args(argv=None):
    parser = ArgumentParser(description='Test a detector')
    parser.add_argument('config', help='test config file path')
    parser.add_argument('checkpoint', help='checkpoint file')
    parser.add_argument('--work-dir', help='where to save logs and metrics')
    parser.add_argument(
        '--out', help='write the metrics to this JSON file')
    add_runner_args(parser)
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from mmengine.dist import is_main_process

    from robustdet.apis.testing import build_test_runner
    from robustdet.engine import watched_test_cfg
    from robustdet.utils import load_checkpoint_file, register_all_modules
    from robustdet.utils.io import dump_json_atomic
    register_all_modules()
    cfg = load_config(
        args.config,
        args.cfg_options,
        require=('test_dataloader', 'test_evaluator', 'test_cfg'))
    # Read the checkpoint before building anything expensive.
    ckpt = load_checkpoint_file(args.checkpoint, unsafe=args.unsafe_load)
    init_launcher(args, cfg, files=[args.checkpoint])
    work_dir = (args.work_dir or cfg.get('work_dir')
                or default_work_dir(args.config))
    # Launched, a rank stuck mid-pass stops the others.
    cfg.test_cfg = watched_test_cfg(cfg.test_cfg)
    runner = build_test_runner(cfg, args.checkpoint, work_dir,
                               args.launcher, loaded=ckpt)
    metrics = runner.test()
    if not is_main_process():
        return
    print(json.dumps(metrics, indent=2, sort_keys=True))
    if args.out:
        dump_json_atomic(metrics, args.out)


if __name__ == '__main__':
    main()
