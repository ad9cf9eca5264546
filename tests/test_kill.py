"""SIGKILL `mcpvend lock` at random points: every lockfile is the old or the new one, never a part.

`mcpvend generate` has the same test in test_generate.py
(test_sigkill_mid_generate_leaves_the_old_or_the_new_output); both honour MCPVEND_KILLS
(default 3 here, for `make test`; `make long` sets 50).

What a killed lock may leave behind: `atomic.write_atomic` writes `.NAME.lock.json.XXXXXXXX.tmp`
(mkstemp, in the lockfiles directory) and renames it over `NAME.lock.json`; a kill between the two
leaves that temporary file. Nothing reads it (lockfiles are found by server name, never by
listing the directory), and the next successful lock of that server removes it.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import COLD_START, PY, corpus_servers, mcpvend, record_long_run, replay, write_config, write_tools
from mcpvend.lock import lockfile

KILLS = int(os.environ.get("MCPVEND_KILLS", "3"))


def synthetic(count: int) -> list[dict[str, Any]]:
    """`count` distinct tools with a few properties each: a big tool list to page through."""
    return [
        {
            "name": f"tool_{i:04d}",
            "description": f"Synthetic tool number {i}, which does thing {i} to the index.",
            "inputSchema": {
                "type": "object",
                "properties": {"q": {"type": "string", "description": f"query {i}"}, "n": {"type": "integer"}},
                "required": ["q"],
            },
            "annotations": {"readOnlyHint": i % 2 == 0},
        }
        for i in range(count)
    ]


def changed(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same server after an update: one description edited and one tool added."""
    first = {**tools[0], "description": f"{tools[0].get('description', '')} Now faster."}
    return [first, *tools[1:], {"name": "zz_added", "inputSchema": {"type": "object"}}]


def servers() -> dict[str, tuple[list[dict[str, Any]], int]]:
    """Server name → (tool list, page size; 0 = one page): big and small, paged and not."""
    corpus = corpus_servers()
    return {
        "big": (synthetic(600), 7),
        "wide": (synthetic(150), 0),
        "ppt": (corpus["ppt"], 2),
        "playwright": (corpus["playwright"], 5),
        "chart": (corpus["mcp-server-chart"], 0),
    }


def lockfile_bytes(directory: Path, names: list[str]) -> dict[str, bytes]:
    return {name: lockfile.path_for(directory, name).read_bytes() for name in names}


TEMP = re.compile(r"^\.(?P<server>.+)\.lock\.json\.[A-Za-z0-9_]+\.tmp$")


def temp_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if TEMP.match(p.name))


def test_sigkill_mid_lock_leaves_each_lockfile_old_or_new(tmp_path: Path) -> None:
    specs = servers()
    names = list(specs)
    tools_dir = tmp_path / "tools"
    tools_dir.mkdir()
    config = {
        name: replay(tools_dir / f"{name}.json", *(["--page-size", str(size)] if size else []))
        for name, (_, size) in specs.items()
    }
    write_config(tmp_path, config)
    lockfiles = tmp_path / "lockfiles"

    for name, (tools, _) in specs.items():
        write_tools(tools_dir / f"{name}.json", tools)
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    old = lockfile_bytes(lockfiles, names)

    for name, (tools, _) in specs.items():
        write_tools(tools_dir / f"{name}.json", changed(tools))
    durations = []
    for _ in range(2):  # the median of two (here: the mean), so one slow start does not skew the kill points
        start = time.monotonic()  # a child process, as the killed runs are: their start-up is in the window
        run = mcpvend("--lockfiles", str(tmp_path / "reference"), "lock", cwd=tmp_path, env=COLD_START, process=True)
        durations.append(time.monotonic() - start)
        assert run.code == 0, run.err
    duration = sum(durations) / len(durations)
    new = lockfile_bytes(tmp_path / "reference", names)
    assert all(old[n] != new[n] for n in names), "each server's old and new lockfiles must differ"
    assert len(lockfile.read(lockfile.path_for(lockfiles, "big")).tools) == 600  # 86 pages were all read

    rng = random.Random(2024)
    landed: Counter[str] = Counter()  # per kill: all old, all new, or some of each
    per_server: Counter[str] = Counter()
    leftovers = 0
    for _ in range(KILLS):
        proc = subprocess.Popen(  # cold: what it leaves is read as soon as it is dead
            [PY, "-m", "mcpvend", "lock"],
            cwd=tmp_path,
            env={**os.environ, **COLD_START},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0, duration))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = lockfile_bytes(lockfiles, names)
        for name in names:
            assert now[name] in (old[name], new[name]), f"a killed lock left a partial {name}.lock.json"
        states = {"new" if now[n] == new[n] else "old" for n in names}
        landed["mixed" if len(states) == 2 else states.pop()] += 1
        per_server.update(f"{n}:{'new' if now[n] == new[n] else 'old'}" for n in names)
        for path in temp_files(lockfiles):  # killed between the temporary file's creation and the rename
            match = TEMP.match(path.name)
            assert match is not None and match["server"] in names, path.name
            leftovers += 1
            path.unlink()  # counted once; the worst-point tests below check what such a file does
        for name in names:  # the next kill starts from the old lockfiles again
            lockfile.path_for(lockfiles, name).write_bytes(old[name])
        assert sorted(p.name for p in lockfiles.iterdir()) == sorted(f"{n}.lock.json" for n in names)

    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert lockfile_bytes(lockfiles, names) == new
    assert sorted(p.name for p in lockfiles.iterdir()) == sorted(f"{n}.lock.json" for n in names)
    figures = (
        f"{KILLS} SIGKILLs of `mcpvend lock` (5 servers, uninterrupted run {duration:.2f} s): {dict(landed)};"
        f" per server: {dict(sorted(per_server.items()))}; partial lockfiles 0; temporary files left: {leftovers}"
    )
    print(f"\n{figures}")
    record_long_run("kill-lock", figures)


