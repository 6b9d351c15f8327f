# Copyright (c) robustdet contributors. All rights reserved.
"""What the opcodes of a result pickle may build, as inert stand-ins.

:mod:`robustdet.utils.pickle_parser` reads the opcodes; this module says
what they make: containers as :class:`Seq` and :class:`Map`, and the few
globals a results pickle may name as markers (:class:`Global`) whose
calls (:func:`call`, REDUCE) and states (:func:`build`, BUILD) only
record checked arguments in :class:`Dtype`, :class:`Scalar` and
:class:`Array`. Nothing here calls numpy or a constructor with what a file
says; :mod:`robustdet.utils.safe_pickle` makes the values afterwards. The
caps (``MAX_*``) and the loader's one error live here too.
"""
import math
from typing import Any, List, Tuple

from .errors import RobustDetError

# The caps. A results pickle of the paper holds ~10^4 opcodes and values,
# nests 5 deep and is a few hundred kB; the caps leave room for VOC
# pickles with per-class precision / recall arrays.
MAX_FILE_BYTES = 1 << 30  # a file larger than 1 GiB is refused unread
MAX_OPCODES = 10_000_000  # opcodes read, of any kind
MAX_OBJECTS = 2_000_000  # values made (memo and stack references aside)
MAX_DEPTH = 64  # containers nested in one another
MAX_BYTES = 256 << 20  # one str, bytes or array payload: 256 MiB
MAX_ARRAY_ELEMENTS = 1 << 28  # elements of one array (and each axis)
MAX_NDIM = 32  # axes of one array
MAX_INT_BITS = 64  # integers in [-2**63, 2**64)
MAX_NUMBER_TEXT = 64  # characters of a protocol-0 number
HIGHEST_PROTOCOL = 5

# The numpy dtypes a file may hold, by numpy's own pickled type code.
_NUMERIC_CODES = frozenset(('b1', 'i1', 'u1', 'i2', 'u2', 'i4', 'u4', 'i8',
                            'u8', 'f2', 'f4', 'f8'))
# The state numpy's dtype pickles give a plain dtype:
# (version, byte order, subarray, names, fields, elsize, alignment, flags)
_DTYPE_STATE_TAIL = (None, None, None, -1, -1, 0)
_LATIN1_NAMES = frozenset(('latin1', 'latin-1', 'iso-8859-1', 'iso8859-1'))
_ALLOW_LIST = ('containers, OrderedDict, sets, numpy scalars and arrays of '
               'numbers')


class UnsafePickleError(RobustDetError):
    """The loader's only error: the data is not a pickle, is truncated,
    breaks a cap, or holds something outside the allow-list. The message
    is one line, without the file name (:func:`load_pickle` adds it)."""


def refused(what: str) -> UnsafePickleError:
    """The error for something outside the allow-list.

    Args:
        what (str): What the file holds, e.g. ``'it names the global
            posix.system'``.

    Returns:
        UnsafePickleError: The one-line error.
    """
    return UnsafePickleError(
        f'refusing to unpickle it: {what}; robustdet reads plain data only '
        f'({_ALLOW_LIST}) and ran nothing in it')


def malformed(what: str) -> UnsafePickleError:
    """The error for data that is no pickle.

    Args:
        what (str): What is wrong with it.

    Returns:
        UnsafePickleError: The one-line error.
    """
    return UnsafePickleError(f'not a readable pickle ({what})')


def cap_error(what: str, cap: str) -> UnsafePickleError:
    """The error for a file over one of the caps.

    Args:
        what (str): What is too large.
        cap (str): The cap.

    Returns:
        UnsafePickleError: The one-line error.
    """
    return UnsafePickleError(
        f'refusing to unpickle it: {what} (the cap is {cap}); robustdet ran '
        'nothing in it')


def truncated() -> UnsafePickleError:
    """The error for a pickle that ends before its STOP opcode."""
    return UnsafePickleError(
        'truncated pickle (it ends before its STOP opcode)')


