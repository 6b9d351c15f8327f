# Copyright (c) robustdet contributors. All rights reserved.
"""The example strips of a ``tools/test_robust.py --show-dir`` folder
(written by :mod:`robustdet.engine.hooks.show_hook`) as the HTML report
embeds them: a few per corruption, downscaled to JPEG ``data:`` URIs.
"""
import base64
import io
import os
import os.path as osp
from typing import Any, Dict, List, Optional, Tuple

from PIL import Image, UnidentifiedImageError

from ..corruptions import CORRUPTION_NAMES
from ..evaluation.functional.video_robustness import CLIP_NAMES
from ..utils.errors import RobustDetError

# Widest strip picture embedded (pixels); wider ones are downscaled.
STRIP_WIDTH = 800
STRIP_QUALITY = 80
# Strips embedded per corruption and in all (the rest are counted).
STRIPS_PER_CORRUPTION = 4
MAX_STRIPS = 48
STRIP_EXTENSIONS = ('.jpg', '.jpeg', '.png')


def data_uri(data: bytes, mime: str) -> str:
    """``data`` as a base64 ``data:`` URI."""
    return f'data:{mime};base64,' + base64.b64encode(data).decode('ascii')


def jpeg_thumbnail(path: str,
                   max_width: int = STRIP_WIDTH,
                   quality: int = STRIP_QUALITY) -> Optional[bytes]:
    """A picture file as JPEG bytes at most ``max_width`` pixels wide.

    Args:
        path (str): The picture.
        max_width (int): Widest result; wider pictures are downscaled
            (aspect kept).
        quality (int): JPEG quality.

    Returns:
        bytes | None: The JPEG; None if the file is not a readable
        picture.
    """
    try:
        with Image.open(path) as img:
            img.load()
            img = img.convert('RGB')
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    if img.width > max_width:
        height = max(1, round(img.height * max_width / img.width))
        img = img.resize((max_width, height), Image.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, format='JPEG', quality=quality, optimize=True)
    return buf.getvalue()


def _strip_order(name: str) -> Tuple[int, str]:
    order = {n: i for i, n in enumerate(CORRUPTION_NAMES + CLIP_NAMES)}
    return order.get(name, len(order)), name


def strips(show_dir: str) -> Dict[str, Any]:
    """The example strips ``SHOW_DIR/strips/<corruption>/<image>`` of
    ``tools/test_robust.py --show-dir`` (pictures in subfolders of a
    corruption's folder too, e.g. a pm-k run's ``<severity>/<anchor>``),
    downscaled to JPEGs at most :data:`STRIP_WIDTH` wide:
    :data:`STRIPS_PER_CORRUPTION` per corruption, :data:`MAX_STRIPS` in
    all (the others are counted).

    Args:
        show_dir (str): The ``--show-dir`` folder.

    Returns:
        dict: ``show_dir``, ``root``, ``groups`` (``name`` and
        ``figures``: ``file`` and ``src``, a ``data:`` URI), ``shown``,
        ``left`` (not shown) and ``unreadable`` (joined names).
    """
    root = osp.join(show_dir, 'strips')
    if not osp.isdir(root):
        raise RobustDetError(
            f'--show-dir {show_dir}: no strips/ folder in it (test_robust.py '
            '--show-dir DIR writes DIR/strips/<corruption>/<image>.jpg)')
    groups: List[Dict[str, Any]] = []
    shown, left, unreadable = 0, 0, []
    names = sorted((n for n in os.listdir(root)
                    if osp.isdir(osp.join(root, n))), key=_strip_order)
    for name in names:
        folder = osp.join(root, name)
        files = sorted(
            osp.relpath(osp.join(d, f), folder)
            for d, _, fnames in os.walk(folder) for f in fnames
            if f.lower().endswith(STRIP_EXTENSIONS))
        figures: List[Dict[str, str]] = []
        for i, fname in enumerate(files):
            if len(figures) >= STRIPS_PER_CORRUPTION or shown >= MAX_STRIPS:
                left += len(files) - i
                break
            data = jpeg_thumbnail(osp.join(folder, fname))
            if data is None:
                unreadable.append(f'{name}/{fname}')
                continue
            shown += 1
            figures.append(dict(file=fname,
                                src=data_uri(data, 'image/jpeg')))
        if figures:
            groups.append(dict(name=name, figures=figures))
    return dict(show_dir=show_dir, root=root, groups=groups, shown=shown,
                left=left, per_corruption=STRIPS_PER_CORRUPTION,
                most=MAX_STRIPS, unreadable=', '.join(unreadable))
