# Copyright (c) robustdet contributors. All rights reserved.
"""What machine a figure was measured on, as the benchmarks and the
committed demo detector record it."""
import contextlib
import platform


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux), else what
    ``platform`` knows.

    Returns:
        str: E.g. ``'AMD EPYC 7571'``.
    """
    with contextlib.suppress(OSError):
        with open('/proc/cpuinfo', encoding='utf-8') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    return platform.processor() or platform.machine()
