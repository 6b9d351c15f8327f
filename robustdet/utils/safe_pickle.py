# Copyright (c) robustdet contributors. All rights reserved.
"""Reading result pickles from strangers: parsed, never executed.

``pickle.load`` calls whatever a file names, and even numpy's own
reconstructors, given crafted arguments, read and write memory they do
not own. So :func:`loads_pickle` does not unpickle. It reads the opcodes
of protocols 0-5 itself (:mod:`robustdet.utils.pickle_parser`) and builds
inert stand-ins:
the globals a results pickle may name resolve to robustdet's own markers,
which only record their arguments, and nothing from the stream reaches
numpy or a container constructor while it is read. Only after the STOP
opcode, :func:`_materialise` walks the stand-ins without recursion and
builds plain values:

* ``dict`` (``collections.OrderedDict`` where the file has one), ``list``,
  ``tuple``, ``set``, ``frozenset``, ``str``, ``bytes``, ``int``,
  ``float``, ``bool`` and ``None``;
* numpy scalars and arrays of booleans, integers and floats, each a fresh
  copy of exactly ``prod(shape) * itemsize`` bytes of the file, with an
  explicit byte order.

What the pickles of robustness tools hold needs nothing more: the raw
results of Michaelis et al. 2019 (Python 2, protocol 2, ``numpy.core``
names, ``str`` read as latin-1), mmdet 1.x / 2.x (numpy scalars and
arrays) and mmdet 3.x (floats). Everything else is refused with one line
(:class:`UnsafePickleError`), among it any other global, object or
string dtypes, an array without its data or with data of another length,
a state (BUILD) on anything but a numpy dtype or array or twice on one,
an item added to anything but a list, dict or set, dict keys and set
items other than ``str``, ``bytes``, ``int``, ``bool`` and ``None``, a
container holding itself, and the opcodes that name objects by other
means (PERSID, EXT, INST, OBJ, NEWOBJ, out-of-band buffers).

Every size is capped (the ``MAX_*`` constants of
:mod:`~robustdet.utils.pickle_values`, exported here); each cap gives one
line when hit. The time to read a file is linear in its size.

Checkpoints are torch files and go through
:mod:`robustdet.utils.checkpoint` (torch's own ``weights_only`` unpickler
with an allow-list).
"""
import collections
import math
import os
from typing import Any, Callable, Dict, List

import numpy as np

from .errors import RobustDetError
from .pickle_parser import PICKLE_FIRST_BYTES, parse
from .pickle_values import (MAX_ARRAY_ELEMENTS, MAX_BYTES, MAX_DEPTH,
                            MAX_FILE_BYTES, MAX_INT_BITS, MAX_NDIM,
                            MAX_OBJECTS, MAX_OPCODES, NODE_TYPES, Array, Dtype,
                            Map, Scalar, Seq, UnsafePickleError, cap_error,
                            describe, refused, show, truncated)

__all__ = [
    'load_pickle', 'loads_pickle', 'nesting_depth', 'show',
    'UnsafePickleError', 'PICKLE_FIRST_BYTES', 'MAX_FILE_BYTES',
    'MAX_OPCODES', 'MAX_OBJECTS', 'MAX_DEPTH', 'MAX_BYTES',
    'MAX_ARRAY_ELEMENTS', 'MAX_NDIM', 'MAX_INT_BITS'
]

# -- materialising: stand-ins to plain values -----------------------------

# What a dict key or set item may be: values whose hash is one step and
# whose equality cannot be made slow (str and bytes hash with a random
# key; integers are capped).
_KEY_TYPES = (str, bytes, int, bool, type(None))


def _children(node: Any) -> List[Any]:
    if isinstance(node, Seq):
        return node.items
    if isinstance(node, Map):
        return [v for pair in node.pairs for v in pair]
    return []


def _keys(values: List[Any], what: str) -> List[Any]:
    for value in values:
        if type(value) not in _KEY_TYPES:
            raise refused(f'{what} of type {type(value).__name__} (only '
                          'str, bytes, int, bool and None are allowed)')
    return values


def _numpy_dtype(node: Dtype) -> np.dtype:
    """The dtype of a checked code and byte order."""
    return np.dtype(node.code if node.order == '|' else node.order +
                    node.code)


def _scalar_value(node: Scalar) -> Any:
    dtype = _numpy_dtype(node.dtype)
    if len(node.data) != dtype.itemsize:
        raise refused(f'a numpy scalar of {dtype} with {len(node.data)} '
                      f'bytes of data instead of {dtype.itemsize}')
    value = np.frombuffer(node.data, dtype=dtype).copy()
    _check_booleans(value)
    return value[0]


def _check_booleans(array: np.ndarray) -> None:
    """numpy booleans are the bytes 0 and 1; others are refused."""
    if array.dtype.kind == 'b' and array.view(np.uint8).max(
            initial=0) > 1:
        raise refused('a numpy boolean that is neither 0 nor 1')


def _array_value(node: Array) -> np.ndarray:
    if node.data is None:
        raise refused('a numpy array without its data')
    dtype = _numpy_dtype(node.dtype)
    count = math.prod(node.shape)
    if len(node.data) != count * dtype.itemsize:
        raise refused(
            f'a numpy array of shape {node.shape} and dtype {dtype} with '
            f'{len(node.data)} bytes of data instead of '
            f'{count * dtype.itemsize}')
    order = 'F' if node.fortran else 'C'
    if count == 0:
        return np.zeros(node.shape, dtype=dtype, order=order)
    # A fresh, owning copy of exactly the validated bytes.
    array = np.frombuffer(
        node.data, dtype=dtype, count=count).reshape(
            node.shape, order=order).copy(order='K')
    _check_booleans(array)
    return array


