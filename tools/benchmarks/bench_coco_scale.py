# Copyright (c) robustdet contributors. All rights reserved.
"""COCO-C at its real size: the whole harness on COCO-sized images, side
by side in one run, and how long a full COCO-C (5,000 images x 76 cells)
takes.

The data: a COCO-layout set of ``--images`` 640x480 JPEGs with the 80
COCO categories and about 7 boxes per image, generated once into
``--data-dir`` (and reused), with 100 detections per image (jittered
copies of the ground truth and random boxes, as ``bench_coco_eval.py``
makes them) for :class:`~robustdet.models.ReplayDetector`.

Timed, each as a whole process on the same config, data, cells, cores
(``--cores``) and dataloader workers (``--workers``):

1. the harness, with ReplayDetector (``configs/benchmarks/
   replay_coco-scale.py``: the detections of the file, no model cost)
   over the ``--corruptions`` x ``--severities`` grid (default: the 15 x
   0-5, 76 cells): mmdet's own ``tools/analysis_tools/test_robustness.py``
   (from the installed mmdet), robustdet's ``tools/test_robust.py`` with
   its defaults, and with its fastest settings (``--backend fast
   --cells-per-pass K``, ``FastCocoMetric``), and the model alone (the
   same passes over the same images: no corruption, evaluation or
   writing; with the RoIAlign of robustdet's runs, so that the ratio to
   it is robustdet's own overhead);
2. the same four with mmdet's Faster R-CNN R50-FPN (``configs/benchmarks/
   faster-rcnn_r50_fpn_coco-scale.py``, weights from ``--seed``: no
   checkpoint can be downloaded, and the speed does not depend on them) on
   the clean cell and ``--r50-corruptions`` at severity 3, on the first
   ``--r50-images`` images;
3. one COCO evaluation of ``--eval-images`` images (default 5,000: it
   does not shrink with the quick run's image count) with each evaluator,
   and the fast against the reference corruptions at 480x640.

It prints, per tool, the seconds per image-cell with each model, the
ratios to mmdet's script and to the model alone, and projects a full
COCO-C for a host of ``--project-cores`` cores and a model of
``--project-ips`` images/s, with the formula. ``--json`` writes every
figure under stable keys::

    python tools/benchmarks/bench_coco_scale.py [--images 50] \\
        [--r50-images 3] [--project-cores 16] [--project-ips 25] \\
        [--json coco_scale.json]
"""
import argparse
import contextlib
import io
import json
import os
import os.path as osp
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time

_STARTED = time.perf_counter()  # before torch, mmdet and robustdet load
REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(1, osp.dirname(osp.abspath(__file__)))

from robustdet.utils.cli import cli_entry  # noqa: E402
from robustdet.utils.errors import RobustDetError  # noqa: E402
from robustdet.utils.machine import cpu_model  # noqa: E402

REPLAY_CONFIG = osp.join(REPO, 'configs', 'benchmarks',
                         'replay_coco-scale.py')
R50_CONFIG = osp.join(REPO, 'configs', 'benchmarks',
                      'faster-rcnn_r50_fpn_coco-scale.py')
FULL_IMAGES = 5000
DATA_VERSION = 1
TARGETS = dict(harness_speedup_vs_mmdet=5.0, r50_wall_over_model_only=1.15,
               fast_vs_reference=10.0, zoom_blur_fast_vs_reference=20.0)


