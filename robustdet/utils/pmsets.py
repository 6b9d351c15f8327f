# Copyright (c) robustdet contributors. All rights reserved.
"""The pm-k neighbour-set files: reading, validating, frame numbers.

A pm-sets file maps each anchor frame key to its neighbour frame keys
(``{anchor_key: [neighbour_key, ...]}``). Pure (no OpenMMLab imports):
``datasets/`` reads it to build and load neighbour sets, ``evaluation/``
to score them.
"""
import json
import os
import re
from typing import Any, List, Tuple, Union

from .errors import RobustDetError

__all__ = ['frame_number', 'parse_pmsets', 'read_json']

_FRAME_NUMBER = re.compile(r'(\d+)(?!.*\d)')


def read_json(source: Union[str, os.PathLike, Any], what: str) -> Any:
    """A JSON document from a path, or ``source`` itself if already
    loaded.

    Args:
        source: A path (str or PathLike) or a loaded object.
        what (str): What the file is, for messages.

    Returns:
        The parsed JSON.
    """
    if not isinstance(source, (str, os.PathLike)):
        return source
    path = os.fspath(source)
    if not os.path.isfile(path):
        raise RobustDetError(f'{what} file not found: {path}')
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RobustDetError(
            f'{what} file {path} is not valid JSON: {e}') from None


def frame_number(key: str) -> int:
    """The frame number of a frame key: the last run of digits of its file
    name without extension (``val/ILSVRC2015_val_00000000/000442.JPEG`` ->
    442)."""
    stem = os.path.splitext(os.path.basename(key))[0]
    match = _FRAME_NUMBER.search(stem)
    if match is None:
        raise RobustDetError(
            f'cannot read a frame number from the file name of {key!r}')
    return int(match.group(1))


def parse_pmsets(sets: Any) -> List[Tuple[str, List[Tuple[str, int]]]]:
    """Validate pm sets ``{anchor_key: [neighbour_key, ...]}``.

    A neighbour's offset is the difference of the frame numbers
    (:func:`frame_number`); it must be in the anchor's video directory.

    Returns:
        list: ``[(anchor_key, [(neighbour_key, offset), ...]), ...]`` in
        file order.
    """
    if not isinstance(sets, dict) or not sets:
        raise RobustDetError(
            'pm sets must be a non-empty JSON object '
            '{anchor_key: [neighbour_key, ...]}')
    out = []
    for anchor, nbs in sets.items():
        if not isinstance(nbs, list) or not all(
                isinstance(n, str) for n in nbs):
            raise RobustDetError(
                f'pm set of anchor {anchor!r} must be a list of frame keys')
        video = os.path.dirname(anchor)
        number = frame_number(anchor)
        pairs, seen = [], set()
        for nb in nbs:
            if nb == anchor:
                raise RobustDetError(
                    f'anchor {anchor!r} lists itself as a neighbour')
            if nb in seen:
                raise RobustDetError(
                    f'anchor {anchor!r} lists neighbour {nb!r} twice')
            seen.add(nb)
            if os.path.dirname(nb) != video:
                raise RobustDetError(
                    f'neighbour {nb!r} of anchor {anchor!r} is from another '
                    'video (directory)')
            offset = frame_number(nb) - number
            if offset == 0:
                raise RobustDetError(
                    f'neighbour {nb!r} of anchor {anchor!r} has the same '
                    'frame number')
            pairs.append((nb, offset))
        out.append((anchor, pairs))
    return out
