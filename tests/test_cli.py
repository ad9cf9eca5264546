"""The CLI contract other tools rely on: exit codes, messages, terminal versus log output."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from conftest import PY, demo, mcpvend, write_config
from mcpvend import __version__


def test_version() -> None:
    run = mcpvend("--version", cwd=Path.cwd())
    assert run.code == 0 and run.out.strip() == f"mcpvend, version {__version__}"


def test_no_config_is_a_usage_error(tmp_path: Path) -> None:
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 2
    assert run.err.startswith(f"error: no config found in {tmp_path}")


def test_unknown_server_is_a_usage_error_and_starts_nothing(tmp_path: Path) -> None:
    write_config(tmp_path, {"demo": demo()})
    run = mcpvend("lock", "demo", "nope", cwd=tmp_path)
    assert run.code == 2
    assert "error: " in run.err and "no server named 'nope' (configured: demo)" in run.err
    assert not (tmp_path / "lockfiles").exists()


def test_bad_config_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "mcpvend.toml").write_text('[servers.demo]\ncommand = "x"\ntimeout = "soon"\n')
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 2
    assert run.err.strip().count("\n") == 0
    assert "server 'demo': key 'timeout' must be a number" in run.err


def test_lockfiles_option_overrides_the_config(tmp_path: Path) -> None:
    write_config(tmp_path, {"demo": demo()})
    run = mcpvend("--lockfiles", "elsewhere", "lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert (tmp_path / "elsewhere" / "demo.lock.json").is_file() and not (tmp_path / "lockfiles").exists()


def test_plain_lines_when_not_a_terminal(tmp_path: Path) -> None:
    write_config(tmp_path, {"demo": demo()})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0
    assert run.err == "    locked  demo: 4 tools  lockfiles/demo.lock.json  (protocol 2026-07-28)\n"
    assert run.out == ""


def test_live_display_on_a_terminal(tmp_path: Path) -> None:
    write_config(tmp_path, {"demo": demo()})
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [PY, "-m", "mcpvend", "lock"], cwd=tmp_path, stdin=terminal, stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    assert proc.wait(timeout=60) == 0
    screen = b"".join(chunks).decode(errors="replace")
    assert "\x1b[" in screen  # drawn by the live display, not plain lines
    assert "locked  demo: 4 tools" in screen


def test_an_unwritable_lockfile_directory_is_an_error_naming_the_server(tmp_path: Path) -> None:
    write_config(tmp_path, {"demo": demo()})
    (tmp_path / "lockfiles").write_text("a file where the directory should be")
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 2
    assert "error: server 'demo': cannot write" in run.err and "lockfiles/demo.lock.json" in run.err
    assert (tmp_path / "lockfiles").read_text() == "a file where the directory should be"
