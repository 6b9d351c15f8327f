# Copyright (c) robustdet contributors. All rights reserved.
"""``make demo`` and ``make demo-full``: robustdet on generated data, on a
CPU.

``make demo`` is the main job. It trains nothing: it benchmarks the
committed demo detector (``demo/checkpoints/``, trained once with the demo
recipe by ``demo/make_demo_detector.py``; its sha256 is checked), so its
figures are the same on every CPU:

1. generate the demo data's COCO layout (``demo/make_demo_data.py``);
2. check the committed demo detector;
3. benchmark it under all 19 corruptions x 5 severities with
   ``tools/test_robust.py`` (resumable: a rerun skips finished cells),
   write its HTML page (``tools/robustness_report.py --html``), and put it
   beside the published COCO rows of Michaelis et al. 2019
   (``tools/compare_results.py``; the demo data are synthetic shapes, not
   COCO: this shows the table, not a ranking).

``make demo-full`` (``--full``) runs the main job, the rest of the demo
data, then the tour; the detectors it trains give other figures on other
CPUs:

4. score the demo detector with pm-k on the synthetic video neighbour sets
   (``tools/test_pmk.py``);
5. stylized training (Michaelis et al. 2019): stylize the training set
   with AdaIN (``tools/stylize_dataset.py``; generated weights unless
   ``--adain-weights-dir`` holds the release files), train the combined
   scheme (clean + stylized), benchmark it like the demo detector and
   print the two side by side;
6. natural shifts (``tools/test_shift.py``): the demo detector on the
   synthetic Foggy Cityscapes copy, and a detector trained on the clear
   frames of the synthetic BDD100k tree on its clear / rainy / snowy
   lists;
7. video corruptions: the demo detector on the synthetic videos (CocoVID
   layout, 4 videos of 31 frames) under all 19 clip corruptions x 5
   severities (``tools/test_robust.py --corruptions video``: mPC, rPC,
   gamma_a / gamma_r per family), and pm-k on the neighbour sets under
   H.264 at CRF 51 (``tools/test_pmk.py --video-corruption``);
8. beyond the 15 of 2019: the demo detector under the ten C-bar and the
   three depth-free 3DCC corruptions at severities 1, 3, 5, over the whole
   image, only its objects and only their background (``--region all
   objects background``: mPC_cbar, mPC_3dcc and ``regions.md``), the
   corruption errors of the objects-only run against the whole-image run
   (``robustness_report.py --ce-baseline``), and, after step 5, the
   combined model's mCE against the demo detector
   (``test_robust.py --ce-baseline``);
9. robust training: the demo recipe trained with ``RandomCorrupt`` on the
   4 hold-out corruptions (``configs/demo/...-randcorrupt.py``),
   benchmarked like the demo detector, then the demo, combined (after
   step 5) and RandomCorrupt models in one table
   (``robustness_report.py --compare``) and one P-mPC plot
   (``compare_results.py``).

Each step prints the command a user would run for it and its wall time,
and is skipped when its output already exists; a training that was
interrupted resumes from its last epoch. Before any work, the data and
work directories must be writable and have room.
"""
import argparse
import contextlib
import glob
import os
import os.path as osp
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from robustdet.utils.cli import cli_entry
from robustdet.utils.errors import RobustDetError
from robustdet.utils.io import sha256_file

REPO = osp.dirname(osp.dirname(osp.abspath(__file__)))
CONFIG = 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py'
# The committed demo detector (demo/make_demo_detector.py) and its hash.
DETECTOR = 'demo/checkpoints/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.pth'
DETECTOR_SHA256 = (
    '337a69caebeba802bbcb50238d468b38f77bec34ff7418a6ed3ceeb3a6c27cc0')
PMK_CONFIG = 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-vid-pmk.py'
FOGGY_CONFIG = (
    'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-foggy-cityscapes.py')
BDD_CONFIG = (
    'configs/demo/faster-rcnn_r18-c16_fpn-c64_12e_demo-bdd100k-clear.py')
