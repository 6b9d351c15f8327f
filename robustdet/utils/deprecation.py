# Copyright (c) robustdet contributors. All rights reserved.
"""Names that moved keep answering at their old module for one release."""
import warnings
from typing import Any, Callable, Dict, Tuple


def moved_names(module: str, moved: Dict[str, Tuple[str, Callable[[], Any]]]
                ) -> Callable[[str], Any]:
    """A module ``__getattr__`` for names that moved elsewhere.

    Args:
        module (str): The old module (``__name__``).
        moved (dict): ``{old name: (new dotted path, a function that
            returns the object)}``.

    Returns:
        Callable: Assign it to the module's ``__getattr__``. An old name
        warns (``DeprecationWarning`` naming the new path) and returns the
        object; any other name raises ``AttributeError``.
    """

    def __getattr__(name: str) -> Any:
        if name in moved:
            new, get = moved[name]
            warnings.warn(f'{module}.{name} is deprecated; use {new}',
                          DeprecationWarning, stacklevel=2)
            return get()
        raise AttributeError(f'module {module!r} has no attribute {name!r}')

    return __getattr__
