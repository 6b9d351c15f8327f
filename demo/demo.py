# Copyright (c) robustdet contributors. All rights reserved.
"""``make demo``: the whole robustdet loop on generated data, on a CPU.

1. generate the demo dataset (COCO, VOC and Cityscapes layouts);
2. train the tiny demo Faster R-CNN once (cached under the work dir);
3. benchmark it under all 19 corruptions x 5 severities with
   ``tools/test_robust.py`` (resumable: a rerun skips finished cells), and
   put it beside the published COCO rows of Michaelis et al. 2019
   (``tools/compare_results.py``; the demo data are synthetic shapes, not
   COCO: this shows the table, not a ranking);
4. score it with pm-k on the synthetic video neighbour sets
   (``tools/test_pmk.py``);
5. stylized training (Michaelis et al. 2019): stylize the training set
   with AdaIN (``tools/stylize_dataset.py``; generated weights unless
   ``--adain-weights-dir`` holds the release files), train the combined
   scheme (clean + stylized), benchmark it like the standard model and
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
   combined model's mCE against the standard one
   (``test_robust.py --ce-baseline``);
9. robust training: the demo detector trained with ``RandomCorrupt`` on
   the 4 hold-out corruptions (``configs/demo/...-randcorrupt.py``),
   benchmarked like the standard model, then the standard, combined (after
   step 5) and RandomCorrupt models in one table
   (``robustness_report.py --compare``) and one P-mPC plot
   (``compare_results.py``).

Each step prints the command a user would run for it, and is skipped when
its output already exists.
"""
import argparse
import os.path as osp
import shlex
import subprocess
import sys
import time

from robustdet.utils.cli import cli_entry
from robustdet.utils.errors import RobustDetError

REPO = osp.dirname(osp.dirname(osp.abspath(__file__)))
CONFIG = 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py'
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


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Run the robustdet demo end to end')
    parser.add_argument('--data-dir', default='data/demo')
    parser.add_argument('--work-dir', default='work_dirs/demo')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument(
        '--schemes',
        nargs='*',
        choices=list(SCHEME_CONFIGS),
        default=['combined'],
        help='stylized training schemes to train and benchmark besides '
        'the standard one (default: combined; none: skip step 5)')
    parser.add_argument(
        '--adain-weights-dir',
        help='directory with the pytorch-AdaIN release weights '
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


@cli_entry
def main():
    args = parse_args()
    if osp.abspath(args.data_dir) != osp.join(REPO, 'data', 'demo'):
        raise RobustDetError(
            '--data-dir must be data/demo: the demo configs read from there')
    run(['python', 'demo/make_demo_data.py', '--out-dir', args.data_dir,
         '--seed', str(args.seed), '--video', '--styles', str(NUM_STYLES),
         '--foggy', '--bdd100k'])

    ckpt = train(CONFIG, osp.join(args.work_dir, 'train'), 'demo detector')
    robust_dir = osp.join(args.work_dir, 'robustness')
    took = benchmark(CONFIG, ckpt, robust_dir, args.seed)
    report = osp.join(REPO, robust_dir, 'robustness.md')
    with open(report, encoding='utf-8') as f:
        print('\n' + f.read())
    print(f'[demo] robustness benchmark took {took / 60:.1f} min; report: '
          f'{report}')
    run(['python', 'tools/compare_results.py',
         f'demo={osp.join(robust_dir, "robustness.json")}', '--dataset',
         'coco', '--out-dir', osp.join(args.work_dir, 'compare')])
    print('[demo] the demo detector (synthetic shapes, not COCO) beside '
          'the published COCO rows: docs/baselines.md')
    took = run(['python', 'tools/test_pmk.py', PMK_CONFIG, ckpt,
                '--work-dir', osp.join(args.work_dir, 'pmk')])
    print(f'[demo] pm-k on the synthetic video neighbour sets took '
          f'{took / 60:.1f} min')
    if args.schemes:
        stylized_demo(args, robust_dir)
    shift_demo(args, ckpt)
    video_demo(args, ckpt)
    beyond_demo(args, ckpt)
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
    print(f'[demo] video corruption benchmark took {took / 60:.1f} min; '
          f'report: {report}')
    took = run(['python', 'tools/test_pmk.py', PMK_CONFIG, ckpt,
                '--video-corruption', 'h264_crf', '--severity', '5',
                '--work-dir', osp.join(args.work_dir, 'pmk-h264_crf-5')])
    print(f'[demo] pm-k under H.264 CRF 51 took {took / 60:.1f} min')


# Step 8's grid: C-bar and the depth-free 3DCC corruptions.
BEYOND = ['--corruptions', 'cbar', '3dcc_depth_free', '--severities', '0',
          '1', '3', '5']


def beyond_demo(args, ckpt):
    """Step 8: the newer families, regions and corruption errors."""
    work = osp.join(args.work_dir, 'beyond')
    took = run(['python', 'tools/test_robust.py', CONFIG, ckpt, *BEYOND,
                '--region', 'all', 'objects', 'background', '--work-dir',
                work, '--seed', str(args.seed)])
    print(f'[demo] C-bar and 3DCC over three regions took {took / 60:.1f} '
          'min')
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
          f'and 3DCC took {took / 60:.1f} min')