VIDEO_CONFIG = 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-vid.py'
RANDCORRUPT_CONFIG = (
    'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco-randcorrupt.py')
SCHEME_CONFIGS = {
    'stylized': 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-scoco.py',
    'combined':
    'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-cocoscoco.py',
}
NUM_STYLES = 6
# Styles are 256x256 procedural paintings, used at this shorter side.
STYLE_SIZE = 128
# The free space each target needs before it starts, in MiB: the main
# job's data and work directories grew to 11 MiB from empty (README.md's
# machine); the tour's (stylized images, nine training checkpoints) were
# not measured: a bound with room to spare.
ROOM_MIB = dict(main=50, full=2000)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Run the robustdet demo: the main job, or with --full '
        'the whole tour')
    parser.add_argument('--data-dir', default='data/demo')
    parser.add_argument('--work-dir', default='work_dirs/demo')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument(
        '--full',
        action='store_true',
        help='after the main job, the tour: pm-k, stylized training, '
        'shifts, video, C-bar and 3DCC, robust training (make demo-full)')
    parser.add_argument(
        '--schemes',
        nargs='*',
        choices=list(SCHEME_CONFIGS),
        default=['combined'],
        help='with --full: stylized training schemes to train and '
        'benchmark besides the demo detector (default: combined; none: '
        'skip step 5)')
    parser.add_argument(
        '--adain-weights-dir',
        help='with --full: directory with the pytorch-AdaIN release weights '
        "(vgg_normalised.pth, decoder.pth); default: robustdet's "
        'generated weights')
    return parser.parse_args(argv)


def run(cmd):
    print('$ ' + ' '.join(shlex.quote(c) for c in cmd), flush=True)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable] + cmd[1:], cwd=REPO)
    if proc.returncode != 0:
        raise RobustDetError(
            f'demo step failed (exit {proc.returncode}): {" ".join(cmd)}')
    return time.perf_counter() - start


def minutes(seconds):
    """A wall time as the demo prints it."""
    return f'{seconds / 60:.1f} min'


class StepTimes:
    """Time the demo's steps, print each one's wall time as it ends and
    all of them at the end."""

    def __init__(self):
        self.times = []
        self.start = time.perf_counter()

    @contextlib.contextmanager
    def __call__(self, number, what):
        print(f'[demo] step {number}: {what}', flush=True)
        start = time.perf_counter()
        yield
        took = time.perf_counter() - start
        self.times.append((number, what, took))
        print(f'[demo] step {number} took {minutes(took)}: {what}',
              flush=True)

    def summary(self):
        """The step times and the total, one line each."""
        lines = [f'  step {n}  {minutes(t):>9}  {what}'
                 for n, what, t in self.times]
        total = time.perf_counter() - self.start
        return '\n'.join(lines + [f'  total   {minutes(total):>9}'])


def check_room(paths, need_mib):
    """Refuse, before any work, a directory the demo cannot write or
    whose file system has less than ``need_mib`` MiB free.

    Args:
        paths (list[str]): The directories the demo writes (created if
            missing).
        need_mib (int): The free space the demo needs, in MiB.

    Raises:
        RobustDetError: One line naming the directory and what is wrong.
    """
    for path in paths:
        try:
            os.makedirs(path, exist_ok=True)
            with tempfile.TemporaryFile(dir=path):
                pass
        except OSError as e:
            raise RobustDetError(
                f'cannot write to {path} ({e.strerror or e}): the demo '
                'writes its data and results there') from None
        free = shutil.disk_usage(path).free / 2**20
        if free < need_mib:
            raise RobustDetError(
                f'only {free:.0f} MiB free on the file system of {path}; '
                f'the demo needs about {need_mib} MiB: free some space '
                'first') from None


