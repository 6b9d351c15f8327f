# Copyright (c) robustdet contributors. All rights reserved.
"""User errors: what a command-line tool prints as one line."""


class RobustDetError(ValueError):
    """An error caused by user input (a path, a value, a file).

    A ``ValueError``, so library callers can catch it as one.

    The tools print its message as a single ``error: ...`` line and exit
    with status 2, without a traceback. Programming errors use ordinary
    exceptions and keep their tracebacks.
    """
