# Copyright (c) robustdet contributors. All rights reserved.
"""CRF corruptions against a plain encode: PSNR of robustdet's
``h264_crf`` / ``h265_crf`` and of a plain PyAV encode at the same CRF,
side by side for every severity, in one run::

    python tools/benchmarks/bench_codec_psnr.py [--frames 16] \\
        [--size 240 160] [--image coffee]

The clip is a real photo, no download: one of scikit-image's bundled
images, panned by (3, 5) px (down, right) a frame and cropped to W x H
(the photo is enlarged first when the pan would leave it). The plain
encode is what a user would write with PyAV: the encoder's defaults
(preset medium, no tune, PyAV's threads) with only the CRF set, yuv420p,
the packets decoded as they come (the encoder's own dts). PSNR is over the
whole clip (RGB, peak 255) against the clean clip. "same on rerun" says
whether a second call gave the same pixels, for the corruption and for the
plain encode (whose x264 reads unwritten memory on an AVX-512 CPU, see
``robustdet.video.codecs._x264_crf``).
"""
import argparse
import os
import os.path as osp
import sys

import numpy as np

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)

from robustdet.utils.machine import cpu_model  # noqa: E402

IMAGES = ('coffee', 'astronaut', 'chelsea')
# Corruption -> encoder.
CODECS = {'h264_crf': 'libx264', 'h265_crf': 'libx265'}
# Pan per frame, (down, right) in pixels.
PAN = (3, 5)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--frames', type=int, default=16)
    parser.add_argument('--size', type=int, nargs=2, default=[240, 160],
                        metavar=('W', 'H'))
    parser.add_argument('--image', choices=IMAGES, default='coffee',
                        help='scikit-image photo to pan over')
    parser.add_argument('--corruptions', nargs='+', choices=sorted(CODECS),
                        default=sorted(CODECS))
    args = parser.parse_args()
    if args.frames < 1:
        parser.error(f'--frames must be at least 1, got {args.frames}')
    if any(v < 2 or v % 2 for v in args.size):
        parser.error('--size W H must be even and at least 2 (yuv420p; the '
                     f'plain encode does not pad), got {args.size}')
    return args


def photo_clip(image, frames, width, height):
    """``frames`` crops of W x H from ``skimage.data.<image>()``, panned by
    :data:`PAN` a frame, the path centred in the photo."""
    import cv2
    from skimage import data
    img = getattr(data, image)()
    need_h = height + PAN[0] * (frames - 1)
    need_w = width + PAN[1] * (frames - 1)
    scale = max(need_h / img.shape[0], need_w / img.shape[1], 1.0)
    if scale > 1:
        size = (int(np.ceil(img.shape[1] * scale)),
                int(np.ceil(img.shape[0] * scale)))
        img = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC)
    y0 = (img.shape[0] - need_h) // 2
    x0 = (img.shape[1] - need_w) // 2
    return np.stack([
        img[y0 + PAN[0] * t:y0 + PAN[0] * t + height,
            x0 + PAN[1] * t:x0 + PAN[1] * t + width] for t in range(frames)
    ])


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64))**2)
    return 10 * np.log10(255.0**2 / max(mse, 1e-10))


def main():
    args = parse_args()
    import av

    from robustdet.video import codecs
    from robustdet.video.table import CLIP_CORRUPTIONS
    table = {c.name: c for c in CLIP_CORRUPTIONS}
    clip = photo_clip(args.image, args.frames, *args.size)
    libavcodec = '.'.join(map(str, av.library_versions['libavcodec']))
    print(f'{cpu_model()}, {os.cpu_count()} CPUs; PyAV {av.__version__}, '
          f'libavcodec {libavcodec}')
    print(f'clip: skimage.data.{args.image}(), {args.frames} frames of '
          f'{args.size[0]}x{args.size[1]}, panned {PAN} px a frame')
    print('plain: PyAV CodecContext with only crf set (PyAV threads: '
          'count 0 = auto, type SLICE)')
    print(f'robustdet h264_crf options: {codecs._x264_crf("CRF")}')
    print(f'robustdet h265_crf options: {codecs._x265_crf("CRF")}')
    print('| corruption | severity | CRF | robustdet dB | plain dB | '
          'difference dB | same on rerun (robustdet / plain) |')
    print('|---|---|---|---|---|---|---|')
    worst = 0.0
    for name in args.corruptions:
        c = table[name]
        encoder = CODECS[name]
        for severity, crf in enumerate(c.params, 1):
            ours = c.fn(clip, crf, 0).frames
            again = c.fn(clip, crf, 0).frames
            plain = codecs.plain_encode(clip, encoder, crf)[0]
            plain_again = codecs.plain_encode(clip, encoder, crf)[0]
            p_ours, p_plain = psnr(ours, clip), psnr(plain, clip)
            worst = max(worst, abs(p_ours - p_plain))
            same = ' / '.join(
                'yes' if np.array_equal(a, b) else 'NO'
                for a, b in ((ours, again), (plain, plain_again)))
            print(f'| {name} | {severity} | {crf} | {p_ours:.2f} | '
                  f'{p_plain:.2f} | {p_ours - p_plain:+.2f} | {same} |',
                  flush=True)
    print(f'largest |difference|: {worst:.2f} dB')


if __name__ == '__main__':
    main()
