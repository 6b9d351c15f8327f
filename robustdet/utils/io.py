# Copyright (c) robustdet contributors. All rights reserved.
"""Atomic file writes (a reader never sees a half-written file), and the
hash of a file's bytes and of JSON-like data."""
import hashlib
import json
import os
import tempfile
from typing import Any, Callable, List, Sequence, Tuple, Union


def sha256_file(path: str, chunk: int = 1 << 22) -> str:
    """SHA-256 of a file's bytes, read ``chunk`` bytes at a time."""
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(chunk), b''):
            digest.update(block)
    return digest.hexdigest()


def sha256_json(obj: Any) -> str:
    """SHA-256 of ``obj`` as JSON with sorted keys (values JSON cannot
    hold written as their ``repr``): the fingerprint of a config or of
    part of one.

    Args:
        obj: A JSON-like value.

    Returns:
        str: The hex digest.
    """
    text = json.dumps(obj, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def write_bytes_atomic(data: bytes, path: str) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same
    directory and ``os.replace``.

    Args:
        data (bytes): The content.
        path (str): Destination path; its directory is created.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=directory, prefix=f'.{os.path.basename(path)}.', suffix='.tmp')
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def dump_json_atomic(obj: Any, path: str, **kwargs: Any) -> None:
    """Dump ``obj`` as indented JSON to ``path`` atomically.

    Args:
        obj: JSON-serialisable object.
        path (str): Destination path.
        **kwargs: Passed to ``json.dumps`` (default ``indent=2``).
    """
    kwargs.setdefault('indent', 2)
    write_bytes_atomic((json.dumps(obj, **kwargs) + '\n').encode('utf-8'),
                       path)


def write_text_atomic(text: str, path: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    write_bytes_atomic(text.encode('utf-8'), path)


def write_files_atomic(
        out_dir: str, files: Sequence[Tuple[str, Union[str, bytes,
                                                        Callable[[], Any]]]]
) -> List[str]:
    """Write files into ``out_dir`` one after the other, each atomically.

    Args:
        out_dir (str): The directory (created).
        files (Sequence[tuple]): ``(name, content)`` pairs. A content is
            text (written as UTF-8), bytes, or a function that returns
            either, called when its file's turn comes.

    Returns:
        list[str]: The paths written, in order.
    """
    paths = []
    for name, content in files:
        content = content() if callable(content) else content
        path = os.path.join(out_dir, name)
        write = (write_text_atomic
                 if isinstance(content, str) else write_bytes_atomic)
        write(content, path)
        paths.append(path)
    return paths