# --- a kill at the worst point: after the temporary file is written, before the rename -------

KILL_BEFORE_RENAME = textwrap.dedent(
    """
    import os, signal, sys
    real_replace = os.replace

    def replace(src, dst, *args, **kwargs):
        if str(src).endswith(".tmp"):
            os.kill(os.getpid(), signal.SIGKILL)  # the temporary file is complete and fsynced
        return real_replace(src, dst, *args, **kwargs)

    os.replace = replace
    sys.argv[0] = "mcpvend"
    from mcpvend.cli import main
    main()
    """
)


def kill_before_rename(tmp_path: Path, good_tools: Path) -> tuple[Path, bytes, list[Path]]:
    """Lock once; change the server; run a lock that SIGKILLs itself just before renaming its
    temporary file into place. Returns the lockfile, its bytes before, and the files left."""
    write_config(tmp_path, {"x": replay(good_tools)})
    assert mcpvend("lock", cwd=tmp_path).code == 0
    path = lockfile.path_for(tmp_path / "lockfiles", "x")
    before = path.read_bytes()
    write_tools(good_tools, changed(lockfile.read(path).tools))
    proc = subprocess.run([PY, "-c", KILL_BEFORE_RENAME, "lock"], cwd=tmp_path, capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    return path, before, temp_files(path.parent)


def test_a_kill_just_before_the_rename_keeps_the_old_lockfile_and_later_runs_ignore_the_temp(
    tmp_path: Path, good_tools: Path
) -> None:
    path, before, left = kill_before_rename(tmp_path, good_tools)
    assert path.read_bytes() == before
    assert len(left) == 1 and left[0].name.startswith(".x.lock.json.")
    temp_text = left[0].read_text(encoding="utf-8")
    assert lockfile.parse(left[0], temp_text).tools != lockfile.read(path).tools  # the complete new content
    assert mcpvend("lock", "--check", cwd=tmp_path).code == 1  # drift against the old lockfile, temp unread
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert path.read_text(encoding="utf-8") == temp_text  # the new lockfile, written afresh
    assert mcpvend("lock", "--check", cwd=tmp_path).code == 0
    assert mcpvend("generate", cwd=tmp_path).code == 0
    assert not [p for p in (tmp_path / "generated").rglob("*") if ".tmp" in p.name]


@pytest.mark.parametrize("server_reverted", [False, True], ids=["lockfile-rewritten", "lockfile-unchanged"])
def test_the_next_successful_lock_removes_a_killed_runs_temp_file(
    tmp_path: Path, good_tools: Path, server_reverted: bool
) -> None:
    path, before, left = kill_before_rename(tmp_path, good_tools)
    assert left, "the kill left no temporary file: nothing to clean"
    assert mcpvend("lock", "--check", cwd=tmp_path).code == 1
    assert temp_files(path.parent) == left  # --check writes and removes nothing
    if server_reverted:  # the next lock finds nothing to write, and still cleans up
        write_tools(good_tools, lockfile.read(path).tools)
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert ("unchanged  x" in run.err) == server_reverted, run.err
    assert (path.read_bytes() == before) == server_reverted
    assert temp_files(path.parent) == [], f"left behind: {[p.name for p in temp_files(path.parent)]}"