def show(value: Any, limit: int = 60) -> str:
    """``repr(value)`` for a message: one line, at most ``limit``
    characters, and never an error (a huge int or a deep value is named
    by its type).

    Args:
        value: What to show.
        limit (int): The most characters.

    Returns:
        str: The text.
    """
    if isinstance(value, (str, bytes)):
        text = repr(value[:limit])
    elif isinstance(value, (bool, float, type(None))) or (
            isinstance(value, int) and value.bit_length() <= 256):
        text = repr(value)
    else:
        text = f'a {type(value).__name__}'
    return text if len(text) <= limit else text[:limit - 3] + '...'


# -- stand-ins: what the parser builds ------------------------------------


def _depth(values: Any, depth: int = 1) -> int:
    """``depth``, raised to 1 + the depth of any container in ``values``;
    past :data:`MAX_DEPTH` a refusal. Containers only grow, so a depth
    known now is a lower bound of the final one, and a chain of nested
    tuples is refused as soon as it is too deep, not after the whole
    file."""
    for value in values:
        kind = type(value)
        if (kind is Seq or kind is Map) and value.depth >= depth:
            depth = value.depth + 1
    if depth > MAX_DEPTH:
        raise cap_error(f'containers nested more than {MAX_DEPTH} deep',
                        str(MAX_DEPTH))
    return depth


class Seq:
    """A list, tuple, set or frozenset under construction, and the depth
    it has at least."""
    __slots__ = ('kind', 'items', 'depth')

    def __init__(self, kind: str, items: List[Any]):
        self.kind, self.items = kind, items
        self.depth = _depth(items)

    def add(self, items: List[Any]) -> None:
        self.depth = _depth(items, self.depth)
        self.items.extend(items)


class Map:
    """A dict (``ordered``: an OrderedDict) as its (key, value) pairs, and
    the depth it has at least."""
    __slots__ = ('ordered', 'pairs', 'depth')

    def __init__(self, ordered: bool, pairs: List[Tuple[Any, Any]]):
        self.ordered, self.pairs = ordered, pairs
        self.depth = _depth(v for pair in pairs for v in pair)

    def add(self, pairs: List[Tuple[Any, Any]]) -> None:
        self.depth = _depth((v for pair in pairs for v in pair), self.depth)
        self.pairs.extend(pairs)


class Global:
    """An allowed global, by robustdet's name for it; calling it (REDUCE)
    records a stand-in, it never runs numpy's function."""
    __slots__ = ('name', )

    def __init__(self, name: str):
        self.name = name


class Dtype:
    """``numpy.dtype(code)``; its byte order comes with its state."""
    __slots__ = ('code', 'order')

    def __init__(self, code: str):
        self.code, self.order = code, None


class Scalar:
    """``numpy.core.multiarray.scalar(dtype, data)``."""
    __slots__ = ('dtype', 'data')

    def __init__(self, dtype: Dtype, data: bytes):
        self.dtype, self.data = dtype, data


class Array:
    """A numpy array: ``_reconstruct`` and then its state, or
    ``_frombuffer`` at once. ``data`` is None until the state is set."""
    __slots__ = ('dtype', 'shape', 'fortran', 'data')

    def __init__(self):
        self.dtype = self.shape = self.fortran = self.data = None


NODE_TYPES = frozenset((Seq, Map, Global, Dtype, Scalar, Array))

# (module, name) -> robustdet's name for an allowed global. Python 2's
# ``__builtin__`` and numpy 1.x's ``numpy.core`` included.
_GLOBALS = {
    ('collections', 'OrderedDict'): 'OrderedDict',
    ('_codecs', 'encode'): 'encode',
    ('numpy', 'dtype'): 'dtype',
    ('numpy', 'ndarray'): 'ndarray',
}
for _builtins in ('builtins', '__builtin__'):
    for _name in ('set', 'frozenset', 'bytes'):
        _GLOBALS[(_builtins, _name)] = _name