def robust_training_demo(args, standard_dir):
    """Step 9: train with RandomCorrupt, benchmark, compare."""
    ckpt = train(RANDCORRUPT_CONFIG,
                 osp.join(args.work_dir, 'train-randcorrupt'),
                 'RandomCorrupt demo detector')
    work = osp.join(args.work_dir, 'robustness-randcorrupt')
    took = benchmark(RANDCORRUPT_CONFIG, ckpt, work, args.seed)
    print(f'[demo] RandomCorrupt: robustness benchmark took '
          f'{took / 60:.1f} min')
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
        took = run(['python', 'tools/train.py', config, '--work-dir',
                    train_dir])
        print(f'[demo] trained the {what} in {took / 60:.1f} min')
    return ckpt


def benchmark(config, ckpt, work_dir, seed):
    return run(['python', 'tools/test_robust.py', config, ckpt,
                '--corruptions', 'all', '--work-dir', work_dir, '--seed',
                str(seed)])


def shift_demo(args, ckpt):
    """Step 6: Foggy Cityscapes and BDD100k weather with test_shift."""
    took = run(['python', 'tools/test_shift.py', FOGGY_CONFIG, ckpt,
                '--benchmark', 'foggy-cityscapes', '--work-dir',
                osp.join(args.work_dir, 'shift-foggy-cityscapes')])
    print(f'[demo] Foggy Cityscapes shift benchmark took {took / 60:.1f} '
          'min')
    bdd_ckpt = train(BDD_CONFIG,
                     osp.join(args.work_dir, 'train-bdd100k-clear'),
                     'BDD100k clear-weather demo detector', epochs=12)
    took = run(['python', 'tools/test_shift.py', BDD_CONFIG, bdd_ckpt,
                '--benchmark', 'bdd100k-weather', '--split-dir',
                osp.join(args.data_dir, 'bdd100k', 'splits'), '--work-dir',
                osp.join(args.work_dir, 'shift-bdd100k-weather')])
    print(f'[demo] BDD100k weather shift benchmark took {took / 60:.1f} '
          'min')


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
    print(f'[demo] stylized the training set in {took / 60:.1f} min')
    compare = [f'standard={osp.join(standard_dir, "robustness.json")}']
    for scheme in args.schemes:
        tag = osp.basename(SCHEME_CONFIGS[scheme])[:-3].rsplit('-', 1)[1]
        ckpt = train(SCHEME_CONFIGS[scheme],
                     osp.join(args.work_dir, f'train-{tag}'),
                     f'{scheme} demo detector')
        work = osp.join(args.work_dir, f'robustness-{tag}')
        took = benchmark(SCHEME_CONFIGS[scheme], ckpt, work, args.seed)
        print(f'[demo] {scheme}: robustness benchmark took '
              f'{took / 60:.1f} min')
        compare.append(f'{scheme}={osp.join(work, "robustness.json")}')
    print('[demo] standard vs stylized training (AdaIN weights: '
          f'{args.adain_weights_dir or "generated"}):')
    run(['python', 'tools/robustness_report.py', '--compare'] + compare)


if __name__ == '__main__':
    main()
