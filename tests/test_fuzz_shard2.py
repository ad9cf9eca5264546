"""The second half of tests/test_fuzz.py's examples, in a file of its own so that pytest-xdist
(`--dist loadfile`) runs it beside the first half instead of after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_fuzz import ImportProbe, run_shard, workspace

__all__ = ["workspace"]  # the fixture, imported so that this module can use it


@pytest.mark.timeout(0)
def test_fuzzed_tool_lists_second_shard(workspace: tuple[Path, ImportProbe]) -> None:
    run_shard(2, *workspace)