for _core in ('numpy.core', 'numpy._core'):
    _GLOBALS[(f'{_core}.multiarray', 'scalar')] = 'scalar'
    _GLOBALS[(f'{_core}.multiarray', '_reconstruct')] = '_reconstruct'
    _GLOBALS[(f'{_core}.numeric', '_frombuffer')] = '_frombuffer'


def resolve_global(module: Any, name: Any) -> Global:
    """The marker of an allowed global (GLOBAL, STACK_GLOBAL), else a
    refusal that names it.

    Args:
        module: The module name the file gives.
        name: The name the file gives.

    Returns:
        Global: The marker.
    """
    if not isinstance(module, str) or not isinstance(name, str):
        raise malformed('a global whose name is not a string')
    key = _GLOBALS.get((module, name))
    if key is None:
        text = f'{module}.{name}'
        if not text.isprintable() or len(text) > 100:
            text = show(text, 100)
        raise refused(f'it names the global {text}')
    return Global(key)


def describe(value: Any) -> str:
    """What a value or stand-in is, for messages.

    Args:
        value: A plain value or a stand-in.

    Returns:
        str: E.g. ``'a numpy array'``, ``'a value of type float'``.
    """
    if isinstance(value, Seq):
        return f'a {value.kind}'
    if isinstance(value, Map):
        return 'a dict'
    if isinstance(value, Global):
        return f'the global {value.name}'
    if isinstance(value, Dtype):
        return 'a numpy dtype'
    if isinstance(value, Scalar):
        return 'a numpy scalar'
    if isinstance(value, Array):
        return 'a numpy array'
    return f'a value of type {type(value).__name__}'


def _built_dtype(value: Any, what: str) -> Dtype:
    if not isinstance(value, Dtype):
        raise refused(f'{what} with {describe(value)} as its dtype')
    if value.order is None:
        raise refused(f'{what} with a numpy dtype whose state is not set')
    return value