def parse_args(argv=None):
    from robustdet.utils.cli import ArgumentParser
    parser = ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--images', type=int, default=50,
                        help='images of the harness runs (default 50)')
    parser.add_argument('--r50-images', type=int, default=3,
                        help='images of the R50-FPN runs (default 3, which '
                        'keeps the default run under 30 minutes on a '
                        '2-core Zen 1, where one image-cell takes 7 s; 0: '
                        'no R50-FPN runs)')
    parser.add_argument('--r50-config', default=R50_CONFIG,
                        help='the model of the R50-FPN runs (default: '
                        'configs/benchmarks/faster-rcnn_r50_fpn_coco-scale'
                        '.py; any COCO config works)')
    parser.add_argument('--r50-corruptions', nargs='+',
                        default=['gaussian_noise', 'defocus_blur'],
                        help='corruptions of the R50-FPN runs, at severity '
                        '3, beside the clean cell')
    parser.add_argument('--corruptions', nargs='+', default=['benchmark'],
                        help='corruptions of the harness runs (default: '
                        'the 15 of mPC)')
    parser.add_argument('--severities', type=int, nargs='+',
                        default=[0, 1, 2, 3, 4, 5])
    parser.add_argument('--data-dir', default='data/coco_scale',
                        help='the generated set (made if missing or of '
                        'another size)')
    parser.add_argument('--work-dir', help='default: a temporary dir')
    parser.add_argument('--cores', type=int,
                        help='CPU cores the runs may use (default: all this '
                        'process may use)')
    parser.add_argument('--workers', type=int, default=2,
                        help='dataloader workers of every run (default 2)')
    parser.add_argument('--cells-per-pass', type=int, default=5,
                        help="robustdet's fastest settings: cells per data "
                        'pass (default 5)')
    parser.add_argument('--eval-images', type=int, default=FULL_IMAGES,
                        help='images of the one-off COCO evaluations '
                        '(default 5000)')
    parser.add_argument('--project-cores', type=int, default=16,
                        help='cores of the host to project to (default 16)')
    parser.add_argument('--project-ips', type=float, default=25.0,
                        help="the projected host's model throughput, "
                        'images/s (default 25: R50-FPN on one GPU)')
    parser.add_argument('--skip-mmdet', action='store_true',
                        help="leave mmdet's script out")
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--json', help='also write every figure here')
    parser.add_argument('--model-only', nargs=3, help=argparse.SUPPRESS,
                        metavar=('CONFIG', 'CHECKPOINT', 'PASSES'))
    parser.add_argument('--cfg-options', nargs='*', default=[],
                        help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# -- the data ---------------------------------------------------------------


def ensure_data(data_dir, num_images, seed):
    """The generated set in ``data_dir`` (made again if it is of another
    size, seed or version): ``images/``, ``annotations/instances_val.json``
    and ``detections.npz``."""
    meta_path = osp.join(data_dir, 'meta.json')
    meta = dict(images=num_images, seed=seed, version=DATA_VERSION)
    if osp.exists(meta_path):
        with open(meta_path) as f:
            if json.load(f) == meta:
                return
    import cv2
    import numpy as np
    from bench_coco_eval import synthetic
    from mmdet.datasets import CocoDataset

    from robustdet.models import save_detections
    shutil.rmtree(data_dir, ignore_errors=True)
    os.makedirs(osp.join(data_dir, 'images'))
    os.makedirs(osp.join(data_dir, 'annotations'))
    coco, samples = synthetic(num_images, 80, 100, 7.3, seed)
    names = CocoDataset.METAINFO['classes']
    for cat in coco['categories']:  # COCO's names: CocoDataset maps them
        cat['name'] = names[cat['id'] - 1]
    rng = np.random.default_rng(seed)
    boxes = {}
    for ann in coco['annotations']:
        boxes.setdefault(ann['image_id'], []).append(ann['bbox'])
    detections = {}
    for image, sample in zip(coco['images'], samples):
        img = _texture(rng, image['height'], image['width'])
        for x, y, w, h in boxes.get(image['id'], []):
            color = tuple(int(c) for c in rng.integers(0, 256, 3))
            cv2.rectangle(img, (int(x), int(y)), (int(x + w), int(y + h)),
                          color, -1)
        cv2.imwrite(osp.join(data_dir, 'images', image['file_name']), img,
                    [cv2.IMWRITE_JPEG_QUALITY, 90])
        pred = sample['pred_instances']
        detections[image['file_name']] = (pred['bboxes'].numpy(),
                                          pred['scores'].numpy(),
                                          pred['labels'].numpy())
    with open(osp.join(data_dir, 'annotations', 'instances_val.json'),
              'w') as f:
        json.dump(coco, f)
    save_detections(osp.join(data_dir, 'detections.npz'), detections)
    with open(meta_path, 'w') as f:
        json.dump(meta, f)


def _texture(rng, h, w):
    """A photo-like background: smooth colour fields with grain."""
    import cv2
    import numpy as np
    low = rng.integers(0, 256, (h // 16 + 1, w // 16 + 1, 3), np.uint8)
    img = cv2.resize(low, (w, h), interpolation=cv2.INTER_CUBIC)
    grain = rng.normal(0, 12, (h, w, 3))
    return np.clip(img + grain, 0, 255).astype(np.uint8)


def save_checkpoints(data_dir, r50_config, seed, with_r50):
    """An empty checkpoint for ReplayDetector and, with ``with_r50``,
    seeded R50-FPN weights: ``(replay, r50)`` paths."""
    import torch
    os.makedirs(data_dir, exist_ok=True)
    replay = osp.join(data_dir, 'replay.pth')
    if not osp.exists(replay):
        torch.save(dict(state_dict={}, meta={}), replay)
    if not with_r50:
        return replay, None
    name = osp.splitext(osp.basename(r50_config))[0]
    r50 = osp.join(data_dir, f'{name}_seed{seed}.pth')
    if not osp.exists(r50):
        from mmdet.registry import MODELS
        from mmengine.logging import MMLogger

        from robustdet.utils import register_all_modules
        from robustdet.utils.cli import load_config
        register_all_modules()
        MMLogger.get_current_instance().setLevel('WARNING')  # no init log
        torch.manual_seed(seed)
        model = MODELS.build(load_config(r50_config).model)
        model.init_weights()
        torch.save(dict(state_dict=model.state_dict(), meta={}), r50)
    return replay, r50


# -- the runs ---------------------------------------------------------------


def timed(cmd, env=None, allow_fail=False):
    """Wall and CPU seconds (the process and all it waited for: its
    dataloader workers) of a command, and its completed process."""
    print('$ ' + ' '.join(cmd), flush=True)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    if proc.returncode and not allow_fail:
        sys.exit(f'error: {cmd[1]} failed ({proc.returncode}): '
                 f'{proc.stderr.strip().splitlines()[-1:]}')
    print(f'  {wall:.1f} s wall, {cpu:.1f} s CPU', flush=True)
    return dict(wall=wall, cpu=cpu), proc


def mmdet_script():
    """mmdet's test_robustness.py and the PYTHONPATH it needs."""
    import mmdet
    mim = osp.join(osp.dirname(mmdet.__file__), '.mim')
    script = osp.join(mim, 'tools', 'analysis_tools', 'test_robustness.py')
    if not osp.isfile(script):
        raise RobustDetError(
            f"mmdet's {script} is missing; install mmdet 3.x with its tools "
            '(pip install mmdet)')
    return script, mim


def run_mmdet(config, ckpt, grid, options, work):
    script, mim = mmdet_script()
    names, severities = grid
    env = dict(os.environ, PYTHONPATH=mim,
               TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD='1')
    out = osp.join(work, 'results.pkl')
    took, proc = timed([
        sys.executable, script, config, ckpt, '--out', out, '--work-dir',
        work, '--corruptions', *names, '--severities',
        *map(str, severities), '--cfg-options',
        'model.backbone.init_cfg._delete_=True',
        'model.backbone.init_cfg.type=None', *options
    ], env, allow_fail=True)
    from robustdet.utils.safe_pickle import load_pickle
    pkl = osp.splitext(out)[0] + '_results.pkl'
    saved = load_pickle(pkl) if osp.exists(pkl) else {}
    done = sum(1 for n in names for s in severities
               if s > 0 and s in saved.get(n, {}))
    wanted = len(names) * sum(s > 0 for s in severities)
    if done < wanted:
        sys.exit(f"error: mmdet's test_robustness.py stopped after "
                 f'{done}/{wanted} cells: '
                 f'{proc.stderr.strip().splitlines()[-1:]}')
    return took


def run_robustdet(config, ckpt, grid, options, work, extra=()):
    names, severities = grid
    took, _ = timed([
        sys.executable, 'tools/test_robust.py', config, ckpt, '--work-dir',
        work, '--corruptions', *names, '--severities', *map(str, severities),
        '--overwrite', *extra, '--cfg-options', *options
    ])
    return took


def run_model_only(config, ckpt, passes, options):
    """The model-only process's wall and CPU seconds, and its start-up's
    (imports, runner, checkpoint: up to its first pass)."""
    took, proc = timed([
        sys.executable, __file__, '--model-only', config, ckpt,
        str(passes), '--cfg-options', *options
    ])
    wall, cpu = proc.stdout.strip().splitlines()[-1].split()[1:3]
    return took, dict(wall=float(wall), cpu=float(cpu))


def model_only(config, ckpt, passes, options):
    """The model alone: ``passes`` passes of the clean test set through
    ``test_step``, no corruption, evaluation or writing (one dataloader,
    its workers kept between passes)."""
    import torch
    from mmengine.config import Config, DictAction
    from mmengine.runner import Runner

    from robustdet.models.roi_align import use_fast_roi_align
    from robustdet.utils import load_checkpoint_to_runner
    cfg = Config.fromfile(config)
    parser = argparse.ArgumentParser()
    parser.add_argument('--o', nargs='*', action=DictAction, default={})
    cfg.merge_from_dict(parser.parse_args(['--o', *options]).o)
    if cfg.get('test_dataloader') is None:
        raise RobustDetError(f'{config} has no test_dataloader')
    cfg.work_dir = tempfile.mkdtemp(prefix='model_only_')
    cfg.test_dataloader.persistent_workers = \
        cfg.test_dataloader.num_workers > 0
    runner = Runner.from_cfg(cfg)
    load_checkpoint_to_runner(runner, ckpt)
    # The model as robustdet's runs have it (mmdet's script keeps mmcv's
    # RoIAlign: its ratio to this includes the kernel's difference).
    use_fast_roi_align(runner.model)
    loader = runner.build_dataloader(cfg.test_dataloader)
    runner.model.eval()
    ready = (time.perf_counter() - _STARTED, time.process_time())
    with torch.no_grad():
        for _ in range(int(passes)):
            for batch in loader:
                runner.model.test_step(batch)
    print(f'startup {ready[0]:.3f} {ready[1]:.3f}')


# -- the evaluation and the corruptions ----------------------------------


def eval_seconds(num_images, seed):
    """Wall and CPU seconds of one COCO evaluation (``evaluate()``:
    results to json, loading, COCO evaluation, summary) of ``num_images``
    COCO-sized images with 100 detections each, per evaluator."""
    import bench_coco_eval
    from mmdet.evaluation.metrics import CocoMetric
    from mmengine.logging import MMLogger

    from robustdet.evaluation import FastCocoMetric
    if not MMLogger.check_instance_created('bench_coco_scale'):
        MMLogger.get_instance('bench_coco_scale', log_level='WARNING')
    coco, samples = bench_coco_eval.synthetic(num_images, 80, 100, 7.3, seed)
    classes = [c['name'] for c in coco['categories']]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        ann = osp.join(tmp, 'gt.json')
        with open(ann, 'w') as f:
            json.dump(coco, f)
        for name, cls in (('pycocotools', CocoMetric),
                          ('faster-coco-eval', FastCocoMetric)):
            _, (wall, cpu) = bench_coco_eval.run(cls, samples, ann, classes,
                                                 ['bbox'])
            out[name] = dict(wall=wall, cpu=cpu)
            print(f'  {name}: {wall:.2f} s for {num_images} images',
                  flush=True)
    return out


def corruption_speed(data_dir, names):
    """Fast against reference backend on the severities 1-5 of ``names``
    (the harness grid's) on one generated 480x640 image (best of 1, after
    a warm-up): the ratio of the totals, zoom_blur's, and the smallest."""
    import cv2
    from bench_corruptions import bench_imagenet_c
    path = sorted(os.listdir(osp.join(data_dir, 'images')))[0]
    img = cv2.imread(osp.join(data_dir, 'images', path))[..., ::-1].copy()
    with contextlib.redirect_stdout(io.StringIO()):
        out = bench_imagenet_c(img, list(names), 1)
    totals = {b: sum(c[b] for cells in out['cells'].values() for c in cells)
              for b in ('reference', 'fast')}
    ratio = totals['reference'] / totals['fast']
    zoom = ([sum(c[b] for c in out['cells']['zoom_blur'])
             for b in ('reference', 'fast')]
            if 'zoom_blur' in out['cells'] else None)
    smallest = min(c['reference'] / c['fast']
                   for cells in out['cells'].values() for c in cells)
    return dict(fast_vs_reference=ratio,
                zoom_blur_fast_vs_reference=zoom and zoom[0] / zoom[1],
                smallest_ratio=smallest,
                variants=sum(map(len, out['cells'].values())),
                reference_seconds=totals['reference'],
                fast_seconds=totals['fast'])


# -- the projection -----------------------------------------------------------


def project(data_cpu, eval_s, cores, ips, cells, images=FULL_IMAGES,
            overlap=False):
    """Seconds of ``cells`` cells of ``images`` images: per cell the data
    side (``data_cpu`` CPU-seconds per image-cell over ``cores`` cores) or
    the model (``ips`` images/s), whichever is slower, and the evaluation
    (``eval_s`` per cell) after it, or beside it with ``overlap``."""
    step = max(images * data_cpu / cores, images / ips if ips else 0.0)
    if overlap:
        return cells * max(step, eval_s) + eval_s
    return cells * (step + eval_s)


FORMULA = ('T = cells x (max(5000 x d / C, 5000 / X) + E)   [E in line]\n'
           'T = cells x max(5000 x d / C, 5000 / X, E) + E  [E overlapped]'
           '\n  d: data-side CPU-seconds per image-cell (replay run: CPU '
           'time of the\n     process and its workers, less its '
           'evaluation, / (images x cells))\n  C: cores, X: model '
           'images/s, E: evaluation seconds per cell at 5000 images')


def machine():
    return dict(cpu=cpu_model(), cores=len(os.sched_getaffinity(0)),
                python=platform.python_version())


def check_args(args):
    allowed = sorted(os.sched_getaffinity(0))
    if args.images < 1:
        raise RobustDetError(f'--images {args.images}: give at least 1')
    if args.r50_images < 0 or args.r50_images > args.images:
        raise RobustDetError(f'--r50-images {args.r50_images}: from 0 to '
                             f'--images ({args.images})')
    if args.cores is not None and not 1 <= args.cores <= len(allowed):
        raise RobustDetError(f'--cores {args.cores}: this machine lets this '
                             f'process use 1 to {len(allowed)}')
    if args.workers < 0 or args.cells_per_pass < 1 or args.eval_images < 1:
        raise RobustDetError('--workers must be >= 0, --cells-per-pass and '
                             '--eval-images >= 1')
    from robustdet.utils.cli import load_config
    for config in (REPLAY_CONFIG, args.r50_config):
        if not osp.isfile(config):
            raise RobustDetError(f'{config}: no such config')
        if load_config(config).get('test_dataloader') is None:
            raise RobustDetError(f'{config} has no test_dataloader')
    if args.cores is not None:
        os.sched_setaffinity(0, allowed[:args.cores])
    return len(os.sched_getaffinity(0))


@cli_entry
def main():
    args = parse_args()
    if args.model_only:
        return model_only(*args.model_only, args.cfg_options)
    cores = check_args(args)
    if not args.skip_mmdet:
        mmdet_script()
    from robustdet.corruptions import resolve_corruptions
    names = resolve_corruptions(args.corruptions)
    grid = (names, sorted(set(args.severities)))
    cells = len(names) * sum(s > 0 for s in grid[1]) + (0 in grid[1])
    data_dir = osp.abspath(args.data_dir)
    work = args.work_dir or tempfile.mkdtemp(prefix='bench_coco_scale_')
    info = machine()
    info['cores'] = cores
    print(f'{info["cpu"]}, {cores} cores, {args.workers} dataloader '
          f'workers; {args.images} images of 640x480, {cells} cells',
          flush=True)
    t = time.perf_counter()
    ensure_data(data_dir, args.images, args.seed)
    replay_ckpt, r50_ckpt = save_checkpoints(data_dir, args.r50_config,
                                             args.seed, args.r50_images > 0)
    print(f'data ready in {time.perf_counter() - t:.1f} s', flush=True)
    ann = 'annotations/instances_val.json'
    common = [
        f'test_dataloader.dataset.data_root={data_dir}/',
        f'test_dataloader.dataset.ann_file={ann}',
        'test_dataloader.dataset.data_prefix.img=images/',
        f'test_evaluator.ann_file={data_dir}/{ann}',
        f'test_dataloader.num_workers={args.workers}',
        f'test_dataloader.persistent_workers={args.workers > 0}'
    ]
    replay = common + [f'model.detections={data_dir}/detections.npz']
    fast = ['--backend', 'fast', '--cells-per-pass',
            str(args.cells_per_pass)]
    fast_eval = ['test_evaluator.type=FastCocoMetric']
    results = dict(machine=info, images=args.images, cells=cells,
                   workers=args.workers, targets=TARGETS)

    print('\n## harness: ReplayDetector, '
          f'{args.images} images x {cells} cells', flush=True)
    harness = {}
    if not args.skip_mmdet:
        harness['mmdet'] = run_mmdet(REPLAY_CONFIG, replay_ckpt, grid, replay,
                                     osp.join(work, 'mmdet'))
    harness['robustdet'] = run_robustdet(REPLAY_CONFIG, replay_ckpt, grid,
                                         replay, osp.join(work, 'default'))
    harness['robustdet_fast'] = run_robustdet(
        REPLAY_CONFIG, replay_ckpt, grid, replay + fast_eval,
        osp.join(work, 'fast'), fast)
    harness['model_only'], results['startup'] = run_model_only(
        REPLAY_CONFIG, replay_ckpt, cells, replay)
    results['harness'] = harness

    r50 = {}
    if args.r50_images:
        r50_grid = (list(args.r50_corruptions), [0, 3])
        r50_cells = len(r50_grid[0]) + 1
        subset = common + [f'test_dataloader.dataset.indices='
                           f'{args.r50_images}']
        print(f'\n## R50-FPN: {args.r50_images} images x {r50_cells} cells',
              flush=True)
        model = (args.r50_config, r50_ckpt)
        if not args.skip_mmdet:
            r50['mmdet'] = run_mmdet(*model, r50_grid, subset,
                                     osp.join(work, 'r50-mmdet'))
        r50['robustdet'] = run_robustdet(*model, r50_grid, subset,
                                         osp.join(work, 'r50'))
        r50['robustdet_fast'] = run_robustdet(*model, r50_grid,
                                              subset + fast_eval,
                                              osp.join(work, 'r50-fast'),
                                              fast)
        r50['model_only'], _ = run_model_only(*model, r50_cells, subset)
        results['r50'] = dict(images=args.r50_images, cells=r50_cells,
                              runs=r50)

    print(f'\n## one COCO evaluation of {args.eval_images} images, and '
          f'of {args.images}', flush=True)
    evals = eval_seconds(args.eval_images, args.seed)
    per_5000 = {k: v['wall'] * FULL_IMAGES / args.eval_images
                for k, v in evals.items()}
    results['eval_seconds_per_cell_5000'] = dict(
        per_5000, measured_images=args.eval_images)
    results['eval_per_cell_quick'] = eval_seconds(args.images, args.seed)
    print('\n## corruptions: fast against reference backend, one 480x640 '
          'image', flush=True)
    results['corruptions'] = corruption_speed(data_dir, names)
    report(results, args, cells, per_5000)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)
        print(f'wrote {args.json}')
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)


def report(results, args, cells, per_5000):
    """Print the figures and add the derived ones to ``results``."""
    info, harness = results['machine'], results['harness']
    n, cores = args.images, info['cores']
    evaluator = dict(mmdet='pycocotools', robustdet='pycocotools',
                     robustdet_fast='faster-coco-eval')
    print(f'\n## {info["cpu"]}, {cores} cores: seconds per image-cell '
          f'(start-up, {results["startup"]["wall"]:.1f} s, left out of the '
          'replay column)')
    print('| tool | replay harness | R50-FPN | vs mmdet (replay) | vs model '
          'alone (R50) |')
    print('|---|---|---|---|---|')
    r50 = results.get('r50', {}).get('runs', {})
    r50_n = results.get('r50', {}).get('images', 0) * results.get(
        'r50', {}).get('cells', 0)
    rows = {}
    for tool, took in harness.items():
        per = (took['wall'] - results['startup']['wall']) / (n * cells)
        r50_per = r50[tool]['wall'] / r50_n if tool in r50 else None
        vs_mmdet = (harness['mmdet']['wall'] / took['wall']
                    if 'mmdet' in harness else None)
        vs_model = (r50[tool]['wall'] / r50['model_only']['wall']
                    if tool in r50 and 'model_only' in r50 else None)
        rows[tool] = dict(replay_seconds_per_image_cell=per,
                          r50_seconds_per_image_cell=r50_per,
                          speedup_vs_mmdet=vs_mmdet,
                          r50_wall_over_model_only=vs_model)
        print(f'| {tool} | {per:.4f} | '
              f'{"-" if r50_per is None else f"{r50_per:.3f}"} | '
              f'{"-" if vs_mmdet is None else f"{vs_mmdet:.2f}x"} | '
              f'{"-" if vs_model is None else f"{vs_model:.3f}"} |')
    results['per_tool'] = rows
    # Data-side CPU-seconds per image-cell: the replay run's CPU time less
    # the start-up's and its evaluations' (measured at its image count).
    data_cpu = {}
    quick = results['eval_per_cell_quick']
    for tool, took in harness.items():
        if tool == 'model_only':
            continue
        rest = results['startup']['cpu'] + cells * quick[evaluator[tool]][
            'cpu']
        data_cpu[tool] = max(took['cpu'] - rest, 0.0) / (n * cells)
    results['data_cpu_seconds_per_image_cell'] = data_cpu
    projected = {}
    for tool, d in data_cpu.items():
        e = per_5000[evaluator[tool]]
        projected[tool] = dict(
            here=project(d, e, cores, 0, cells),
            host=project(d, e, args.project_cores, args.project_ips, cells),
            # mmdet's script always evaluates in line
            host_overlapped=None if tool == 'mmdet' else project(
                d, e, args.project_cores, args.project_ips, cells,
                overlap=True))
    results['projected_seconds_full_cococ'] = projected
    # On the host each tool as it runs by default: robustdet's
    # --eval-overlap auto overlaps there (at least 4 cores).
    from robustdet.engine.runner.async_eval import AUTO_MIN_CORES
    results['projected_hours_full_cococ'] = {
        k: (v['host'] if v['host_overlapped'] is None or
            args.project_cores < AUTO_MIN_CORES else v['host_overlapped']) /
        3600
        for k, v in projected.items()
    }
    if 'mmdet' in projected:
        measured = harness['mmdet']['wall'] / harness['robustdet']['wall']
        at_5000 = projected['mmdet']['here'] / projected['robustdet']['here']
        results['harness_speedup_vs_mmdet'] = dict(
            measured=measured, projected_5000=at_5000)
        print(f'\nharness, robustdet defaults vs mmdet: {measured:.2f}x on '
              f'{n} images, {at_5000:.2f}x projected to 5000 (target >= '
              f'{TARGETS["harness_speedup_vs_mmdet"]}x)')
    if 'robustdet' in r50 and 'model_only' in r50:
        ratio = r50['robustdet']['wall'] / r50['model_only']['wall']
        results['r50_wall_over_model_only'] = ratio
        print(f'R50-FPN, robustdet defaults over the model alone: '
              f'{ratio:.3f} (target <= '
              f'{TARGETS["r50_wall_over_model_only"]})')
    speed = results['corruptions']
    results['fast_vs_reference'] = speed['fast_vs_reference']
    zoom = ('' if speed['zoom_blur_fast_vs_reference'] is None else
            f', zoom_blur {speed["zoom_blur_fast_vs_reference"]:.1f}x '
            '(target >= 20x)')
    print(f'fast vs reference, {speed["variants"]} variants at 480x640: '
          f'{speed["fast_vs_reference"]:.1f}x (target >= 10x){zoom}, '
          f'smallest {speed["smallest_ratio"]:.2f}x')
    print('one COCO evaluation of 5000 images: '
          + ', '.join(f'{k} {v:.1f} s' for k, v in per_5000.items()))
    print(f'\n## projected full COCO-C (5000 images x {cells} cells)\n'
          f'{FORMULA}')
    print(f'| tool | d (CPU-s) | here ({cores} cores, model free) | '
          f'{args.project_cores} cores, {args.project_ips:g} images/s | '
          'same, evaluation overlapped |')
    print('|---|---|---|---|---|')
    for tool, p in projected.items():
        aside = ('- (in line only)' if p['host_overlapped'] is None else
                 f'{p["host_overlapped"] / 3600:.2f} h')
        print(f'| {tool} | {data_cpu[tool]:.4f} | {p["here"] / 3600:.2f} h '
              f'| {p["host"] / 3600:.2f} h | {aside} |')


if __name__ == '__main__':
    main()
