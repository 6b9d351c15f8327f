# Copyright (c) robustdet contributors. All rights reserved.
"""Codec and transmission clip corruptions (PyAV / FFmpeg).

Each corruption encodes the whole clip once (the clip is the unit),
optionally damages the coded stream, and decodes it again.

Conventions shared by all of them:

* Frames are converted RGB -> yuv420p (BT.601, limited range, swscale)
  and back. Codecs need even sizes, so a clip with an odd height or
  width is padded by edge replication to even, coded, decoded and
  cropped back: pixels move nowhere, so boxes are unchanged
  (``transforms`` is None).
* Determinism: fixed thread settings, so that every run gives the
  same bytes: single-threaded decoders and encoders, except libx265 in
  ``h265_crf`` (one frame thread and a pool of one worker thread for
  its wavefront rows; the pool size does not change the pictures). On
  a CPU with AVX-512, libx264 in ``h264_crf`` is held to its AVX2
  kernels (see :func:`_x264_crf`). A nominal frame rate of :data:`FPS`.
* ``h264_crf`` and ``h265_crf`` are plain encodes at the stated CRF:
  the encoder's defaults (preset medium, no tune, B-frames, rate
  control lookahead, key frames at scene cuts and at least every 250
  frames) but for those settings.
  ``tools/benchmarks/bench_codec_psnr.py`` compares them with a plain
  PyAV encode.
* The other codec corruptions and the transmission stream
  (``bit_errors``, ``packet_loss``) have a fixed GOP (one key frame
  every :data:`GOP` frames, no scene-cut key frames) and no B-frames;
  with libx264 also ``tune=zerolatency`` and no lookahead.
* Decoded frames are mapped back to input frames by their pts, so
  streams with B-frames (decode order is not display order) come back
  in display order.
* Damaged streams (``bit_errors``, ``packet_loss``) are decoded with
  FFmpeg's default error concealment; packets the decoder rejects are
  skipped. A frame that yields no picture repeats the previous output
  frame (frames before the first decoded one repeat the first decoded
  one; if nothing decodes at all, the clip is mid-grey), so T is kept.
  ``source_index`` records which input frame each output frame came
  from.
* The random damage is drawn from ``np.random.default_rng(seed)`` with
  one uniform number per byte (or per NAL unit) that does not depend
  on the severity: a byte / unit is damaged when its number falls below
  the severity's rate, so the damage at a higher severity contains the
  damage at a lower one (for the same seed).
"""
import functools
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

import numpy as np

from robustdet.utils.errors import RobustDetError
from .types import SCHIAPPA_2023, YI_2021, ClipCorruption, ClipResult, after

FPS = 30
GOP = 12
# Nominal bits per pixel per frame of the "source" stream; see
# :func:`source_bit_rate`.
SOURCE_BPP = 0.2
# Lowest ABR target (bit/s): the encoders count in whole kbit/s.
MIN_BIT_RATE = 1000
# Fixed H.264 CRF of the stream that bit errors / packet loss damage.
TRANSMISSION_CRF = 23
# Largest H.264 slice (NAL unit) in bytes for packet loss: one slice per
# RTP packet, as with an Ethernet MTU.
SLICE_MAX_BYTES = 1200

_X264_BASE = {'threads': '1', 'preset': 'medium', 'tune': 'zerolatency'}
_X265_PARAMS = ('pools=none:frame-threads=1:wpp=0:bframes=0:'
                'log-level=error:keyint={gop}:min-keyint={gop}:'
                'scenecut=0')
