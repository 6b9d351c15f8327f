# Copyright (c) robustdet contributors. All rights reserved.
"""Find unreadable or truncated images before a long benchmark starts."""
import io
from typing import Any, List, Tuple

from mmengine.fileio import get
from PIL import Image, ImageFile


def check_image_bytes(data: bytes) -> str:
    """Return '' if encoded image bytes decode completely, else the reason.

    OpenCV (what mmcv decodes with) returns a half-grey image for a
    truncated JPEG without an error; Pillow's full decode catches it.

    Args:
        data (bytes): The encoded image.

    Returns:
        str: Empty if fine, else a short reason.
    """
    if not data:
        return 'empty file'
    if ImageFile.LOAD_TRUNCATED_IMAGES:
        return ''  # the user asked Pillow to accept truncated images
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
    except (OSError, ValueError, SyntaxError,
            Image.DecompressionBombError) as e:
        return f'cannot decode: {e}'
    return ''


def read_image_bytes(path: str, backend_args: Any = None) -> Tuple[bytes,
                                                                   str]:
    """Read an image file: ``(bytes, '')``, or ``(b'', reason)`` when it
    cannot be read or decoded completely."""
    try:
        data = get(path, backend_args=backend_args)
    except FileNotFoundError:
        return b'', 'file not found'
    except OSError as e:
        return b'', f'cannot read: {e}'
    reason = check_image_bytes(data)
    return (b'', reason) if reason else (data, '')


def check_image(path: str, backend_args: Any = None) -> str:
    """Return '' if the image at ``path`` decodes completely, else the
    reason (see :func:`check_image_bytes`)."""
    return read_image_bytes(path, backend_args)[1]


def find_bad_images(dataset: Any) -> List[Tuple[str, str]]:
    """All images of a dataset that cannot be decoded completely.

    Args:
        dataset: A built mmengine dataset (``get_data_info`` with
            ``img_path``).

    Returns:
        list[tuple[str, str]]: ``(path, reason)`` of each bad image.
    """
    backend_args = getattr(dataset, 'backend_args', None)
    bad = []
    for i in range(len(dataset)):
        path = dataset.get_data_info(i)['img_path']
        reason = check_image(path, backend_args)
        if reason:
            bad.append((path, reason))
    return bad
