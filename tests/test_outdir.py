"""The output swap, including the path for systems without renameat2 and recovery after a kill."""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import PY, tree
from mcpvend.codegen import outdir
from mcpvend.errors import MCPVendError


def test_swap_with_renameat2(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "old\n"})
    outdir.replace_tree(out, {outdir.STATE: "{}", "b/c.py": "new\n"})
    assert tree(out) == {outdir.STATE: b"{}", "b/c.py": b"new\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def _windows(*args: object, **kwargs: object) -> object:
    raise TypeError("argument of type 'NoneType' is not iterable")  # what CDLL(None) raises on Windows


def _no_libc(*args: object, **kwargs: object) -> object:
    raise OSError("cannot load the C library")


def _libc_without_renameat2(*args: object, **kwargs: object) -> object:
    return SimpleNamespace()  # macOS, older musl: the attribute lookup fails as for a missing symbol


def _kernel_without_renameat2(*args: object, **kwargs: object) -> object:
    def renameat2(*args: object) -> int:
        ctypes.set_errno(errno.ENOSYS)  # a kernel older than 3.15
        return -1

    return SimpleNamespace(renameat2=renameat2)


NO_RENAMEAT2 = [_windows, _no_libc, _libc_without_renameat2, _kernel_without_renameat2]


@pytest.mark.parametrize("cdll", NO_RENAMEAT2, ids=lambda f: f.__name__.strip("_"))
def test_swap_without_renameat2_uses_renames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cdll: Callable[..., object]
) -> None:
    out = tmp_path / "pkg"
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "old\n"})
    asked: list[object] = []
    monkeypatch.setattr(ctypes, "CDLL", lambda *args, **kwargs: asked.append(args) or cdll(*args, **kwargs))
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "new\n", "b/c.py": "c\n"})
    assert asked == [(None,)]  # the swap did look for renameat2, and went without it
    assert tree(out) == {outdir.STATE: b"{}", "a.py": b"new\n", "b/c.py": b"c\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_a_failed_second_rename_leaves_the_old_tree_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "pkg"
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "old\n"})
    monkeypatch.setattr(ctypes, "CDLL", _windows)
    rename, backup = os.rename, tmp_path / ".pkg.mcpvend-backup"

    def refuse_the_new_tree(src: Path, dst: Path) -> None:
        if Path(dst) == out and Path(src).name.startswith(".pkg.mcpvend-") and Path(src) != backup:
            raise OSError(errno.EACCES, "Permission denied")
        rename(src, dst)

    monkeypatch.setattr(os, "rename", refuse_the_new_tree)
    with pytest.raises(MCPVendError, match=r"cannot write .*pkg: Permission denied"):
        outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "new\n"})
    assert tree(out) == {outdir.STATE: b"{}", "a.py": b"old\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


# A child that swaps without renameat2 and is killed (SIGKILL: nothing runs after) between the two renames.
KILLED_BETWEEN_RENAMES = """
import ctypes, os, signal, sys
from pathlib import Path
from mcpvend.codegen import outdir

def windows(*args, **kwargs):
    raise TypeError("argument of type 'NoneType' is not iterable")

def rename_then_die(src, dst, rename=os.rename):
    rename(src, dst)
    if Path(dst).name.endswith(".mcpvend-backup"):
        os.kill(os.getpid(), signal.SIGKILL)

ctypes.CDLL, os.rename = windows, rename_then_die
outdir.replace_tree(Path(sys.argv[1]), {outdir.STATE: "{}", "a.py": "killed\\n"})
"""


def test_a_run_killed_between_the_two_renames_is_recovered(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "old\n"})
    child = subprocess.run([PY, "-c", KILLED_BETWEEN_RENAMES, str(out)], capture_output=True, text=True, timeout=60)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert not out.exists()  # killed with the old tree moved aside ...
    assert tree(tmp_path / ".pkg.mcpvend-backup") == {outdir.STATE: b"{}", "a.py": b"old\n"}  # ... whole
    outdir._clean_leftovers(tmp_path, "pkg")  # what the next run does first
    assert tree(out) == {outdir.STATE: b"{}", "a.py": b"old\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]  # the killed run's staging tree is gone too
    outdir.replace_tree(out, {outdir.STATE: "{}", "a.py": "new\n"})
    assert tree(out) == {outdir.STATE: b"{}", "a.py": b"new\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_a_foreign_directory_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mine.py").write_text("x")
    with pytest.raises(MCPVendError, match="holds files mcpvend did not generate"):
        outdir.replace_tree(tmp_path / "pkg", {"a.py": ""})
    assert tree(tmp_path / "pkg") == {"mine.py": b"x"}