# The CRF corruptions: the encoders' defaults but for the threads.
# x265 codes wavefront rows (WPP, on by default) only with a thread pool:
# pools=none would also turn WPP off, which gave 1.02 dB less than a plain
# encode at CRF 51 on a 16-frame 240x160 pan over scikit-image's coffee.
# One pool thread and one frame thread gave the same pictures as pools of
# 2 and 4 threads. log-level only silences it.
_X264_CRF = {'threads': '1', 'preset': 'medium'}
_X265_CRF_PARAMS = 'pools=1:frame-threads=1:log-level=error'
# What x264 needs to pick its AVX-512 kernels (numpy's names; lower case
# in /proc/cpuinfo).
_X264_AVX512 = ('AVX512F', 'AVX512CD', 'AVX512BW', 'AVX512DQ', 'AVX512VL')

_DECODERS = {
    'libx264': 'h264',
    'libx265': 'hevc',
    'mpeg2video': 'mpeg2video',
    'mpeg4': 'mpeg4',
}


def _av():
    import av
    return av


def _check_codec(name: str, mode: str) -> None:
    """Raise :class:`RobustDetError` if ``name`` is missing from PyAV."""
    av = _av()
    try:
        av.Codec(name, mode)
    except Exception as err:  # UnknownCodecError and friends
        kind = 'encoder' if mode == 'w' else 'decoder'
        raise RobustDetError(
            f'{kind} {name!r} is not available in this PyAV '
            f'{av.__version__} build; install a PyAV/FFmpeg with it') from err


def source_bit_rate(height: int, width: int) -> int:
    """Nominal bit rate of the source clip, in bits per second.

    Defined as :data:`SOURCE_BPP` (0.2) bits per pixel per frame at the
    nominal :data:`FPS` (30) frames per second on the even-padded frame
    size: ``round(0.2 * H * W * 30)``, e.g. 1 382 400 bit/s for
    640x360. It depends on the frame size only, so it is cheap and
    deterministic; the ABR corruptions divide it by 2 ... 32 and clamp
    the result to at least :data:`MIN_BIT_RATE` (x264 and x265 take
    whole kbit/s, so tiny test clips would otherwise get 0).

    Args:
        height (int): Frame height.
        width (int): Frame width.

    Returns:
        int: Bits per second.
    """
    height += height % 2
    width += width % 2
    return int(round(SOURCE_BPP * height * width * FPS))


def _pad_even(frames: np.ndarray) -> np.ndarray:
    _, h, w, _ = frames.shape
    if h % 2 == 0 and w % 2 == 0:
        return frames
    return np.pad(frames, ((0, 0), (0, h % 2), (0, w % 2), (0, 0)),
                  mode='edge')


def encode(frames: np.ndarray,
           codec: str,
           options: Optional[Dict[str, str]] = None,
           bit_rate: Optional[int] = None,
           qscale: Optional[int] = None,
           global_header: bool = False,
           gop: Optional[int] = GOP,
           max_b_frames: Optional[int] = 0) -> Tuple[List[Tuple[bytes, int]],
                                                     bytes]:
    """Encode a clip to a list of packets.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 RGB with even H and W.
        codec (str): FFmpeg encoder name, e.g. ``'libx264'``.
        options (dict, optional): Private encoder options.
        bit_rate (int, optional): Average bit rate (bit/s) for ABR.
        qscale (int, optional): Fixed quantiser scale (MPEG-2/-4): the
            rate control is clamped with ``qmin = qmax = qscale``.
        global_header (bool): Put the stream headers (SPS/PPS) in the
            extradata instead of the first packet.
        gop (int, optional): Largest key frame interval (FFmpeg's
            ``gop_size``). None keeps the encoder's default (libx264 and
            libx265: 250). Defaults to :data:`GOP`.
        max_b_frames (int, optional): Most consecutive B-frames. None
            keeps the encoder's default (at preset medium libx264: 3,
            libx265: 4). Defaults to 0, no B-frames.

    Returns:
        tuple: ``[(packet bytes, pts), ...]`` in decode order and the
        extradata bytes.
    """
    _check_codec(codec, 'w')
    av = _av()
    t, h, w, _ = frames.shape
    ctx = av.CodecContext.create(codec, 'w')
    ctx.width, ctx.height = w, h
    ctx.pix_fmt = 'yuv420p'
    ctx.time_base = Fraction(1, FPS)
    ctx.framerate = Fraction(FPS, 1)
    if gop is not None:
        ctx.gop_size = int(gop)
    if max_b_frames is not None:
        ctx.max_b_frames = int(max_b_frames)
    ctx.thread_count = 1
    if bit_rate is not None:
        ctx.bit_rate = int(bit_rate)
    if qscale is not None:
        ctx.qmin = ctx.qmax = int(qscale)
        # A high nominal rate so that the clamp, not the rate, decides.
        ctx.bit_rate = 100 * h * w * FPS
    if global_header:
        ctx.flags |= int(av.codec.context.Flags.global_header)
    ctx.options = dict(options or {})
    ctx.open()
    packets = []
    for i in range(t):
        frame = av.VideoFrame.from_ndarray(
            np.ascontiguousarray(frames[i]), format='rgb24')
        frame = frame.reformat(format='yuv420p')
        frame.pts = i
        frame.time_base = ctx.time_base
        for pkt in ctx.encode(frame):
            packets.append((bytes(pkt), int(pkt.pts)))
    for pkt in ctx.encode(None):
        packets.append((bytes(pkt), int(pkt.pts)))
    extradata = bytes(ctx.extradata or b'')
    return packets, extradata


