# Copyright (c) robustdet contributors. All rights reserved.
"""Make an AdaIN-stylized copy of a detection dataset (Michaelis et al.
2019, after Geirhos et al. 2019)::

    python tools/stylize_dataset.py \\
        --coco data/coco/annotations/instances_train2017.json \\
        data/coco/train2017 --style-dir data/painter-by-numbers/train \\
        --out-dir data/coco-stylized

    python tools/stylize_dataset.py --voc data/VOCdevkit \\
        --style-dir STYLES --out-dir data/VOCdevkit-stylized
    python tools/stylize_dataset.py --cityscapes data/cityscapes \\
        --split train --style-dir STYLES --out-dir data/cityscapes-stylized

The output mirrors the input layout with the same file names and image
sizes, plus annotation files listing the stylized images, so a config uses
it by changing ``data_root`` (``StylizedDataset``). Styles are assigned by
a seeded hash of each image, so reruns give the same pairs; an interrupted
run resumes. ``stylize_manifest.json`` and ``style_assignments.csv``
record the settings, the weights and which style went where.
"""
from robustdet.utils.cli import ArgumentParser, add_launcher_args, cli_entry


def parse_args(argv=None):
    parser = ArgumentParser(description='AdaIN-stylize a detection dataset')
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument(
        '--coco',
        nargs=2,
        metavar=('ANN_FILE', 'IMG_ROOT'),
        help='COCO annotation file and the directory its file_name entries '
        'are relative to')
    src.add_argument('--voc', metavar='DEVKIT', help='VOCdevkit directory')
    src.add_argument(
        '--cityscapes',
        metavar='ROOT',
        help='Cityscapes root (or its leftImg8bit directory)')
    parser.add_argument(
        '--splits',
        nargs='+',
        metavar='YEAR/SPLIT',
        help='VOC splits, e.g. VOC2007/trainval VOC2012/trainval (default: '
        'the trainval split of every VOC* directory)')
    parser.add_argument(
        '--split', default='train', help='Cityscapes split (default train)')
    parser.add_argument(
        '--style-dir', required=True, help='style images (e.g. Painter by '
        'Numbers train/), searched recursively')
    parser.add_argument(
        '--out-dir', required=True, help='output root (not inside the input)')
    parser.add_argument(
        '--alpha',
        type=float,
        default=1.0,
        help='style weight in [0, 1] (default 1, as in the paper)')
    parser.add_argument(
        '--num-styles',
        type=int,
        default=1,
        help='stylized copies per image (K > 1: OUT/copy0 ... copyK-1)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument(
        '--content-size',
        type=int,
        default=0,
        help='stylize at this shorter side and resize back to the input '
        'size (0 = at the input size, default)')
    parser.add_argument(
        '--style-size',
        type=int,
        default=512,
        help='shorter side styles are resized to (0 = keep; default 512)')
    parser.add_argument(
        '--device',
        default='auto',
        help='cpu, cuda, cuda:N or auto (cuda when available; default)')
    parser.add_argument('--batch-size', type=int, default=1)
    parser.add_argument(
        '--jpeg-quality',
        type=int,
        default=95,
        help='quality of JPEG outputs (default 95)')
    weights = parser.add_mutually_exclusive_group()
    weights.add_argument(
        '--weights-dir',
        help='directory with vgg_normalised.pth and decoder.pth of '
        'pytorch-AdaIN (default: the torch hub cache, downloaded once)')
    weights.add_argument(
        '--generated-weights',
        action='store_true',
        help="robustdet's generated demo weights instead of the trained "
        'ones (a colour and contrast transfer; for machines without the '
        'release files)')
    add_launcher_args(parser)
    return parser.parse_args(argv)


def resolve_device(name: str) -> str:
    import torch

    from robustdet.utils.errors import RobustDetError
    if name == 'auto':
        return 'cuda' if torch.cuda.is_available() else 'cpu'
    try:
        device = torch.device(name)
    except RuntimeError:
        raise RobustDetError(f'--device {name!r} is not a torch device '
                             '(cpu, cuda, cuda:N, auto)') from None
    if device.type == 'cuda' and not torch.cuda.is_available():
        raise RobustDetError(f'--device {name}: CUDA is not available here')
    return name


def build_layout(args):
    from robustdet.stylize.layouts import (CityscapesLayout, CocoLayout,
                                           VocLayout)
    if args.coco:
        return CocoLayout(*args.coco)
    if args.voc:
        return VocLayout(args.voc, args.splits)
    return CityscapesLayout(args.cityscapes, args.split)


@cli_entry
def main():
    args = parse_args()
    from robustdet.stylize import StylizeJob, run_stylize
    from robustdet.utils.cli import init_launcher
    init_launcher(args)
    model = None
    weights = {}
    if args.generated_weights:
        from robustdet.stylize import make_demo_adain
        model = make_demo_adain()
        weights = {'generated': 'robustdet.stylize.demo_weights'}
    job = StylizeJob(
        build_layout(args),
        args.style_dir,
        args.out_dir,
        alpha=args.alpha,
        num_styles=args.num_styles,
        seed=args.seed,
        content_size=args.content_size,
        style_size=args.style_size,
        device=resolve_device(args.device),
        batch_size=args.batch_size,
        weights_dir=args.weights_dir,
        jpeg_quality=args.jpeg_quality,
        weights=weights)
    result = run_stylize(job, model=model)
    for key, reason in result['skipped']:
        print(f'skipped {key}: {reason}')
    if result['cpu_fallbacks']:
        print(f'{result["cpu_fallbacks"]} image(s) ran on the CPU after '
              'running out of device memory')
    print(f'wrote {result["written"]} of {result["total"]} stylized images '
          f'into {args.out_dir} in {result["seconds"]:.1f} s '
          f'({len(result["skipped"])} skipped)')


if __name__ == '__main__':
    main()
