# Copyright (c) robustdet contributors. All rights reserved.
"""Drawing corruption galleries (``tools/corruption_gallery.py``): the
labelled grid of already corrupted images or clips, and its PNG, JPEG or
GIF file.

Rows are corruptions (labelled with their name and family), columns the
clean image and then the severities. A clip gallery is an animated GIF
(every cell plays its clip) or a still image whose cells are strips of a
few frames of their clip. Thumbnails and labels are drawn with OpenCV's
built-in Hershey font, so the same cells give the same bytes.

What is drawn (the images or clips, corrupted with the benchmark's seeds)
comes from :mod:`robustdet.apis.gallery`.
"""
import io
import json
import os.path as osp
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Sequence, Tuple

import cv2
import numpy as np
from PIL import Image, PngImagePlugin

from ..corruptions import get_corruption
from ..utils.errors import RobustDetError
from ..utils.io import write_bytes_atomic
from ..video import CLIP_CORRUPTION_NAMES, get_clip_corruption

#: Output file extensions and their format.
OUTPUT_FORMATS: Dict[str, str] = {
    '.png': 'PNG',
    '.jpg': 'JPEG',
    '.jpeg': 'JPEG',
    '.gif': 'GIF'
}
#: Default thumbnail width in pixels.
DEFAULT_THUMB_WIDTH = 200
MIN_THUMB_WIDTH = 16
#: Frames per cell of a still clip gallery (a strip).
DEFAULT_STRIP_FRAMES = 4

_FONT = cv2.FONT_HERSHEY_SIMPLEX
_NAME_SCALE = 0.45
_SUB_SCALE = 0.4
_HEAD_SCALE = 0.45
_TITLE_SCALE = 0.5
_INK = (20, 20, 20)
_GREY = (105, 105, 105)
_PAPER = 255
_MARGIN = 8
_GAP = 4
_STRIP_GAP = 2
_LINE_GAP = 5
_JPEG_QUALITY = 90


# ---------------------------------------------------------------- drawing


def row_label(name: str) -> Tuple[str, str]:
    """The two label lines of a corruption's row: its name, and its
    family (with the group, for the 15 of the benchmark)."""
    if name in CLIP_CORRUPTION_NAMES:
        return name, f'video / {get_clip_corruption(name).family}'
    entry = get_corruption(name)
    if entry.family == entry.group:
        family = entry.family
    else:
        family = f'{entry.family} / {entry.group}'
    if entry.needs_depth:
        family += ', depth'
    return name, family


def thumbnail(img: np.ndarray, width: int) -> np.ndarray:
    """An image resized to ``width`` pixels wide, keeping its aspect.

    Args:
        img (np.ndarray): uint8 RGB (or grayscale) image.
        width (int): Thumbnail width.

    Returns:
        np.ndarray: uint8 RGB thumbnail.
    """
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=2)
    h, w = img.shape[:2]
    height = max(1, int(round(h * width / w)))
    if (height, width) == (h, w):
        return np.ascontiguousarray(img)
    interp = cv2.INTER_AREA if width < w else cv2.INTER_LINEAR
    return cv2.resize(img, (width, height), interpolation=interp)


def frame_strip(frames: np.ndarray, width: int, count: int) -> np.ndarray:
    """``count`` frames of a clip, evenly spaced (first and last
    included), side by side as thumbnails ``width`` wide.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8.
        width (int): Width of each frame's thumbnail.
        count (int): Frames shown (at most T).

    Returns:
        np.ndarray: uint8 RGB strip.
    """
    picks = strip_indices(len(frames), count)
    thumbs = [thumbnail(frames[i], width) for i in picks]
    h = thumbs[0].shape[0]
    strip = np.full((h, len(thumbs) * (width + _STRIP_GAP) - _STRIP_GAP, 3),
                    _PAPER, np.uint8)
    for k, thumb in enumerate(thumbs):
        x = k * (width + _STRIP_GAP)
        strip[:, x:x + width] = thumb
    return strip