def decode(packets: List[Tuple[bytes, int]], codec: str, extradata: bytes,
           num_frames: int) -> List[Optional[np.ndarray]]:
    """Decode packets, tolerating errors, into frames indexed by pts.

    Args:
        packets (list): ``[(bytes, pts), ...]`` as from :func:`encode`.
        codec (str): FFmpeg decoder name, e.g. ``'h264'``.
        extradata (bytes): Stream headers, may be empty.
        num_frames (int): T of the clip.

    Returns:
        list: T entries, each an (H, W, 3) uint8 RGB array or None when
        no picture came out for that frame.
    """
    _check_codec(codec, 'r')
    av = _av()
    ctx = av.CodecContext.create(codec, 'r')
    ctx.thread_count = 1
    # Output damaged pictures (concealed) rather than dropping them.
    ctx.flags |= int(av.codec.context.Flags.output_corrupt)
    if extradata:
        ctx.extradata = extradata
    out: List[Optional[np.ndarray]] = [None] * num_frames
    order = iter(range(num_frames))

    def take(frames):
        for frame in frames:
            idx = frame.pts
            if idx is None or not 0 <= idx < num_frames or \
                    out[idx] is not None:
                idx = next((j for j in order if out[j] is None), None)
                if idx is None:
                    continue
            out[idx] = frame.to_ndarray(format='rgb24')

    for data, pts in packets:
        # av.Packet(bytes) does not zero FFmpeg's input padding, and the
        # bitstream readers look past the end of a packet: decoding the
        # same bytes then gave different pictures now and then (seen with
        # mpeg4). A packet allocated by size has its padding zeroed.
        pkt = av.Packet(len(data))
        memoryview(pkt)[:] = data
        pkt.pts = pts
        # With B-frames dts is not pts, but the H.264 / HEVC decoders
        # order pictures by the stream's own picture order count, so
        # pictures come out in display order all the same (checked
        # against the encoder's own dts in tests/test_video).
        pkt.dts = pts
        try:
            take(ctx.decode(pkt))
        except av.error.FFmpegError:
            continue
    try:
        take(ctx.decode(None))
    except av.error.FFmpegError:
        pass
    return out


def _fill(decoded: List[Optional[np.ndarray]], frames: np.ndarray
          ) -> ClipResult:
    """Crop to the input size and fill frames that did not decode."""
    t, h, w, _ = frames.shape
    valid = [i for i, f in enumerate(decoded) if f is not None]
    if not valid:
        return ClipResult(np.full_like(frames, 128), np.arange(t))
    out = np.empty_like(frames)
    src = np.empty(t, dtype=np.int64)
    last = valid[0]
    for i in range(t):
        if decoded[i] is not None:
            last = i
        out[i] = decoded[last][:h, :w]
        src[i] = last
    return ClipResult(out, src)


