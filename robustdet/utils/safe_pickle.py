# Copyright (c) robustdet contributors. All rights reserved.
"""Reading pickles of results without running what they name.

``pickle.load`` calls whatever global a file names, so a results pickle
from the internet can run any code. :func:`load_pickle` unpickles with an
allow-list of plain data only: the containers of the pickle protocol
(dict, list, tuple, str, numbers; these need no global),
``collections.OrderedDict``, sets, numpy scalars, dtypes and arrays of
plain values (booleans, numbers, strings), and ``_codecs.encode`` with the
latin-1 codec only (how protocol 2 writes bytes). Three gates, each
refusing with one line that names what it met:

* a global outside the allow-list;
* a call (REDUCE, NEWOBJ, OBJ) of anything but the allowed constructors;
* a numpy dtype, scalar or array of objects or fields, or a dtype state
  other than numpy's own for that type: a crafted state can make numpy
  read bytes as object pointers, which crashes the process or calls any
  function whose address is known (``tests/test_utils/
  test_safe_pickle.py`` holds such files).

Only the allowed constructors are called, and nothing is written.

That covers the pickles robustness tools write: the raw results of
Michaelis et al. 2019 (Python 2, protocol 2, ``numpy.core`` names, read
with ``encoding='latin1'``), mmdet 2.x's and mmdet 3.x's
``test_robustness.py`` results. Checkpoints are torch files and go
through :mod:`robustdet.utils.checkpoint` (torch's own ``weights_only``
unpickler with an allow-list).
"""
import _compat_pickle
import codecs
import collections
import functools
import io
import pickle
from typing import Any, Callable, Dict, Tuple

import numpy as np

from .errors import RobustDetError

_LATIN1 = codecs.lookup('latin1').name


def _latin1_encode(obj: Any, encoding: str = 'utf-8',
                   errors: str = 'strict') -> bytes:
    """``_codecs.encode`` for latin-1 only: protocol 2 stores ``bytes``
    as ``_codecs.encode(text, 'latin1')``; other codecs are refused."""
    try:
        name = codecs.lookup(encoding).name
    except (LookupError, TypeError):
        name = None
    if name != _LATIN1 or not isinstance(obj, str):
        raise pickle.UnpicklingError(
            f'the global _codecs.encode with codec {encoding!r} (only '
            'latin-1 is allowed)')
    return obj.encode('latin1', errors)


class RefusedGlobal(pickle.UnpicklingError):
    """A pickle names a global or builds an object outside the
    allow-list."""


# dtype kinds whose values are plain bytes: bool, integers, floats,
# complex, bytes and unicode strings. Object ('O') and structured ('V')
# dtypes hold pointers or fields and are refused.
_PLAIN_KINDS = frozenset('biufcSU')


def _plain_dtype(dtype: Any) -> np.dtype:
    """``dtype`` if it is a dtype of plain values, else a refusal."""
    if (not isinstance(dtype, np.dtype) or dtype.kind not in _PLAIN_KINDS
            or dtype.fields is not None or dtype.subdtype is not None
            or dtype.hasobject):
        raise RefusedGlobal(
            f'a numpy dtype {dtype!r} (only plain numbers and strings are '
            'allowed)')
    return dtype


def _dtype(code: Any, align: bool = False, copy: bool = False) -> np.dtype:
    """``numpy.dtype`` for a type code of plain values only."""
    if not isinstance(code, str):
        raise RefusedGlobal(f'a numpy dtype made from {type(code).__name__}')
    return _plain_dtype(np.dtype(code, bool(align), bool(copy)))


def _scalar(dtype: Any, data: Any = None) -> Any:
    """numpy's scalar reconstructor, for plain dtypes only."""
    return np._core.multiarray.scalar(_plain_dtype(dtype), data)


def _reconstruct(subtype: Any, shape: Any, code: Any) -> np.ndarray:
    """numpy's array reconstructor, for plain ``ndarray`` only (its dtype
    is checked when the array's state is set)."""
    if subtype is not np.ndarray:
        raise RefusedGlobal(f'an array of type {subtype!r}')
    return np._core.multiarray._reconstruct(np.ndarray, shape, code)


def _frombuffer(buf: Any, dtype: Any, shape: Any, order: Any) -> Any:
    """numpy's protocol-5 array reconstructor, for plain dtypes only."""
    return np._core.numeric._frombuffer(buf, _plain_dtype(dtype), shape,
                                        order)


@functools.lru_cache(maxsize=None)
def _allowed() -> Dict[Tuple[str, str], Callable]:
    """``(module, name) -> object`` of every global a results pickle may
    name (numpy 1.x's ``numpy.core`` and numpy 2's ``numpy._core``)."""
    allowed = {
        ('collections', 'OrderedDict'): collections.OrderedDict,
        ('builtins', 'set'): set,
        ('builtins', 'frozenset'): frozenset,
        ('builtins', 'complex'): complex,
        ('numpy', 'dtype'): _dtype,
        ('numpy', 'ndarray'): np.ndarray,
        ('_codecs', 'encode'): _latin1_encode,
    }
    for core in ('numpy.core', 'numpy._core'):
        allowed[(f'{core}.multiarray', 'scalar')] = _scalar
        allowed[(f'{core}.multiarray', '_reconstruct')] = _reconstruct
        allowed[(f'{core}.numeric', '_frombuffer')] = _frombuffer
    return allowed


