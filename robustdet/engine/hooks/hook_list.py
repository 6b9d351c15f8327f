# Copyright (c) robustdet contributors. All rights reserved.
"""Adding a hook the tools need to a config's ``custom_hooks`` once."""
from typing import Any, List, Optional, Sequence


def with_hook(hooks: Optional[Sequence[Any]], hook_cls: type) -> List[Any]:
    """``custom_hooks`` with one ``hook_cls``: added as
    ``dict(type=<its name>)`` unless the list holds an instance or a
    config of it already.

    Args:
        hooks (Sequence, optional): A config's ``custom_hooks``.
        hook_cls (type): The registered hook class.

    Returns:
        list: The hooks (a new list).
    """
    hooks = list(hooks or [])
    name = hook_cls.__name__
    if not any(isinstance(h, hook_cls) or (
            isinstance(h, dict) and h.get('type') in (name, hook_cls))
               for h in hooks):
        hooks.append(dict(type=name))
    return hooks