def _payload(value: Any, what: str) -> bytes:
    """Raw bytes: ``bytes``, or a Python 2 ``str`` read as latin-1."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        try:
            return value.encode('latin1')
        except UnicodeEncodeError:
            raise malformed(f'{what} whose data is not latin-1') from None
    raise refused(f'{what} whose data is {describe(value)}')


def _shape(value: Any, what: str) -> Tuple[int, ...]:
    if not (isinstance(value, Seq) and value.kind == 'tuple'):
        raise refused(f'{what} whose shape is {describe(value)}')
    if len(value.items) > MAX_NDIM:
        raise cap_error(f'{what} of {len(value.items)} axes', str(MAX_NDIM))
    shape = tuple(value.items)
    if not all(type(d) is int and 0 <= d <= MAX_ARRAY_ELEMENTS
               for d in shape):
        raise refused(f'{what} whose shape is not a tuple of sizes up to '
                      f'{MAX_ARRAY_ELEMENTS}')
    if math.prod(d for d in shape if d) > MAX_ARRAY_ELEMENTS:
        raise cap_error(f'{what} of more than {MAX_ARRAY_ELEMENTS} elements',
                        str(MAX_ARRAY_ELEMENTS))
    return shape


def _set_array(array: Array, dtype: Any, shape: Any, fortran: Any,
               data: Any) -> None:
    array.dtype = _built_dtype(dtype, 'a numpy array')
    array.shape = _shape(shape, 'a numpy array')
    if type(fortran) not in (bool, int) or fortran not in (0, 1):
        raise refused('a numpy array whose order is not a flag')
    array.fortran = bool(fortran)
    array.data = _payload(data, 'a numpy array')


def call(name: str, args: List[Any]) -> Any:
    """REDUCE of an allowed global: the stand-in it stands for, made
    from checked arguments only.

    Args:
        name (str): The global, by :func:`resolve_global`'s name for it.
        args (list): The arguments (plain values and stand-ins).

    Returns:
        A stand-in or plain value.
    """
    n = len(args)
    if name in ('OrderedDict', 'set', 'frozenset') and n <= 1:
        items = []
        if n:
            arg = args[0]
            if not isinstance(arg, Seq) or arg.kind == 'set' and (
                    name == 'OrderedDict'):
                raise refused(f'{name} of {describe(arg)}')
            items = list(arg.items)
        if name != 'OrderedDict':
            return Seq(name, items)
        pairs = []
        for pair in items:  # Python 2: OrderedDict([[key, value], ...])
            if not (isinstance(pair, Seq) and pair.kind in ('list', 'tuple')
                    and len(pair.items) == 2):
                raise refused(f'OrderedDict of {describe(pair)}')
            pairs.append(tuple(pair.items))
        return Map(True, pairs)
    if name == 'bytes' and n == 0:
        return b''
    if name == 'encode' and n in (1, 2):  # protocol 2's bytes
        codec = args[1] if n == 2 else 'utf-8'
        if not isinstance(codec, str) or codec.lower() not in _LATIN1_NAMES:
            raise refused(f'the global _codecs.encode with codec '
                          f'{show(codec)} (only latin-1 is allowed)')
        return _payload(args[0], '_codecs.encode')
    if name == 'dtype' and n == 3:
        code = args[0]
        if not isinstance(code, str):
            raise refused(f'a numpy dtype made from {describe(code)}')
        if code not in _NUMERIC_CODES:
            raise refused(f'a numpy dtype {show(code)} (only booleans, '
                           'integers and floats are allowed)')
        if any(type(a) not in (bool, int) or a not in (0, 1)
               for a in args[1:]):
            raise refused('a numpy dtype with other arguments than '
                          "numpy's own")
        return Dtype(code)
    if name == 'scalar' and n == 2:
        return Scalar(_built_dtype(args[0], 'a numpy scalar'),
                       _payload(args[1], 'a numpy scalar'))
    if name == '_reconstruct' and n == 3:
        subtype, shape, code = args
        if not (isinstance(subtype, Global) and subtype.name == 'ndarray'):
            raise refused(f'an array of type {describe(subtype)}')
        if not (isinstance(shape, Seq) and shape.items == [0]
                and code in (b'b', 'b')):
            raise refused("a numpy array reconstructed with other "
                          "arguments than numpy's own")
        return Array()
    if name == '_frombuffer' and n == 4:
        if args[3] not in ('C', 'F'):
            raise refused('a numpy array whose order is not C or F')
        array = Array()
        _set_array(array, args[1], args[2], args[3] == 'F', args[0])
        return array
    raise refused(f'a call of the global {name} with {n} arguments')


def build(target: Any, state: Any) -> None:
    """BUILD: only numpy's own states of a dtype and of an array made by
    ``_reconstruct``, once each.

    Args:
        target: The stand-in the state is for.
        state: The state (plain values and stand-ins).
    """
    if isinstance(target, Dtype) and target.order is None:
        items = state.items if isinstance(state, Seq) else None
        single = len(target.code) > 1 and target.code[1] == '1'
        ok = (state.kind == 'tuple' and len(items) == 8 and items[0] == 3
              and type(items[0]) is int and tuple(items[2:]) ==
              _DTYPE_STATE_TAIL and all(type(v) in (int, type(None))
                                        for v in items[2:])
              and items[1] in (('|', ) if single else ('<', '>'))) \
            if items is not None else False
        if not ok:
            raise refused(f'a numpy dtype {target.code} with a state '
                          "other than numpy's own")
        target.order = items[1]
        return
    if isinstance(target, Array) and target.data is None:
        items = state.items if isinstance(state, Seq) else None
        if items is None or state.kind != 'tuple' or len(items) not in (4,
                                                                        5):
            raise refused('a numpy array with a state other than '
                          "numpy's own")
        if len(items) == 5:
            if items[0] != 1 or type(items[0]) is not int:
                raise refused('a numpy array state of another version')
            items = items[1:]
        shape, dtype, fortran, data = items
        _set_array(target, dtype, shape, fortran, data)
        return
    again = isinstance(target, (Dtype, Array))
    raise refused(f'a second state (BUILD) for {describe(target)}' if again
                   else f'a state (BUILD) for {describe(target)}')