def check_detector():
    """The committed demo detector, its hash checked."""
    path = osp.join(REPO, DETECTOR)
    if not osp.isfile(path):
        raise RobustDetError(f'{DETECTOR} is missing: it is part of the '
                             'repository (git checkout -- demo/checkpoints)')
    found = sha256_file(path)
    if found != DETECTOR_SHA256:
        raise RobustDetError(
            f'{DETECTOR} has sha256 {found}, expected {DETECTOR_SHA256}: '
            'restore it from git, or retrain it with '
            'demo/make_demo_detector.py and update DETECTOR_SHA256')
    print(f'[demo] {DETECTOR}: sha256 {found[:16]}..., as committed')
    return DETECTOR


@cli_entry
def main():
    args = parse_args()
    if osp.abspath(args.data_dir) != osp.join(REPO, 'data', 'demo'):
        raise RobustDetError(
            '--data-dir must be data/demo: the demo configs read from there')
    check_room([args.data_dir, args.work_dir],
               ROOM_MIB['full' if args.full else 'main'])
    step = StepTimes()
    data = ['python', 'demo/make_demo_data.py', '--out-dir', args.data_dir,
            '--seed', str(args.seed)]
    with step(1, 'demo data, COCO layout'):
        run(data + ['--layouts', 'coco'])
    with step(2, 'the committed demo detector'):
        ckpt = check_detector()
    robust_dir = osp.join(args.work_dir, 'robustness')
    with step(3, 'benchmark: 19 corruptions x 5 severities, reports'):
        outputs = main_job(args, ckpt, robust_dir)
    if args.full:
        full_tour(args, ckpt, robust_dir, data, step)
    print('\n[demo] step times:\n' + step.summary())
    print('\n[demo] outputs:')
    width = max(len(k) for k in outputs)
    for key, path in outputs.items():
        print(f'  {key:<{width}}  {path}')
    page = osp.join(REPO, outputs['HTML page'])
    print(f'\nOpen the HTML page:\n  python -m webbrowser file://{page}')
    if not args.full:
        print('\nThe whole tour (pm-k, stylized training, shifts, video, '
              'C-bar and 3DCC, robust training) is `make demo-full`: it '
              'trains three detectors, hours on 2 cores (README.md has the '
              'step times).')


def main_job(args, ckpt, robust_dir):
    """Step 3: benchmark, report, HTML page, published rows; the
    outputs by what they are."""
    took = benchmark(CONFIG, ckpt, robust_dir, args.seed)
    report = osp.join(robust_dir, 'robustness.md')
    with open(osp.join(REPO, report), encoding='utf-8') as f:
        print('\n' + f.read())
    print(f'[demo] the benchmark took {minutes(took)}')
    results = osp.join(robust_dir, 'robustness.json')
    run(['python', 'tools/robustness_report.py', results, '--html'])
    compare = osp.join(args.work_dir, 'compare')
    run(['python', 'tools/compare_results.py', f'demo={results}',
         '--dataset', 'coco', '--out-dir', compare])
    print('[demo] the demo detector (synthetic shapes, not COCO) beside '
          'the published COCO rows: docs/baselines.md')
    plots = sorted(glob.glob(osp.join(REPO, robust_dir, '*.png')))
    return {
        'results': results,
        'report': report,
        'tables': ', '.join(
            osp.join(robust_dir, name)
            for name in ('robustness.csv', 'robustness_summary.csv')),
        'plots': ', '.join(
            osp.join(robust_dir, osp.basename(p)) for p in plots),
        'HTML page': osp.join(robust_dir, 'robustness.html'),
        'beside COCO rows': compare,
    }


def full_tour(args, ckpt, robust_dir, data, step):
    """Steps 4 to 9 (``make demo-full``)."""
    with step(4, 'the rest of the demo data; pm-k on its video sets'):
        run(data + ['--video', '--styles', str(NUM_STYLES), '--foggy',
                    '--bdd100k'])
        run(['python', 'tools/test_pmk.py', PMK_CONFIG, ckpt,
             '--work-dir', osp.join(args.work_dir, 'pmk')])
    if args.schemes:
        with step(5, 'stylized training'):
            stylized_demo(args, robust_dir)
    with step(6, 'natural shifts: Foggy Cityscapes, BDD100k weather'):
        shift_demo(args, ckpt)
    with step(7, 'video corruptions'):
        video_demo(args, ckpt)
    with step(8, 'C-bar and 3DCC over three regions'):
        beyond_demo(args, ckpt)
    with step(9, 'robust training with RandomCorrupt'):
        robust_training_demo(args, robust_dir)


