# Copyright (c) robustdet contributors. All rights reserved.
"""Reading pickles of results without running what they name.

``pickle.load`` calls whatever global a file names, so a results pickle
from the internet can run any code. :func:`load_pickle` unpickles with an
allow-list of plain data only: the containers of the pickle protocol
(dict, list, tuple, str, numbers; these need no global),
``collections.OrderedDict``, sets, numpy scalars, dtypes and arrays, and
``_codecs.encode`` with the latin-1 codec only (how protocol 2 writes
bytes). Any other global is refused with one line that names it; nothing
is called before the refusal, and nothing is written.

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


@functools.lru_cache(maxsize=None)
def _allowed() -> Dict[Tuple[str, str], Callable]:
    """``(module, name) -> object`` of every global a results pickle may
    name (numpy 1.x's ``numpy.core`` and numpy 2's ``numpy._core``)."""
    multiarray = np._core.multiarray
    allowed = {
        ('collections', 'OrderedDict'): collections.OrderedDict,
        ('builtins', 'set'): set,
        ('builtins', 'frozenset'): frozenset,
        ('builtins', 'complex'): complex,
        ('numpy', 'dtype'): np.dtype,
        ('numpy', 'ndarray'): np.ndarray,
        ('_codecs', 'encode'): _latin1_encode,
    }
    for module in ('numpy.core.multiarray', 'numpy._core.multiarray'):
        allowed[(module, 'scalar')] = multiarray.scalar
        allowed[(module, '_reconstruct')] = multiarray._reconstruct
    # Arrays in protocol 5 pickles.
    for module in ('numpy.core.numeric', 'numpy._core.numeric'):
        allowed[(module, '_frombuffer')] = np._core.numeric._frombuffer
    # numpy >= 1.25 may pickle a dtype by its class (Float64DType, ...).
    for name, obj in vars(np.dtypes).items():
        if name.endswith('DType') and isinstance(obj, type):
            allowed[('numpy.dtypes', name)] = obj
    return allowed


class RefusedGlobal(pickle.UnpicklingError):
    """A pickle names a global outside the allow-list."""


class _RestrictedUnpickler(pickle.Unpickler):

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
