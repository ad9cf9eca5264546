"""`diff OLD NEW` reads `REV:path` with git: what a user (or a script fed a branch name) gives is never an option.

`git show --output=FILE:x` writes FILE: `mcpvend diff -- --output=FILE:x NEW` must not, in a real repository.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, mcpvend, tree
from mcpvend.drift.sources import _git_show
from mcpvend.errors import LockfileError

LOCKFILE = "lockfiles/demo.lock.json"


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository with one lockfile committed."""
    shutil.copytree(REPO / "lockfiles", tmp_path / "lockfiles")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", LOCKFILE], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "lock"], cwd=tmp_path, check=True)
    return tmp_path


@pytest.mark.parametrize("side", ["old", "new"])
def test_a_revision_that_reads_as_an_option_is_refused(repository: Path, side: str) -> None:
    before = tree(repository)
    spec = "--output=FILE:x"
    run = mcpvend("diff", "--", *((spec, LOCKFILE) if side == "old" else (LOCKFILE, spec)), cwd=repository)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"error: {spec}: cannot read from git: a revision may not start with '-'\n"
    assert tree(repository) == before  # neither FILE nor `FILE:x`


def test_git_is_told_where_its_options_end(repository: Path) -> None:
    """The second guard: whatever reaches `git show` is an object name, not an option."""
    before = tree(repository)
    with pytest.raises(LockfileError) as raised:
        _git_show("x", repository, "--output=FILE:x")
    assert str(raised.value).startswith("x: cannot read from git: ") and "\n" not in str(raised.value)
    assert tree(repository) == before


def test_a_revision_still_reads(repository: Path) -> None:
    run = mcpvend("diff", f"HEAD:{LOCKFILE}", LOCKFILE, cwd=repository)
    assert (run.code, run.err) == (0, ""), run.err