def video_demo(args, ckpt):
    """Step 7: clip corruptions on the synthetic videos, pm-k under a
    codec."""
    work = osp.join(args.work_dir, 'robustness-video')
    took = run(['python', 'tools/test_robust.py', VIDEO_CONFIG, ckpt,
                '--corruptions', 'video', '--work-dir', work, '--seed',
                str(args.seed), '--cells-per-pass', '4'])
    report = osp.join(REPO, work, 'robustness.md')
    with open(report, encoding='utf-8') as f:
        text = f.read()
    print('\n' + text[text.index('## Video corruptions'):])
    print(f'[demo] video corruption benchmark took {minutes(took)}; '
          f'report: {report}')
    took = run(['python', 'tools/test_pmk.py', PMK_CONFIG, ckpt,
                '--video-corruption', 'h264_crf', '--severity', '5',
                '--work-dir', osp.join(args.work_dir, 'pmk-h264_crf-5')])
    print(f'[demo] pm-k under H.264 CRF 51 took {minutes(took)}')


# Step 8's grid: C-bar and the depth-free 3DCC corruptions.
BEYOND = ['--corruptions', 'cbar', '3dcc_depth_free', '--severities', '0',
          '1', '3', '5']


def beyond_demo(args, ckpt):
    """Step 8: the newer families, regions and corruption errors."""
    work = osp.join(args.work_dir, 'beyond')
    took = run(['python', 'tools/test_robust.py', CONFIG, ckpt, *BEYOND,
                '--region', 'all', 'objects', 'background', '--work-dir',
                work, '--seed', str(args.seed)])
    print(f'[demo] C-bar and 3DCC over three regions took '
          f'{minutes(took)}')
    whole = osp.join(work, 'region-all', 'robustness.json')
    run(['python', 'tools/robustness_report.py',
         osp.join(work, 'region-objects', 'robustness.json'),
         '--ce-baseline', whole])
    if 'combined' not in args.schemes:
        return
    tag = osp.basename(SCHEME_CONFIGS['combined'])[:-3].rsplit('-', 1)[1]
    took = run([
        'python', 'tools/test_robust.py', SCHEME_CONFIGS['combined'],
        osp.join(args.work_dir, f'train-{tag}', 'epoch_3.pth'), *BEYOND,
        '--ce-baseline', whole, '--work-dir', f'{work}-{tag}', '--seed',
        str(args.seed)
    ])
    print(f'[demo] the combined model against the standard one on C-bar '
          f'and 3DCC took {minutes(took)}')


def robust_training_demo(args, standard_dir):
    """Step 9: train with RandomCorrupt, benchmark, compare."""
    ckpt = train(RANDCORRUPT_CONFIG,
                 osp.join(args.work_dir, 'train-randcorrupt'),
                 'RandomCorrupt demo detector')
    work = osp.join(args.work_dir, 'robustness-randcorrupt')
    took = benchmark(RANDCORRUPT_CONFIG, ckpt, work, args.seed)
    print(f'[demo] RandomCorrupt: robustness benchmark took '
          f'{minutes(took)}')
    runs = [('standard', standard_dir)]
    if 'combined' in args.schemes:
        tag = osp.basename(SCHEME_CONFIGS['combined'])[:-3].rsplit('-', 1)[1]
        runs.append(('combined', osp.join(args.work_dir,
                                          f'robustness-{tag}')))
    runs.append(('randcorrupt', work))
    named = [f'{n}={osp.join(d, "robustness.json")}' for n, d in runs]
    print('[demo] standard vs combined vs RandomCorrupt training:')
    run(['python', 'tools/robustness_report.py', '--compare'] + named)
    run(['python', 'tools/compare_results.py', *named, '--dataset', 'coco',
         '--out-dir', osp.join(args.work_dir, 'compare-training')])