def _encode_clip(frames: np.ndarray, codec: str,
                 **kwargs) -> Tuple[List[Tuple[bytes, int]], bytes]:
    """Check that ``codec`` and its decoder exist, then encode the clip
    (padded to even sizes) once: its packets and extradata."""
    _check_codec(codec, 'w')
    _check_codec(_DECODERS[codec], 'r')
    return encode(_pad_even(np.asarray(frames, dtype=np.uint8)), codec,
                  **kwargs)


def _decode_clip(packets: List[Tuple[bytes, int]], codec: str,
                 extradata: bytes, frames: np.ndarray) -> ClipResult:
    """Decode the (possibly damaged) packets of an ``_encode_clip``
    stream back to a clip like ``frames``."""
    return _fill(
        decode(packets, _DECODERS[codec], extradata, len(frames)), frames)


def _transcode(frames: np.ndarray, codec: str, **kwargs) -> ClipResult:
    packets, extradata = _encode_clip(frames, codec, **kwargs)
    return _decode_clip(packets, codec, extradata, frames)


def _x264(**extra) -> Dict[str, str]:
    opts = dict(_X264_BASE)
    params = ['bframes=0', f'keyint={GOP}', f'min-keyint={GOP}',
              'scenecut=0', 'sliced-threads=0', 'rc-lookahead=0']
    params += [f'{k}={v}' for k, v in extra.pop('params', {}).items()]
    opts['x264-params'] = ':'.join(params)
    opts.update({k: str(v) for k, v in extra.items()})
    return opts


@functools.lru_cache(maxsize=None)
def _x264_avx512() -> bool:
    """Whether x264 runs its AVX-512 kernels on this CPU.

    Read from the CPU's own flags (``/proc/cpuinfo``), not from numpy's
    dispatch, which ``NPY_DISABLE_CPU_FEATURES`` (e.g.
    ``tools/dev/held_back_cpu.py``) switches off while x264 still sees the
    CPU; numpy's detection only where ``/proc/cpuinfo`` cannot be read.
    """
    try:
        with open('/proc/cpuinfo') as f:
            flags = next((line.split(':', 1)[1].split()
                          for line in f if line.startswith('flags')), None)
    except OSError:
        flags = None
    if flags is not None:
        return all(name.lower() in flags for name in _X264_AVX512)
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy 1.x
        try:
            from numpy.core._multiarray_umath import __cpu_features__
        except ImportError:
            return False
    return all(__cpu_features__.get(name, False) for name in _X264_AVX512)


def _x264_crf(crf: int) -> Dict[str, str]:
    """libx264 options of :func:`h264_crf`.

    The encoder's defaults but one thread and, on a CPU with AVX-512,
    x264 held to its AVX2 kernels (``asm=AVX2``): its AVX-512
    macroblock-tree kernel reads memory it has not written when the
    width in macroblocks is not a multiple of 8 (seen with widths of 5,
    6, 15 and 20 macroblocks, never with 16 or 24), so the same clip
    came out different from run to run (glibc's ``MALLOC_PERTURB_``
    changed the output). On a 16-frame 240x160 clip the SSSE3, AVX and
    AVX2 kernels gave the same bytes as one another and as the AVX-512
    kernels' usual output.

    Args:
        crf (int): The CRF.

    Returns:
        dict: Options for :func:`encode`.
    """
    opts = dict(_X264_CRF, crf=str(crf))
    if _x264_avx512():
        opts['x264-params'] = 'asm=AVX2'
    return opts


def _x265_crf(crf: int) -> Dict[str, str]:
    """libx265 options of :func:`h265_crf`: the encoder's defaults but
    one frame thread and a pool of one worker thread.

    Args:
        crf (int): The CRF.

    Returns:
        dict: Options for :func:`encode`.
    """
    return {
        'preset': 'medium',
        'crf': str(crf),
        'x265-params': _X265_CRF_PARAMS
    }


