# Copyright (c) robustdet contributors. All rights reserved.
"""Registration of robustdet's modules into mmdet's registries."""


def register_all_modules(init_default_scope: bool = True) -> None:
    """Register mmdet's and robustdet's modules into mmdet's registries.

    robustdet has no registry scope of its own: its transforms, datasets,
    hooks, metrics and data preprocessor live in ``mmdet.registry``, so configs
    refer to them by plain ``type=`` names. In a config,
    ``custom_imports = dict(imports=['robustdet'])`` does the same.

    Args:
        init_default_scope (bool): Whether to set the default scope to
            ``'mmdet'`` (see :func:`mmdet.utils.register_all_modules`).
    """
    from mmdet.utils import register_all_modules as mmdet_register

    import robustdet.datasets  # noqa: F401
    import robustdet.evaluation  # noqa: F401
    import robustdet.models  # noqa: F401
    mmdet_register(init_default_scope=init_default_scope)
