# Copyright (c) robustdet contributors. All rights reserved.
"""robustdet.utils.cli.cli_entry: what every tool's ``main`` runs in."""
from tests.tool_process import run_tool

# A tool whose main reports the collector's view when it starts.
TOOL = """
import gc
gc.unfreeze()  # as a fresh interpreter (tests/forkserver_ready.py froze)
from robustdet.utils.cli import cli_entry
made_by_imports = len(gc.get_objects())


def main():
    print(made_by_imports, gc.get_freeze_count(), len(gc.get_objects()))


if __name__ == '__main__':
    cli_entry(main)()
"""


def test_main_starts_with_the_imports_frozen(tmp_path):
    """The objects the imports made (torch, mmdet, robustdet) are out of
    the collector's scans when ``main`` starts (``gc.freeze``), so that
    a full collection (mmengine runs one per dataset it builds) does not
    walk them; what ``main`` makes is collected as usual."""
    tool = tmp_path / 'tool.py'
    tool.write_text(TOOL)
    proc = run_tool(str(tool), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported, frozen, tracked = map(int, proc.stdout.split())
    assert imported > 100_000  # the forked process has torch and mmdet
    # (the young generations are collected first: a little garbage goes)
    assert frozen > 0.9 * imported
    assert tracked < imported // 100