def _x265(**extra) -> Dict[str, str]:
    opts = {'preset': 'medium', 'x265-params': _X265_PARAMS.format(gop=GOP)}
    opts.update({k: str(v) for k, v in extra.items()})
    return opts


def plain_encode(frames: np.ndarray,
                 codec: str,
                 crf: int,
                 options: Optional[Dict[str, str]] = None
                 ) -> Tuple[np.ndarray, List[int]]:
    """A plain PyAV encode at CRF ``crf`` and its decode: what
    :func:`h264_crf` and :func:`h265_crf` are held to
    (``tools/benchmarks/bench_codec_psnr.py``, ``tests/test_video``).

    The encoder's and PyAV's defaults (threads included) unless
    ``options`` replace them; the packets are decoded as the encoder gave
    them (with its dts).

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 RGB, even H and W.
        codec (str): ``'libx264'`` or ``'libx265'``.
        crf (int): The CRF.
        options (dict, optional): Encoder options instead of
            ``{'crf': crf}`` (x265 also gets ``log-level=error``, which
            only silences it).

    Returns:
        tuple: The decoded (T, H, W, 3) clip, in display order, and the
        packets' pts in decode order.
    """
    av = _av()
    t, h, w, _ = frames.shape
    enc = av.CodecContext.create(codec, 'w')
    enc.width, enc.height = w, h
    enc.pix_fmt = 'yuv420p'
    enc.time_base = Fraction(1, FPS)
    enc.framerate = Fraction(FPS, 1)
    if options is None:
        options = {'crf': str(crf)}
        if codec == 'libx265':
            options['x265-params'] = 'log-level=error'
    enc.options = options
    packets = []
    for i, img in enumerate(frames):
        frame = av.VideoFrame.from_ndarray(img, format='rgb24')
        frame = frame.reformat(format='yuv420p')
        frame.pts = i
        packets += enc.encode(frame)
    packets += enc.encode(None)
    dec = av.CodecContext.create(_DECODERS[codec], 'r')
    out = [None] * t
    for pkt in packets + [None]:
        for frame in dec.decode(pkt):
            out[frame.pts] = frame.to_ndarray(format='rgb24')
    return np.stack(out), [int(p.pts) for p in packets]