def train(config, train_dir, what, epochs=3):
    """Train ``config`` once (cached); the checkpoint path."""
    ckpt = osp.join(train_dir, f'epoch_{epochs}.pth')
    if osp.exists(ckpt):
        print(f'[demo] using the trained {what} {ckpt}')
    else:
        # --resume: an interrupted training continues from its last epoch.
        took = run(['python', 'tools/train.py', config, '--work-dir',
                    train_dir, '--resume'])
        print(f'[demo] trained the {what} in {minutes(took)}')
    return ckpt


def benchmark(config, ckpt, work_dir, seed):
    # One cell per pass (the default): on the 2-core Zen 1 of README.md,
    # --cells-per-pass 4 gave the same numbers in 12.0 min instead of 10.2
    # (with 1,000 test proposals, before the demo configs kept 300).
    return run(['python', 'tools/test_robust.py', config, ckpt,
                '--corruptions', 'all', '--work-dir', work_dir, '--seed',
                str(seed)])


def shift_demo(args, ckpt):
    """Step 6: Foggy Cityscapes and BDD100k weather with test_shift."""
    took = run(['python', 'tools/test_shift.py', FOGGY_CONFIG, ckpt,
                '--benchmark', 'foggy-cityscapes', '--work-dir',
                osp.join(args.work_dir, 'shift-foggy-cityscapes')])
    print(f'[demo] Foggy Cityscapes shift benchmark took '
          f'{minutes(took)}')
    bdd_ckpt = train(BDD_CONFIG,
                     osp.join(args.work_dir, 'train-bdd100k-clear'),
                     'BDD100k clear-weather demo detector', epochs=12)
    took = run(['python', 'tools/test_shift.py', BDD_CONFIG, bdd_ckpt,
                '--benchmark', 'bdd100k-weather', '--split-dir',
                osp.join(args.data_dir, 'bdd100k', 'splits'), '--work-dir',
                osp.join(args.work_dir, 'shift-bdd100k-weather')])
    print(f'[demo] BDD100k weather shift benchmark took '
          f'{minutes(took)}')


def stylized_demo(args, standard_dir):
    """Step 5: stylize, train the stylized schemes, compare."""
    weights = (['--weights-dir', args.adain_weights_dir]
               if args.adain_weights_dir else ['--generated-weights'])
    coco = osp.join(args.data_dir, 'coco')
    took = run([
        'python', 'tools/stylize_dataset.py', '--coco',
        osp.join(coco, 'annotations', 'instances_train2017.json'),
        osp.join(coco, 'train2017'), '--style-dir',
        osp.join(args.data_dir, 'styles'), '--out-dir',
        osp.join(args.data_dir, 'stylized', 'coco'), '--seed',
        str(args.seed), '--style-size', str(STYLE_SIZE), '--batch-size',
        '8', '--device', 'cpu'
    ] + weights)
    print(f'[demo] stylized the training set in {minutes(took)}')
    compare = [f'standard={osp.join(standard_dir, "robustness.json")}']
    for scheme in args.schemes:
        tag = osp.basename(SCHEME_CONFIGS[scheme])[:-3].rsplit('-', 1)[1]
        ckpt = train(SCHEME_CONFIGS[scheme],
                     osp.join(args.work_dir, f'train-{tag}'),
                     f'{scheme} demo detector')
        work = osp.join(args.work_dir, f'robustness-{tag}')
        took = benchmark(SCHEME_CONFIGS[scheme], ckpt, work, args.seed)
        print(f'[demo] {scheme}: robustness benchmark took '
              f'{minutes(took)}')
        compare.append(f'{scheme}={osp.join(work, "robustness.json")}')
    print('[demo] standard vs stylized training (AdaIN weights: '
          f'{args.adain_weights_dir or "generated"}):')
    run(['python', 'tools/robustness_report.py', '--compare'] + compare)


if __name__ == '__main__':
    main()
