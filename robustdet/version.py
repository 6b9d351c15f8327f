# Copyright (c) robustdet contributors. All rights reserved.
__version__ = '0.1.0'


def parse_version_info(version_str: str) -> tuple:
    """Parse a version string like ``'0.1.0'`` or ``'0.1.0rc1'``.

    Args:
        version_str (str): The version string.

    Returns:
        tuple: Integers for the numeric parts, then the pre-release tag
        (``'rc1'``) if there is one.
    """
    parts = []
    for x in version_str.split('.'):
        if x.isdigit():
            parts.append(int(x))
        elif 'rc' in x:
            num, rc = x.split('rc')
            parts.append(int(num))
            parts.append(f'rc{rc}')
    return tuple(parts)


version_info = parse_version_info(__version__)
