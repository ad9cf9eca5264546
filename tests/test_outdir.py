"""The output swap, including the path for systems without renameat2 and recovery after a kill."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from conftest import tree
from mcpvend.codegen import outdir
from mcpvend.errors import MCPVendError


def test_swap_with_renameat2(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "old\n"})
    outdir.replace_tree(out, {outdir.STATE: "{}", "b/c.py": "new\n"})
    assert tree(out) == {outdir.STATE: b"{}", "b/c.py": b"new\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_swap_without_renameat2_uses_renames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class NoRenameat2:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoRenameat2)
    out = tmp_path / "pkg"
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "old\n"})
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "new\n"})
    assert tree(out) == {outdir.STATE: b"{}", "a.py": b"new\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_a_run_killed_between_the_two_renames_is_recovered(tmp_path: Path) -> None:
    backup = tmp_path / ".pkg.mcpvend-backup"
    backup.mkdir()
    (backup / outdir.STATE).write_text("{}")
    (backup / "a.py").write_text("old\n")
    staging = tmp_path / ".pkg.mcpvend-abc123"
    staging.mkdir()
    outdir._clean_leftovers(tmp_path, "pkg")
    assert tree(tmp_path / "pkg") == {outdir.STATE: b"{}", "a.py": b"old\n"}  # the old tree is back
    assert not staging.exists() and not backup.exists()
    outdir.replace_tree(tmp_path / "pkg", {outdir.STATE: "{}", "a.py": "new\n"})
    assert tree(tmp_path / "pkg") == {outdir.STATE: b"{}", "a.py": b"new\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_a_foreign_directory_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mine.py").write_text("x")
    with pytest.raises(MCPVendError, match="holds files mcpvend did not generate"):
        outdir.replace_tree(tmp_path / "pkg", {"a.py": ""})
    assert tree(tmp_path / "pkg") == {"mine.py": b"x"}