def h264_crf(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """H.264 (libx264) at constant rate factor ``param``.

    A plain libx264 encode: preset medium, no tune, the encoder's
    B-frames, lookahead and key frames; only the thread count is fixed
    (one thread) and, on a CPU with AVX-512, x264's AVX-512 kernels are
    off (see :func:`_x264_crf`), so that every run gives the same bytes.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 RGB.
        param (int): The CRF, 0 to 51.
        seed (int): Unused: the corruption is deterministic.

    Returns:
        ClipResult: The decoded clip.
    """
    return _transcode(
        frames, 'libx264', options=_x264_crf(param), gop=None,
        max_b_frames=None)


def h265_crf(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """H.265 (libx265) at constant rate factor ``param``.

    A plain libx265 encode: preset medium, no tune, the encoder's
    B-frames, lookahead, key frames and wavefront parallel processing;
    only the threads are fixed (one frame thread, a pool of one worker
    thread), so that every run gives the same bytes.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 RGB.
        param (int): The CRF, 0 to 51.
        seed (int): Unused: the corruption is deterministic.

    Returns:
        ClipResult: The decoded clip.
    """
    return _transcode(
        frames, 'libx265', options=_x265_crf(param), gop=None,
        max_b_frames=None)


def h264_abr(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """H.264 at average bit rate :func:`source_bit_rate` / ``param``."""
    rate = max(MIN_BIT_RATE, source_bit_rate(*frames.shape[1:3]) // param)
    return _transcode(frames, 'libx264', options=_x264(), bit_rate=rate)


def h265_abr(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """H.265 at average bit rate :func:`source_bit_rate` / ``param``."""
    rate = max(MIN_BIT_RATE, source_bit_rate(*frames.shape[1:3]) // param)
    return _transcode(frames, 'libx265', options=_x265(), bit_rate=rate)


def mpeg2_q(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """MPEG-2 (mpeg2video) at fixed quantiser scale ``param``."""
    return _transcode(frames, 'mpeg2video', qscale=param)


def mpeg4_q(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """MPEG-4 part 2 (mpeg4) at fixed quantiser scale ``param``."""
    return _transcode(frames, 'mpeg4', qscale=param)


def bit_errors(frames: np.ndarray, param: int, seed: int) -> ClipResult:
    """H.264 at CRF 23 with random byte errors in the packets.

    Emulates FFmpeg's ``noise`` bitstream filter (``amount=param``: on
    average one byte in ``param`` is replaced by another value), but
    in-process with a seeded RNG: the filter's own state is a fixed
    byte-driven counter that cannot be seeded. Each packet byte gets a
    uniform number ``u`` and an offset ``k`` in 1..255; the byte is
    XOR-ed with ``k`` when ``u < 1 / param``. The stream headers (SPS /
    PPS, sent as extradata as in an MP4 file) are not damaged.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 RGB.
        param (int): The noise ``amount``: 1 / byte error rate.
        seed (int): Seed of the damage.

    Returns:
        ClipResult: The decoded clip.
    """
    packets, extradata = _encode_clip(
        frames, 'libx264', options=_x264(crf=TRANSMISSION_CRF),
        global_header=True)
    sizes = [len(d) for d, _ in packets]
    data = np.frombuffer(b''.join(d for d, _ in packets), dtype=np.uint8)
    rng = np.random.default_rng(seed)
    u = rng.random(data.size)
    k = rng.integers(1, 256, size=data.size, dtype=np.uint8)
    data = np.where(u < 1.0 / float(param), data ^ k, data).astype(np.uint8)
    damaged, start = [], 0
    for (_, pts), size in zip(packets, sizes):
        damaged.append((data[start:start + size].tobytes(), pts))
        start += size
    return _decode_clip(damaged, 'libx264', extradata, frames)


def _split_nals(data: bytes) -> List[bytes]:
    """Split an Annex B byte stream into NAL units (with start codes)."""
    starts = []
    i = data.find(b'\x00\x00\x01')
    while i >= 0:
        starts.append(i - 1 if i > 0 and data[i - 1] == 0 else i)
        i = data.find(b'\x00\x00\x01', i + 3)
    if not starts:
        return [data]
    starts[0] = 0
    return [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]


def packet_loss(frames: np.ndarray, param: float, seed: int) -> ClipResult:
    """H.264 at CRF 23 sent as slices, ``param`` % of them lost.

    The encoder cuts each frame into slices of at most
    :data:`SLICE_MAX_BYTES` bytes, one slice per transmission packet
    (RTP single-NAL-unit mode). Each NAL unit gets a seeded uniform
    number ``u`` and is lost when ``u < param / 100``; the first packet
    (the first key frame) is never lost, nor are the stream headers
    (extradata). A frame with all its slices lost is not decoded and
    repeats the previous output frame.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 RGB.
        param (float): Loss rate in percent of NAL units.
        seed (int): Seed of the loss pattern.

    Returns:
        ClipResult: The decoded clip.
    """
    packets, extradata = _encode_clip(
        frames, 'libx264',
        options=_x264(
            crf=TRANSMISSION_CRF,
            params={'slice-max-size': SLICE_MAX_BYTES}),
        global_header=True)
    nals = [_split_nals(d) for d, _ in packets]
    rng = np.random.default_rng(seed)
    u = rng.random(sum(len(n) for n in nals))
    rate = float(param) / 100.0
    damaged, j = [], 0
    for p, ((_, pts), units) in enumerate(zip(packets, nals)):
        kept = [n for i, n in enumerate(units) if p == 0 or
                u[j + i] >= rate]
        j += len(units)
        if kept:
            damaged.append((b''.join(kept), pts))
    return _decode_clip(damaged, 'libx264', extradata, frames)


_NOTE = ('pad to even size (edge), yuv420p, single-threaded, '
         f'GOP {GOP}, no B-frames, {FPS} fps nominal')
_CRF_NOTE = ('pad to even size (edge), yuv420p, {} fps nominal; the '
             "encoder's defaults (B-frames, lookahead, key frames at scene "
             'cuts and at least every 250 frames) but {}')

CORRUPTIONS = (
    ClipCorruption(
        'h264_crf', 'codec', (23, 30, 37, 44, 51), h264_crf,
        source=YI_2021 + '; ' + SCHIAPPA_2023,
        extra={
            'unit': 'CRF (libx264, preset medium, no tune, threads=1)',
            'note': _CRF_NOTE.format(
                FPS, 'threads=1 and, on a CPU with AVX-512, asm=AVX2 '
                "(x264's AVX-512 macroblock-tree kernel reads memory it has "
                'not written, so outputs varied from run to run)')
        }),
    ClipCorruption(
        'h265_crf', 'codec', (27, 33, 39, 45, 51), h265_crf,
        source=YI_2021,
        extra={
            'unit': 'CRF (libx265, preset medium, no tune, pools=1, '
            'frame-threads=1)',
            'note': _CRF_NOTE.format(
                FPS, 'pools=1:frame-threads=1 (one worker thread, one frame '
                'thread; WPP stays on)')
        }),
    ClipCorruption(
        'h264_abr', 'codec', (2, 4, 8, 16, 32), h264_abr,
        source=YI_2021,
        extra={
            'unit': 'divisor of the source bit rate (libx264 ABR)',
            'source_bit_rate':
            f'{SOURCE_BPP} bit/pixel/frame x H x W x {FPS} fps',
            'note': _NOTE
        }),
    ClipCorruption(
        'h265_abr', 'codec', (2, 4, 8, 16, 32), h265_abr,
        source=YI_2021,
        extra={
            'unit': 'divisor of the source bit rate (libx265 ABR)',
            'source_bit_rate':
            f'{SOURCE_BPP} bit/pixel/frame x H x W x {FPS} fps',
            'note': _NOTE
        }),
    ClipCorruption(
        'mpeg2_q', 'codec', (4, 8, 16, 24, 31), mpeg2_q,
        source=after(SCHIAPPA_2023) + ' (compression)',
        extra={'unit': 'fixed qscale (mpeg2video, qmin = qmax)',
               'note': _NOTE}),
    ClipCorruption(
        'mpeg4_q', 'codec', (4, 8, 16, 24, 31), mpeg4_q,
        source=after(SCHIAPPA_2023) + ' (compression)',
        extra={'unit': 'fixed qscale (mpeg4, qmin = qmax)', 'note': _NOTE}),
    ClipCorruption(
        'bit_errors', 'transmission', (100000, 50000, 30000, 20000, 10000),
        bit_errors,
        source=YI_2021 + ' (FFmpeg noise bitstream filter amounts)',
        extra={
            'unit': 'noise amount: one byte in N damaged (XOR, seeded)',
            'stream': f'libx264 CRF {TRANSMISSION_CRF}',
            'note': _NOTE
        }),
    ClipCorruption(
        'packet_loss', 'transmission', (1, 2, 3, 4, 6), packet_loss,
        source=YI_2021,
        extra={
            'unit': 'percent of NAL units (slices) lost, seeded',
            'stream': f'libx264 CRF {TRANSMISSION_CRF}, slices of at most '
            f'{SLICE_MAX_BYTES} bytes',
            'note': _NOTE
        }),
)
