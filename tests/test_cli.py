"""The CLI contract other tools rely on: exit codes, messages, terminal versus log output."""

from __future__ import annotations

import os
import pty
import re
import subprocess
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from conftest import PY, demo, mcpvend, replay, write_config
from mcpvend import __version__
from mcpvend.cli import main


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


# --- global options on either side of the command, and the help ----------------------------------

PIPELINE = ["init", "login", "logout", "auth", "lock", "generate", "diff", "lint", "show", "serve"]


def test_global_options_work_after_the_command(tmp_path: Path) -> None:
    """As ruff and uv take them: the config of another directory, lockfiles and output elsewhere."""
    (tmp_path / "sub").mkdir()
    write_config(tmp_path / "sub", {"demo": demo()})
    where = ("--config", "sub/mcpvend.toml", "--lockfiles", "locks")
    locked = mcpvend("lock", *where, cwd=tmp_path)
    assert locked.code == 0, locked.err
    assert (tmp_path / "locks" / "demo.lock.json").is_file() and not (tmp_path / "sub" / "lockfiles").exists()
    generated = mcpvend("generate", *where, "--output", "pkg", cwd=tmp_path)
    assert generated.code == 0, generated.err
    assert (tmp_path / "pkg" / "demo" / "tools.py").is_file() and not (tmp_path / "sub" / "generated").exists()

    after = mcpvend("generate", "--check", *where, "--output", "pkg", cwd=tmp_path)
    before = mcpvend(*where, "--output", "pkg", "generate", "--check", cwd=tmp_path)
    split = mcpvend("--config", "sub/mcpvend.toml", "generate", "--lockfiles", "locks", "--output", "pkg", cwd=tmp_path)
    assert after.code == before.code == split.code == 0, after.err
    assert after.err == before.err == split.err == "up to date: pkg (1 server, 4 tools)\n"

    live = mcpvend("diff", "--live", "demo", *where, cwd=tmp_path)
    assert live.code == 0 and "no findings" in live.out, live.err
    files = mcpvend("diff", "locks/demo.lock.json", "locks/demo.lock.json", *where, cwd=tmp_path)
    assert files.code == 0 and "no findings" in files.out, files.err  # the config, for its servers' tools
    missing = mcpvend("diff", "locks/demo.lock.json", "locks/demo.lock.json", "--config", "nowhere.toml", cwd=tmp_path)
    assert missing.code == 2 and missing.err == "error: nowhere.toml: config file not found\n"


def test_the_same_global_option_before_and_after_must_agree(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write_config(tmp_path / "sub", {"demo": demo()})
    same = mcpvend("--config", "sub/mcpvend.toml", "lock", "--config", "sub/./mcpvend.toml", cwd=tmp_path)
    assert same.code == 0, same.err
    for option in ("--config", "--lockfiles", "--output"):
        run = mcpvend(option, "a", "generate", "--check", option, "b", cwd=tmp_path)
        assert run.code == 2 and run.out == ""
        assert f"Error: {option} given before and after 'generate' with different values: a and b\n" in run.err


def test_verbose_after_the_command_shows_the_sdks_log(tmp_path: Path, good_tools: Path) -> None:
    write_config(tmp_path, {"noisy": replay(good_tools, "--fault", "garbage")})
    logged = "mcp.client.stdio: Failed to parse JSONRPC message from server"
    runs = {args: mcpvend(*args, cwd=tmp_path) for args in (("lock",), ("-v", "lock"), ("lock", "-v"))}
    assert [run.code for run in runs.values()] == [2, 2, 2]  # the server fails either way ...
    assert [logged in run.err for run in runs.values()] == [False, True, True]  # ... and -v shows the SDK's log


@pytest.mark.parametrize("command", PIPELINE)
def test_each_commands_help_shows_the_global_options(command: str) -> None:
    words = [command, "status"] if command == "auth" else [command]  # a group: its command takes them
    shown = CliRunner().invoke(main, [*words, "--help"], terminal_width=120)
    assert shown.exit_code == 0, shown.output
    options = re.findall(r"^  (-v, --verbose|--config|--lockfiles|--output)\b", shown.output, flags=re.MULTILINE)
    # init writes the config rather than reading one: --config, --lockfiles and --output mean nothing to it.
    expected = ["-v, --verbose"] if command == "init" else ["--config", "--lockfiles", "--output", "-v, --verbose"]
    assert options == expected


def summary(command: click.Command) -> str:
    """A command's first sentence, in full: what `mcpvend --help` must show."""
    assert command.help is not None
    return " ".join(command.help.partition("\n\n")[0].split())


def test_help_lists_commands_in_pipeline_order_with_whole_summaries() -> None:
    run = mcpvend("--help", cwd=Path.cwd(), env={"COLUMNS": "80"})
    assert run.code == 0
    rows = run.out.partition("\nCommands:\n")[2].splitlines()
    assert [row.split()[0] for row in rows] == PIPELINE  # one line each
    for row, name in zip(rows, PIPELINE, strict=True):
        assert row == f"  {name:<8}  {summary(main.commands[name])}"


def test_summaries_wrap_rather_than_truncate_on_a_narrow_terminal() -> None:
    shown = CliRunner().invoke(main, ["--help"], terminal_width=50)
    commands = shown.output.partition("\nCommands:\n")[2]
    assert "..." not in commands
    letters = "".join(commands.split())  # wrapped lines (also at a hyphen) joined again
    for name in PIPELINE:
        assert name + "".join(summary(main.commands[name]).split()) in letters


def test_jobs_must_be_a_positive_number() -> None:
    refused = CliRunner().invoke(main, ["lock", "--jobs", "0"])
    assert refused.exit_code == 2 and "Invalid value for '--jobs': 0 is not in the range x>=1" in refused.output