# What REDUCE may call and NEWOBJ may instantiate: the allowed functions
# (np.ndarray only as _reconstruct's argument).
_CALLABLE = frozenset(
    id(f) for f in (collections.OrderedDict, set, frozenset, complex,
                    _dtype, _scalar, _reconstruct, _frombuffer,
                    _latin1_encode))
_NEW = (collections.OrderedDict, set, frozenset)


class _RestrictedUnpickler(pickle._Unpickler):
    """Python's own unpickler (the pure-Python one, whose opcodes can be
    overridden), with three gates: globals come from :func:`_allowed`;
    REDUCE, NEWOBJ and OBJ call only allowed functions and classes; BUILD
    sets the state of numpy dtypes and arrays only, and only states of
    plain values (a crafted dtype state could make numpy read bytes as
    object pointers)."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def find_class(self, module: str, name: str) -> Any:
        # Python 2's names (``__builtin__.set``), mapped as
        # pickle.Unpickler's own find_class maps them.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        try:
            return _allowed()[(module, name)]
        except KeyError:
            raise RefusedGlobal(f'the global {module}.{name}') from None

    def persistent_load(self, pid: Any) -> Any:
        raise RefusedGlobal('a persistent id')

    @staticmethod
    def _check_callable(func: Any) -> None:
        if id(func) not in _CALLABLE:
            raise RefusedGlobal(f'a call of {func!r}')

    def load_reduce(self) -> None:
        self._check_callable(self.stack[-2])
        super().load_reduce()

    dispatch[pickle.REDUCE[0]] = load_reduce

    def _instantiate(self, klass: Any, args: Any) -> None:
        self._check_callable(klass)
        super()._instantiate(klass, args)

    def load_newobj(self) -> None:
        if self.stack[-2] not in _NEW:
            raise RefusedGlobal(f'a new {self.stack[-2]!r}')
        super().load_newobj()

    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self) -> None:
        if self.stack[-3] not in _NEW:
            raise RefusedGlobal(f'a new {self.stack[-3]!r}')
        super().load_newobj_ex()

    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def load_build(self) -> None:
        state = self.stack.pop()
        inst = self.stack[-1]
        if isinstance(inst, np.dtype):
            order = state[1] if isinstance(state, tuple) and len(
                state) > 1 else None
            want = inst.newbyteorder(order) if order in ('<', '>') else inst
            if want.__reduce__()[2] != state:
                raise RefusedGlobal(
                    f'a numpy dtype {inst!r} with the state {state!r}')
        elif isinstance(inst, np.ndarray):
            if not (isinstance(state, tuple) and len(state) == 5
                    and isinstance(state[4], (bytes, str))):
                raise RefusedGlobal('a numpy array with an unknown state')
            _plain_dtype(state[2])
        elif state:
            raise RefusedGlobal(f'a state for a {type(inst).__name__}')
        else:
            return
        inst.__setstate__(state)

    dispatch[pickle.BUILD[0]] = load_build


def loads_pickle(data: bytes) -> Any:
    """Unpickle bytes with the allow-list (see the module docstring).

    Strings of Python 2 pickles are read as latin-1, as numpy's scalars
    need.

    Args:
        data (bytes): The pickle.

    Returns:
        The unpickled object.

    Raises:
        RefusedGlobal: The pickle names a global outside the allow-list.
        pickle.UnpicklingError, EOFError, ValueError, TypeError, ...:
            Truncated or corrupt data.
    """
    return _RestrictedUnpickler(
        io.BytesIO(data), encoding='latin1').load()


def load_pickle(path: str) -> Any:
    """Unpickle a file with the allow-list, with one-line errors.

    Args:
        path (str): The file.

    Returns:
        The unpickled object.

    Raises:
        RobustDetError: The file is missing, not a pickle, truncated or
            corrupt, or names a global outside the allow-list (the message
            names it; nothing was called).
    """
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise RobustDetError(
            f'{path}: cannot read it ({e.strerror or e})') from None
    try:
        return loads_pickle(data)
    except RefusedGlobal as e:
        raise RobustDetError(
            f'{path}: refusing to unpickle it: it names {e}, which is not '
            "on robustdet's allow-list of plain data (containers, "
            'OrderedDict, numpy scalars and arrays); nothing in it was '
            'run') from None
    except (EOFError, pickle.UnpicklingError) as e:
        if not isinstance(e, EOFError) and 'truncated' not in str(e):
            raise RobustDetError(
                f'{path}: not a readable pickle ({e})') from None
        raise RobustDetError(
            f'{path}: truncated pickle (it ends before its STOP '
            'opcode)') from None
    except Exception as e:  # any malformed data: one line, no traceback
        text = str(e).strip().splitlines()
        raise RobustDetError(
            f'{path}: not a readable pickle ({type(e).__name__}'
            f'{": " + text[0] if text else ""})') from None
