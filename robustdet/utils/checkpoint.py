# Copyright (c) robustdet contributors. All rights reserved.
"""Safe checkpoint loading on torch >= 2.6.

torch >= 2.6 loads with ``weights_only=True`` by default and mmengine
0.10.7 calls ``torch.load`` without an allow-list, so every mmdet model-zoo
checkpoint fails with "Unsupported global" (numpy scalars in ``meta``,
mmengine ``HistoryBuffer`` objects in ``message_hub``). robustdet loads
with ``weights_only=True`` plus an allow-list of exactly those harmless
globals; anything else is refused with one line that names the global and
the explicit opt-in ``--unsafe-load`` (full unpickling, which can run
arbitrary code). ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` is never set.

Every robustdet tool loads checkpoints through :func:`load_checkpoint_file`
(and :func:`load_checkpoint_to_runner` for an mmengine ``Runner``).
"""
import os
import pickle
import re
import warnings
import zipfile
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import torch

from .errors import RobustDetError

UNSAFE_FLAG = '--unsafe-load'

# Classes whose public attributes a checkpoint may look up with getattr.
# mmengine's HistoryBuffer pickles its ``statistics_methods`` as
# ``getattr(HistoryBuffer, 'mean')`` etc.
_GETATTR_ALLOWED_OWNERS: Tuple[type, ...] = ()


def _restricted_getattr(obj: Any, name: str) -> Any:
    """``getattr`` for the unpickler: public attributes of allow-listed
    classes only.

    A plain ``builtins.getattr`` would let a crafted pickle walk from any
    allowed object to ``__globals__`` and ``eval``.
    """
    if (isinstance(obj, type) and obj in _GETATTR_ALLOWED_OWNERS
            and isinstance(name, str) and not name.startswith('_')):
        return getattr(obj, name)
    raise pickle.UnpicklingError(
        f'Unsupported global: GLOBAL builtins.getattr on '
        f'{getattr(obj, "__qualname__", type(obj).__name__)}.{name}')


def checkpoint_safe_globals() -> List[Any]:
    """The allow-list of :func:`load_checkpoint_file`, for
    ``torch.serialization.safe_globals`` around mmengine's own loading
    (``tools/train.py --resume``: torch >= 2.6 loads with
    ``weights_only=True``, which refuses the message hub's
    ``HistoryBuffer`` of mmengine's checkpoints)."""
    return _allowed_globals()


def _allowed_globals() -> List[Any]:
    """The harmless globals of mmdet / mmengine checkpoints.

    Returns:
        list: Entries for ``torch.serialization.safe_globals``: objects, or
        ``(object, 'module.name')`` where the pickled name differs (numpy
        1.x's ``numpy.core`` names, and the restricted ``getattr``).
    """
    global _GETATTR_ALLOWED_OWNERS
    from mmengine.logging.history_buffer import HistoryBuffer
    _GETATTR_ALLOWED_OWNERS = (HistoryBuffer, )
    multiarray = np._core.multiarray
    allowed: List[Any] = [
        np.dtype,
        np.ndarray,
        (multiarray.scalar, 'numpy._core.multiarray.scalar'),
        (multiarray.scalar, 'numpy.core.multiarray.scalar'),
        (multiarray._reconstruct, 'numpy._core.multiarray._reconstruct'),
        (multiarray._reconstruct, 'numpy.core.multiarray._reconstruct'),
        (bytes, 'builtins.bytes'),
        HistoryBuffer,
        (_restricted_getattr, 'builtins.getattr'),
    ]
    # numpy >= 1.25 may pickle dtypes by their class (Float64DType, ...).
    allowed += [
        obj for name, obj in vars(np.dtypes).items()
        if name.endswith('DType') and isinstance(obj, type)
    ]
    return allowed


_GLOBAL_RE = re.compile(r'GLOBAL ([\w.]+)')


def _check_torch_file(path: str) -> None:
    with open(path, 'rb') as f:
        head = f.read(4)
    # zip-format torch files start with a zip header; legacy ones with a
    # pickle protocol opcode.
    if not (head.startswith(b'PK\x03\x04') or head[:1] == b'\x80'):
        raise RobustDetError(
            f'{path} is not a torch checkpoint (not a zip-format or legacy '
            'torch file)')