def strip_indices(num_frames: int, count: int) -> List[int]:
    """The frames a strip shows: ``min(count, num_frames)`` evenly spaced,
    the first and the last included."""
    count = max(1, min(count, num_frames))
    if count == 1:
        return [0]
    return [int(round(k * (num_frames - 1) / (count - 1)))
            for k in range(count)]


def _text_size(text: str, scale: float) -> Tuple[int, int, int]:
    (w, h), base = cv2.getTextSize(text, _FONT, scale, 1)
    return w, h, base


def _ascii(text: str) -> str:
    return text.encode('ascii', 'replace').decode('ascii')


@dataclass(frozen=True)
class GridLayout:
    """Where everything of a gallery grid goes.

    Args:
        rows (int): Corruptions.
        cols (int): Columns (clean and severities).
        cell_w (int): Cell (thumbnail or strip) width.
        cell_h (int): Cell height.
        label_w (int): Width of the row label column.
        row_h (int): Row height (cell or label, the taller).
        header_h (int): Height of the column header row.
        title_h (int): Height of the title line (0 without a title).
    """
    rows: int
    cols: int
    cell_w: int
    cell_h: int
    label_w: int
    row_h: int
    header_h: int
    title_h: int

    @property
    def width(self) -> int:
        """Image width."""
        return (2 * _MARGIN + self.label_w + self.cols *
                (self.cell_w + _GAP) - _GAP)

    @property
    def height(self) -> int:
        """Image height."""
        return (2 * _MARGIN + self.title_h + self.header_h + self.rows *
                (self.row_h + _GAP) - _GAP)

    def cell_origin(self, row: int, col: int) -> Tuple[int, int]:
        """``(y, x)`` of a cell's top-left pixel."""
        y = (_MARGIN + self.title_h + self.header_h + row *
             (self.row_h + _GAP) + (self.row_h - self.cell_h) // 2)
        x = _MARGIN + self.label_w + col * (self.cell_w + _GAP)
        return y, x


def grid_layout(row_labels: Sequence[Tuple[str, str]],
                col_labels: Sequence[str],
                cell_size: Tuple[int, int],
                title: str = '') -> GridLayout:
    """The layout of a grid of ``len(row_labels)`` rows and
    ``len(col_labels)`` columns of cells of ``cell_size`` (w, h).

    Args:
        row_labels (Sequence[tuple[str, str]]): Two lines per row.
        col_labels (Sequence[str]): Column headers.
        cell_size (tuple[int, int]): ``(width, height)`` of a cell.
        title (str): Title line (none if empty).

    Returns:
        GridLayout: The layout.
    """
    cell_w, cell_h = cell_size
    label_w = 0
    for top, sub in row_labels:
        label_w = max(label_w, _text_size(_ascii(top), _NAME_SCALE)[0],
                      _text_size(_ascii(sub), _SUB_SCALE)[0])
    label_w += 2 * _GAP
    _, name_h, name_base = _text_size('Ag', _NAME_SCALE)
    _, sub_h, sub_base = _text_size('Ag', _SUB_SCALE)
    label_h = name_h + name_base + _LINE_GAP + sub_h + sub_base
    _, head_h, head_base = _text_size('Ag', _HEAD_SCALE)
    _, title_h, title_base = _text_size('Ag', _TITLE_SCALE)
    return GridLayout(
        rows=len(row_labels),
        cols=len(col_labels),
        cell_w=cell_w,
        cell_h=cell_h,
        label_w=label_w,
        row_h=max(cell_h, label_h),
        header_h=head_h + head_base + 2 * _GAP,
        title_h=title_h + title_base + 2 * _GAP if title else 0)


def column_labels(severities: Sequence[int], cell_w: int) -> List[str]:
    """Column headers: ``clean`` and ``severity N``, shorter forms where
    they do not fit the cells."""
    forms = (lambda s: 'clean' if s == 0 else f'severity {s}',
             lambda s: 'clean' if s == 0 else f'sev {s}',
             lambda s: str(s))
    for form in forms:
        labels = [form(s) for s in severities]
        if all(_text_size(t, _HEAD_SCALE)[0] <= cell_w for t in labels):
            return labels
    return [str(s) for s in severities]


def draw_grid(cells: Sequence[Sequence[np.ndarray]],
              row_labels: Sequence[Tuple[str, str]],
              col_labels: Sequence[str],
              title: str = '') -> np.ndarray:
    """Draw a labelled grid of equally sized cells on white.

    Args:
        cells (Sequence[Sequence[np.ndarray]]): ``cells[row][col]``, uint8
            RGB, all of the same size.
        row_labels (Sequence[tuple[str, str]]): Two lines per row (name,
            family).
        col_labels (Sequence[str]): Column headers.
        title (str): Title line (ASCII; none if empty).

    Returns:
        np.ndarray: uint8 RGB image.
    """
    cell_h, cell_w = cells[0][0].shape[:2]
    layout = grid_layout(row_labels, col_labels, (cell_w, cell_h), title)
    canvas = np.full((layout.height, layout.width, 3), _PAPER, np.uint8)
    if title:
        text = _fit(_ascii(title), _TITLE_SCALE, layout.width - 2 * _MARGIN)
        _, h, _ = _text_size(text, _TITLE_SCALE)
        _put(canvas, text, _MARGIN, _MARGIN + _GAP + h, _TITLE_SCALE, _INK)
    _, head_h, _ = _text_size('Ag', _HEAD_SCALE)
    head_y = _MARGIN + layout.title_h + _GAP + head_h
    for col, label in enumerate(col_labels):
        _, x = layout.cell_origin(0, col)
        w = _text_size(label, _HEAD_SCALE)[0]
        _put(canvas, label, x + max(0, (cell_w - w) // 2), head_y,
             _HEAD_SCALE, _INK)
    _, name_h, name_base = _text_size('Ag', _NAME_SCALE)
    _, sub_h, sub_base = _text_size('Ag', _SUB_SCALE)
    label_h = name_h + name_base + _LINE_GAP + sub_h + sub_base
    for row, (top, sub) in enumerate(row_labels):
        y0 = (_MARGIN + layout.title_h + layout.header_h + row *
              (layout.row_h + _GAP) + (layout.row_h - label_h) // 2)
        _put(canvas, _ascii(top), _MARGIN + _GAP, y0 + name_h, _NAME_SCALE,
             _INK)
        _put(canvas, _ascii(sub), _MARGIN + _GAP,
             y0 + name_h + name_base + _LINE_GAP + sub_h, _SUB_SCALE, _GREY)
        for col, cell in enumerate(cells[row]):
            if cell.shape[:2] != (cell_h, cell_w):
                raise ValueError('gallery cells differ in size')
            y, x = layout.cell_origin(row, col)
            canvas[y:y + cell_h, x:x + cell_w] = cell
    return canvas


def _put(canvas: np.ndarray, text: str, x: int, y: int, scale: float,
         color: Tuple[int, int, int]) -> None:
    cv2.putText(canvas, text, (int(x), int(y)), _FONT, scale, color, 1,
                cv2.LINE_AA)


def _fit(text: str, scale: float, width: int) -> str:
    """``text``, cut with '...' to fit ``width`` pixels."""
    if _text_size(text, scale)[0] <= width:
        return text
    while text and _text_size(text + '...', scale)[0] > width:
        text = text[:-1]
    return text + '...'


# ---------------------------------------------------------------- gallery


@dataclass
class Gallery:
    """A drawn gallery.

    Args:
        frames (list[np.ndarray]): uint8 RGB images: one for a still
            gallery, one per clip frame for an animated one.
        rows (list[str]): The corruption of each row.
        severities (list[int]): The severity of each column (0 = clean).
        info (dict): What it shows (input identity, seed, backend...),
            stored in a PNG's text chunks.
    """
    frames: List[np.ndarray]
    rows: List[str]
    severities: List[int]
    info: Dict[str, Any]


def check_thumb_width(width: int) -> int:
    """``width`` if it is a usable thumbnail width, else a user error."""
    if isinstance(width, bool) or not isinstance(
            width, (int, np.integer)) or width < MIN_THUMB_WIDTH:
        raise RobustDetError(f'--thumb-width must be an integer >= '
                             f'{MIN_THUMB_WIDTH}, got {width!r}')
    return int(width)


def check_strip_frames(count: int) -> int:
    """``count`` if it is a usable number of frames per strip, else a user
    error."""
    if isinstance(count, bool) or not isinstance(
            count, (int, np.integer)) or count < 1:
        raise RobustDetError(
            f'--strip-frames must be an integer >= 1, got {count!r}')
    return int(count)


def image_grid(images: Mapping[Tuple[str, int], np.ndarray],
               names: Sequence[str],
               severities: Sequence[int],
               thumb_width: int,
               title: str,
               info: Dict[str, Any]) -> Gallery:
    """The gallery of corrupted images: a row per corruption, a column per
    severity.

    Args:
        images (Mapping): ``{(name, severity): uint8 RGB image}``.
        names (Sequence[str]): The rows' corruptions.
        severities (Sequence[int]): The columns' severities (0 = clean).
        thumb_width (int): Thumbnail width in pixels.
        title (str): Title line.
        info (dict): What it shows (see :class:`Gallery`).

    Returns:
        Gallery: One frame.
    """
    cells = [[thumbnail(images[(n, s)], thumb_width) for s in severities]
             for n in names]
    canvas = draw_grid(cells, [row_label(n) for n in names],
                       column_labels(severities, thumb_width), title)
    return Gallery([canvas], list(names), list(severities), info)


def clip_grid(clips: Mapping[Tuple[str, int], np.ndarray],
              names: Sequence[str],
              severities: Sequence[int],
              thumb_width: int,
              title: str,
              info: Dict[str, Any],
              animated: bool = True,
              strip_frames: int = DEFAULT_STRIP_FRAMES) -> Gallery:
    """The gallery of corrupted clips (all of T frames): a row per clip
    corruption, a column per severity; animated (a frame per clip frame)
    or still (each cell a strip of ``strip_frames`` frames, which a still
    gallery's title and ``info['strip_frames']`` name).

    Args:
        clips (Mapping): ``{(name, severity): (T, H, W, 3) uint8 RGB}``.
        names (Sequence[str]): The rows' clip corruptions.
        severities (Sequence[int]): The columns' severities (0 = clean).
        thumb_width (int): Width of a frame's thumbnail.
        title (str): Title line.
        info (dict): What it shows (see :class:`Gallery`).
        animated (bool): One grid per clip frame (for a GIF), else one
            grid of strips.
        strip_frames (int): Frames per strip (still galleries).

    Returns:
        Gallery: T frames, or one.
    """
    row_labels = [row_label(n) for n in names]
    num = len(clips[(names[0], severities[0])])
    if animated:
        col_labels = column_labels(severities, thumb_width)
        canvases = [
            draw_grid([[thumbnail(clips[(n, s)][t], thumb_width)
                        for s in severities] for n in names], row_labels,
                      col_labels, title) for t in range(num)
        ]
        return Gallery(canvases, list(names), list(severities), info)
    cells = [[frame_strip(clips[(n, s)], thumb_width, strip_frames)
              for s in severities] for n in names]
    picks = strip_indices(num, strip_frames)
    info = dict(info, strip_frames=picks)
    title += '   frames ' + ' '.join(map(str, picks))
    canvas = draw_grid(cells, row_labels,
                       column_labels(severities, cells[0][0].shape[1]),
                       title)
    return Gallery([canvas], list(names), list(severities), info)


def check_output(path: str, video: bool = False) -> str:
    """The output format of ``path`` (by extension), or a user error.

    Args:
        path (str): The output file.
        video (bool): Whether it is a clip gallery (GIF allowed).

    Returns:
        str: ``'PNG'``, ``'JPEG'`` or ``'GIF'``.
    """
    ext = osp.splitext(path)[1].lower()
    fmt = OUTPUT_FORMATS.get(ext)
    if fmt is None or (fmt == 'GIF' and not video):
        valid = [e for e, f in OUTPUT_FORMATS.items()
                 if video or f != 'GIF']
        raise RobustDetError(
            f'cannot tell the output format of --out {path}: give a file '
            f'name ending in {", ".join(valid)}' +
            ('' if video else ' (.gif: clip galleries, --video)'))
    if osp.isdir(path):
        raise RobustDetError(f'--out {path} is a folder; give a file name')
    return fmt


def check_colors(colors: int) -> int:
    """``colors`` if it is a valid palette size (0 = full colour), else
    a user error."""
    if isinstance(colors, bool) or not isinstance(
            colors, (int, np.integer)) or not (colors == 0
                                               or 2 <= colors <= 256):
        raise RobustDetError(f'--colors must be 0 (full colour) or 2-256, '
                             f'got {colors!r}')
    return int(colors)


def encode_gallery(gallery: Gallery,
                   fmt: str,
                   fps: float = 4.0,
                   colors: int = 0) -> bytes:
    """The bytes of a gallery file (the same gallery gives the same
    bytes).

    Args:
        gallery (Gallery): The gallery.
        fmt (str): ``'PNG'``, ``'JPEG'`` or ``'GIF'`` (animated if the
            gallery has several frames).
        fps (float): Frames per second of a GIF.
        colors (int): PNG only: a palette image of this many colours
            (octree palette, dithered; about 3 times smaller files, for
            documentation); 0 (default): full colour.

    Returns:
        bytes: The file's content.
    """
    colors = check_colors(colors)
    if colors and fmt != 'PNG':
        raise RobustDetError(f'--colors is for PNG output, not {fmt}')
    buf = io.BytesIO()
    images = [Image.fromarray(f) for f in gallery.frames]
    if fmt == 'GIF':
        if not fps > 0:
            raise RobustDetError(f'--fps must be positive, got {fps!r}')
        images[0].save(
            buf,
            format='GIF',
            save_all=len(images) > 1,
            append_images=images[1:],
            duration=int(round(1000 / fps)),
            loop=0)
        return buf.getvalue()
    if len(images) != 1:
        raise RobustDetError(f'an animated gallery needs a GIF, not {fmt}')
    if fmt == 'PNG':
        meta = PngImagePlugin.PngInfo()
        meta.add_text('robustdet:rows', ' '.join(gallery.rows))
        meta.add_text('robustdet:severities',
                      ' '.join(map(str, gallery.severities)))
        meta.add_text('robustdet:info', json.dumps(gallery.info,
                                                   sort_keys=True))
        image = images[0]
        if colors:
            # An octree palette, then Floyd-Steinberg error diffusion onto
            # it: smooth corruptions (plasma, fog) keep their gradients.
            palette = image.quantize(colors=colors,
                                     method=Image.Quantize.FASTOCTREE)
            image = image.quantize(palette=palette,
                                   dither=Image.Dither.FLOYDSTEINBERG)
        image.save(buf, format='PNG', pnginfo=meta)
    else:
        images[0].save(buf, format='JPEG', quality=_JPEG_QUALITY,
                       subsampling=0)
    return buf.getvalue()


def save_gallery(gallery: Gallery,
                 path: str,
                 fps: float = 4.0,
                 colors: int = 0) -> str:
    """Write a gallery (atomically; parent folders are created).

    Args:
        gallery (Gallery): The gallery.
        path (str): Output file; its extension gives the format.
        fps (float): Frames per second of a GIF.
        colors (int): PNG palette size, 0 for full colour (see
            :func:`encode_gallery`).

    Returns:
        str: ``path``.
    """
    fmt = check_output(path, video=True)
    write_bytes_atomic(encode_gallery(gallery, fmt, fps, colors), path)
    return path