def _make(node: Any, value: Callable[[Any], Any]) -> Any:
    """The plain value of one stand-in whose children are made."""
    if isinstance(node, Seq):
        items = [value(c) for c in node.items]
        if node.kind == 'list':
            return items
        if node.kind == 'tuple':
            return tuple(items)
        items = _keys(items, f'a {node.kind} item')
        return set(items) if node.kind == 'set' else frozenset(items)
    if isinstance(node, Map):
        keys = _keys([value(k) for k, _ in node.pairs], 'a dict key')
        pairs = zip(keys, (value(v) for _, v in node.pairs))
        return collections.OrderedDict(pairs) if node.ordered else dict(
            pairs)
    if isinstance(node, Scalar):
        return _scalar_value(node)
    if isinstance(node, Array):
        return _array_value(node)
    # a dtype or a global as a value, not as an argument
    raise refused(f'{describe(node)} as a value')


def _too_deep() -> UnsafePickleError:
    return cap_error(f'containers nested more than {MAX_DEPTH} deep',
                     str(MAX_DEPTH))


def _materialise(root: Any) -> Any:
    """Plain values for the stand-ins under ``root``, depth first with an
    explicit stack (no recursion), shared values made once and shared as
    in the file, a container that holds itself refused, and the nesting
    capped at :data:`MAX_DEPTH`."""
    made: Dict[int, Any] = {}
    height: Dict[int, int] = {}
    open_: set = set()  # the path from the root: expanded, not yet made

    def value(child: Any) -> Any:
        return made[id(child)] if type(child) in NODE_TYPES else child

    if type(root) not in NODE_TYPES:
        return root
    todo = [(root, False)]
    while todo:
        node, ready = todo.pop()
        key = id(node)
        if key in made:
            continue
        children = [c for c in _children(node) if type(c) in NODE_TYPES]
        if ready:
            open_.discard(key)
            height[key] = 1 + max((height[id(c)] for c in children),
                                  default=0)
            if height[key] > MAX_DEPTH:
                raise _too_deep()
            made[key] = _make(node, value)
            continue
        if key in open_:
            raise refused('a container that holds itself')
        open_.add(key)
        if len(open_) > MAX_DEPTH:
            raise _too_deep()
        todo.append((node, True))
        todo.extend((c, False) for c in children)
    return value(root)


def nesting_depth(obj: Any, limit: int = MAX_DEPTH) -> int:
    """How deep lists, tuples, sets and dicts nest in ``obj`` (0 for a
    scalar), without recursion, in time linear in the number of distinct
    containers (a value shared by many is walked once).

    Args:
        obj: A plain value (what :func:`loads_pickle` or ``json.load``
            return).
        limit (int): Where to stop counting.

    Returns:
        int: The depth, or ``limit + 1`` if it is deeper than ``limit`` or
        a container holds itself.
    """
    containers = (dict, list, tuple, set, frozenset)
    height: Dict[int, int] = {}
    open_: set = set()  # the path from the root: expanded, not yet done
    todo = [(obj, False)]
    while todo:
        value, ready = todo.pop()
        key = id(value)
        if not isinstance(value, containers) or key in height:
            continue
        children = [
            c for c in (value.values() if isinstance(value, dict) else value)
            if isinstance(c, containers)
        ]
        if ready:
            open_.discard(key)
            height[key] = 1 + max((height[id(c)] for c in children),
                                  default=0)
            continue
        if key in open_ or len(open_) >= limit:
            return limit + 1
        open_.add(key)
        todo.append((value, True))
        todo.extend((c, False) for c in children)
    return min(height.get(id(obj), 0), limit + 1)


# -- the entry points -----------------------------------------------------


def loads_pickle(data: bytes) -> Any:
    """Read a pickle of plain data (see the module docstring).

    Args:
        data (bytes): The pickle, protocols 0-5.

    Returns:
        Plain values: dicts (OrderedDicts where the file has them),
        lists, tuples, sets, str, bytes, numbers, None, numpy scalars and
        owning numpy arrays of booleans, integers and floats.

    Raises:
        UnsafePickleError: The data is not a pickle, is truncated, breaks
            a cap or holds something outside the allow-list; nothing in
            it was run.
    """
    if len(data) > MAX_FILE_BYTES:
        raise cap_error(f'{len(data)} bytes', f'{MAX_FILE_BYTES} bytes')
    if not data:
        raise truncated()
    return _materialise(parse(bytes(data)))


def load_pickle(path: str) -> Any:
    """Read a pickle file of plain data, with one-line errors.

    Args:
        path (str): The file.

    Returns:
        What :func:`loads_pickle` returns.

    Raises:
        RobustDetError: The file cannot be read, is too large, or
            :func:`loads_pickle` refuses it (the message names the file
            and why; nothing in it was run).
    """
    try:
        if os.path.isdir(path):
            raise RobustDetError(f'{path}: is a directory, not a file')
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise RobustDetError(
                f'{path}: refusing to read it: {size} bytes (the cap is '
                f'{MAX_FILE_BYTES} bytes)')
        with open(path, 'rb') as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise RobustDetError(
            f'{path}: cannot read it ({e.strerror or e})') from None
    try:
        return loads_pickle(data)
    except UnsafePickleError as e:
        raise UnsafePickleError(f'{path}: {e}') from None