def load_checkpoint_file(path: str,
                         map_location: Any = 'cpu',
                         unsafe: bool = False) -> Dict[str, Any]:
    """Load a checkpoint with ``weights_only=True`` and robustdet's
    allow-list.

    Args:
        path (str): Local path of the checkpoint file.
        map_location: Passed to ``torch.load``. Defaults to ``'cpu'``.
        unsafe (bool): Unpickle everything (``weights_only=False``). Only
            for files from a trusted source: a pickle can run any code.

    Returns:
        dict: The loaded checkpoint. A bare state dict is wrapped as
        ``{'state_dict': ...}``.

    Raises:
        RobustDetError: The file is missing, is not a torch checkpoint, or
            holds a global outside the allow-list (the message names it and
            the ``--unsafe-load`` flag).
    """
    if not os.path.isfile(path):
        raise RobustDetError(f'checkpoint file not found: {path}')
    _check_torch_file(path)
    if unsafe:
        warnings.warn(
            f'{UNSAFE_FLAG}: fully unpickling {path}; this runs any code '
            'the file contains, use it only for trusted files')
        try:
            ckpt = torch.load(
                path, map_location=map_location, weights_only=False)
        except (pickle.UnpicklingError, RuntimeError, EOFError,
                zipfile.BadZipFile) as e:
            raise RobustDetError(
                f'cannot read checkpoint {path}: {_first_line(e)}') from e
    else:
        try:
            with torch.serialization.safe_globals(_allowed_globals()):
                ckpt = torch.load(
                    path, map_location=map_location, weights_only=True)
        except pickle.UnpicklingError as e:
            match = _GLOBAL_RE.search(str(e))
            if match is None:
                raise RobustDetError(
                    f'cannot read checkpoint {path}: {_first_line(e)}'
                ) from e
            raise RobustDetError(
                f'refusing to load {path}: it contains the global '
                f"{match.group(1)}, which is not on robustdet's allow-list "
                f'of harmless checkpoint contents; if you trust the file, '
                f'pass {UNSAFE_FLAG} (full unpickling can run arbitrary '
                'code)') from None
        except (RuntimeError, EOFError, zipfile.BadZipFile) as e:
            raise RobustDetError(
                f'cannot read checkpoint {path}: {_first_line(e)}') from e
    if not isinstance(ckpt, dict):
        raise RobustDetError(
            f'{path} holds a {type(ckpt).__name__}, not a checkpoint dict')
    if 'state_dict' not in ckpt:
        ckpt = dict(state_dict=ckpt)
    return ckpt


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return f'{type(e).__name__}: {text.splitlines()[0] if text else ""}'


def _load_state(model: torch.nn.Module, ckpt: Dict[str, Any],
                strict: bool = False) -> None:
    """Load a checkpoint's weights as mmengine's ``load_checkpoint`` does
    after reading the file: its ``state_dict`` (or the dict itself), a
    ``module.`` prefix stripped, the state dict's metadata kept, then
    mmengine's public ``load_state_dict`` (which reports missing and
    unexpected keys)."""
    from mmengine.model import is_model_wrapper
    from mmengine.runner import load_state_dict
    if is_model_wrapper(model):
        model = model.module
    state = ckpt.get('state_dict', ckpt)
    metadata = getattr(state, '_metadata', OrderedDict())
    state = OrderedDict(
        (re.sub(r'^module\.', '', k), v) for k, v in state.items())
    state._metadata = metadata
    load_state_dict(model, state, strict)


def load_checkpoint_to_model(model: torch.nn.Module,
                             path: str,
                             unsafe: bool = False,
                             strict: bool = False) -> Dict[str, Any]:
    """Load a checkpoint file into a model through the safe loader.

    Args:
        model (nn.Module): The model (a model wrapper is unwrapped).
        path (str): Checkpoint path.
        unsafe (bool): See :func:`load_checkpoint_file`.
        strict (bool): Whether keys must match exactly.

    Returns:
        dict: The loaded checkpoint.
    """
    ckpt = load_checkpoint_file(path, unsafe=unsafe)
    _load_state(model, ckpt, strict=strict)
    return ckpt


def load_checkpoint_to_runner(runner: Any,
                              path: str,
                              unsafe: bool = False,
                              checkpoint: Optional[Dict[str, Any]] = None
                              ) -> Dict[str, Any]:
    """Do what ``Runner.load_checkpoint`` does, through the safe loader.

    The runner's own ``load_from`` must be None so that ``runner.test()``
    does not load again through mmengine's plain ``torch.load``; this marks
    the runner as loaded.

    Args:
        runner (mmengine.runner.Runner): A built runner.
        path (str): Checkpoint path.
        unsafe (bool): See :func:`load_checkpoint_file`.
        checkpoint (dict, optional): The checkpoint if it was already
            loaded from ``path`` with :func:`load_checkpoint_file` (tools
            load it before building the runner, to fail fast).

    Returns:
        dict: The loaded checkpoint.
    """
    ckpt = checkpoint if checkpoint is not None else load_checkpoint_file(
        path, unsafe=unsafe)
    runner.call_hook('after_load_checkpoint', checkpoint=ckpt)
    _load_state(runner.model, ckpt)
    runner._has_loaded = True
    runner.logger.info(f'Loaded checkpoint from {path}')
    return ckpt
