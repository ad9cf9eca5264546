"""Shared helpers: real servers, a real CLI in a subprocess, and configs written per test."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

# The SDK's `stdio_client` takes the `sys.stderr` of the moment it is imported as its default for servers'
# stderr: imported first inside an in-process CLI run (whose stderr is click's buffer, with no file
# descriptor), every later server start in that worker would fail with "fileno". Imported here, it is the real one.
import mcp.client.stdio
import pytest

REPO = Path(__file__).resolve().parent.parent
SERVERS = REPO / "tests" / "servers"
NODE_MODULES = REPO / "tests" / "node" / "node_modules"
LOOPBACK = REPO / "tests" / "node" / "force-loopback.cjs"  # copied from shared/tools
PY = sys.executable

# Configs say `python`: like `make`, put this interpreter's directory first on PATH.
os.environ["PATH"] = f"{Path(PY).parent}{os.pathsep}{os.environ.get('PATH', '')}"

# The files that take longest, started first: pytest-xdist hands whole files to its workers in collection
# order, and a long file handed out last keeps one worker busy after the other is done (in the order of their
# JUnit times in a `make test` run).
LONG_FILES = (
    "test_generate.py",
    "test_user_env.py",
    "test_serve.py",
    "test_tasks.py",
    "test_remote_servers.py",
    "test_readme.py",
    "test_packaging.py",
    "test_toolset.py",
    "test_secrets.py",
    "test_precommit.py",
    "test_oauth_hardening.py",
    "test_kill.py",
    "test_conformance.py",
    "test_strict_roundtrip.py",
    "test_input_required.py",
    "test_semantic.py",
    "test_search_vectors.py",
    "test_bad_input.py",
    "test_faults.py",
    "test_minilm.py",
)


def _warm_start() -> ModuleType:
    spec = importlib.util.spec_from_file_location("warm_start", SERVERS / "warm_start.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


warm_start = _warm_start()
# For a child process that a test SIGKILLs and then reads what it left: it starts cold (see warm_start.py).
COLD_START = {warm_start.COLD_START: "1"}


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """One worker more than cores (`-n auto`): a worker waiting on a server process or a timeout leaves its core
    idle, and a third keeps two busy (measured: 375 s against 401-430 s on 2 cores)."""
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: index for index, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)))  # stable: a file's tests keep their order


@pytest.fixture(scope="session", autouse=True)
def warm_starts() -> Iterator[None]:
    """This worker's warm starters (tests/servers/warm_start.py): the SDK servers and the CLI processes that
    any process of this worker starts (those of tests/servers, mcp-server-time, `python -m mcpvend`) skip the
    second of CPU their imports cost, where `make` installed the starter's .pth file in the venv (elsewhere
    they start as usual). One in the environment the SDK gives a server, one in this worker's: a copy's
    interpreter is the started process's, and the two differ in their UTF-8 mode."""
    warm_start.DIRECTORY.mkdir(mode=0o700, exist_ok=True)
    for stale in warm_start.DIRECTORY.glob(f"{os.getpid()}-*.sock"):  # an earlier process's of this PID
        stale.unlink(missing_ok=True)
    starters = []
    for environ in (mcp.client.stdio.get_default_environment(), dict(os.environ)):
        starter = subprocess.Popen(
            [PY, str(SERVERS / "warm_start.py"), "--serve", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=environ,
        )
        assert starter.stdin is not None and starter.stdout is not None
        said = starter.stdout.readline()
        assert said in (b"ready\n", b"served\n"), "a warm starter did not start"
        starters.append(starter)
    yield
    for starter in starters:
        assert starter.stdin is not None
        starter.stdin.close()  # it kills what copies still run, removes its socket and exits
    for starter in starters:
        starter.wait(timeout=60)


def node_server(package: str) -> Path:
    """The entry point of a pinned npm server; in CI its absence fails, elsewhere it skips."""
    entry = NODE_MODULES / "@modelcontextprotocol" / package / "dist" / "index.js"
    if not entry.is_file():
        message = f"{entry} is missing: run `make test` (npm ci in tests/node)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return entry


def toml_value(value: Any) -> str:
    return json.dumps(value)  # JSON strings, lists and numbers are valid TOML values


def write_config(directory: Path, servers: dict[str, dict[str, Any]], name: str = "mcpvend.toml") -> Path:
    """An mcpvend.toml with one [servers.NAME] table per entry (values as JSON, valid TOML)."""
    lines: list[str] = []
    for server, settings in servers.items():
        lines.append(f"[servers.{toml_value(server)}]")
        for key, value in settings.items():
            if isinstance(value, dict):
                inner = ", ".join(f"{toml_value(k)} = {toml_value(v)}" for k, v in value.items())
                lines.append(f"{key} = {{ {inner} }}")
            else:
                lines.append(f"{key} = {toml_value(value)}")
        lines.append("")
    path = directory / name
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def replay(tools: Path, *extra: str, **settings: Any) -> dict[str, Any]:
    """Settings for a replay server serving `tools` verbatim (see tests/servers/replay.py)."""
    return {"command": PY, "args": [str(SERVERS / "replay.py"), str(tools), *extra], **settings}


def demo(**settings: Any) -> dict[str, Any]:
    return {"command": PY, "args": [str(SERVERS / "demo.py")], **settings}


@dataclass
class Run:
    code: int
    out: str
    err: str


def mcpvend(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float | None = None, process: bool = False
) -> Run:
    """Run the real CLI as a user or CI script would: its commands, exit codes, stdout and stderr.

    In this process by default (click's test runner, the working directory and environment set for the
    call): the suite runs the CLI over a thousand times, and a child process each time pays Python's and
    the SDK's imports again. `process=True` runs a child, for what only a process shows (signals,
    `sys.stdin`, imports, a hang bounded by a `timeout` given); so do `serve` (it imports the generated package),
    `-v` (the SDK's log is the process's), a call from another thread (the working directory and stdio are
    the process's) and a call made while an event loop runs, since the commands start their own.
    """
    own = threading.current_thread() is threading.main_thread() and not _loop_running()
    if process or timeout is not None or not own or {"serve", "-v", "--verbose"} & set(args):
        return mcpvend_process(*args, cwd=cwd, env=env, timeout=timeout or 120)
    from click.testing import CliRunner

    from mcpvend.cli import main

    before = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, list(args), env=env, prog_name="python -m mcpvend")
    finally:
        os.chdir(before)
    err = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # What a child process would print for an exception nothing caught (and exit 1 with it).
        assert result.exc_info is not None
        err += "".join(traceback.format_exception(*result.exc_info))
    return Run(result.exit_code, result.stdout, err)


def mcpvend_process(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> Run:
    """Run the real CLI in a child process (`python -m mcpvend`)."""
    proc = subprocess.run(
        [PY, "-m", "mcpvend", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def write_tools(path: Path, tools: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(tools), encoding="utf-8")
    return path


GOOD_TOOLS: list[dict[str, Any]] = [
    {
        "name": "search",
        "title": "Search",
        "description": "Search the index.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "delete",
        "description": "Delete a document.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}},
        "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    },
]


@pytest.fixture
def good_tools(tmp_path: Path) -> Path:
    return write_tools(tmp_path / "tools.json", GOOD_TOOLS)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(proc: subprocess.Popen[Any], port: int, what: str) -> None:
    """Return once `proc` accepts connections on 127.0.0.1:port; fail the test if it exits or takes 30 s."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    proc.kill()
    pytest.fail(f"{what} did not listen on port {port} within 30 s")


@pytest.fixture(scope="session")
def everything_http() -> Iterator[str]:
    """server-everything in streamable-HTTP mode on a free loopback port; stopped by PID."""
    entry = node_server("server-everything")
    argv = ["node", "--require", str(LOOPBACK), str(entry), "streamableHttp"]
    with listening(argv, "server-everything (HTTP)", port_env="PORT") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@contextmanager
def listening(argv: list[str], what: str, *, port_env: str | None = None) -> Iterator[int]:
    """A server on a free loopback port (`{port}` in `argv`, or the `port_env` variable), stopped when done."""
    port = free_port()
    env = {**os.environ, port_env: str(port)} if port_env else None
    proc = subprocess.Popen(
        [a.replace("{port}", str(port)) for a in argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(proc, port, what)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


CORPUS = REPO / "tests" / "data" / "livemcpbench" / "tools.json"


def outputs_by_hash_seed(script: str, *args: str, seeds: tuple[str, ...] = ("0", "1", "12345")) -> list[bytes]:
    """What `script` prints in a fresh interpreter under each PYTHONHASHSEED: equal when nothing depends on set order."""
    return [
        subprocess.run(
            [sys.executable, "-c", script, *args],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            check=True,
        ).stdout
        for seed in seeds
    ]


def corpus_servers() -> dict[str, list[dict[str, Any]]]:
    """The 70 real servers' tool lists of the LiveMCPBench corpus, by a config-safe server name."""
    import re

    servers: dict[str, list[dict[str, Any]]] = {}
    for entry in json.loads(CORPUS.read_text(encoding="utf-8")):
        for name, server in entry["tools"].items():
            servers[re.sub(r"[^A-Za-z0-9_.-]", "-", name)] = server["tools"]
    return servers


def lock_documents(directory: Path, servers: dict[str, list[dict[str, Any]]]) -> Path:
    """Write verified lockfiles for tool lists directly (for generation tests that need no server)."""
    from mcpvend.config import ServerConfig
    from mcpvend.lock import lockfile
    from mcpvend.lock.snapshot import Snapshot
    from mcpvend.runtime.client import files as atomic

    config_lines = []
    for name, tools in servers.items():
        server = ServerConfig(name=name, transport="stdio", command="python", args=("server.py",))
        ordered = sorted({t["name"]: t for t in tools}.values(), key=lambda t: t["name"])
        snapshot = Snapshot(server, "2025-11-25", {"name": name, "version": "1"}, {}, None, ordered, [])
        atomic.write_atomic(lockfile.path_for(directory / "lockfiles", name), lockfile.dumps(lockfile.build(snapshot)))
        config_lines += [f"[servers.{json.dumps(name)}]", 'command = "python"', 'args = ["server.py"]', ""]
    config = directory / "mcpvend.toml"
    config.write_text("\n".join(config_lines), encoding="utf-8")
    return config


def tree(root: Path) -> dict[str, bytes]:
    """Every file under a directory, as bytes, ignoring Python caches."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


ANNOTATIONS = REPO / "tests" / "data" / "livemcpbench" / "annotations.json"


def search_documents() -> list[Any]:
    """Every corpus tool as a search document (key `server__tool`), in file order."""
    from mcpvend.runtime.core.search import SearchDocument

    return [
        SearchDocument.from_tool(f"{server}__{tool['name']}", tool, server)
        for entry in json.loads(CORPUS.read_text(encoding="utf-8"))
        for server, listing in entry["tools"].items()
        for tool in listing["tools"]
    ]


def annotated_tasks() -> list[tuple[str, str, list[str]]]:
    """(task id, question, annotated tool names in order, without repeats) for every corpus task."""
    import re

    result = []
    for task in json.loads(ANNOTATIONS.read_text(encoding="utf-8")):
        lines = task["Annotator Metadata"]["Tools"].splitlines()
        names = [re.sub(r"^\s*\d+\.\s*", "", line).strip() for line in lines]
        result.append((task["task_id"], task["Question"], list(dict.fromkeys(n for n in names if n))))
    return result


PARAPHRASES = REPO / "tests" / "data" / "paraphrases" / "queries.json"


def paraphrased_queries() -> list[tuple[str, str]]:
    """(query, key `server__tool` of the one tool that serves it) for each paraphrased query."""
    return [(q["query"], f"{q['server']}__{q['tool']}") for q in json.loads(PARAPHRASES.read_text(encoding="utf-8"))]


class OverlapRanker:
    """The search baseline: how many distinct query tokens a tool's text contains; ties by key."""

    def __init__(self, docs: Any) -> None:
        from mcpvend.runtime.core.search import tokenize

        self.terms = [(d.key, set(tokenize(" ".join(d.fields().values())))) for d in docs]

    def rank(self, query: str, limit: int) -> list[Any]:
        from mcpvend.runtime.core.search import Hit, tokenize

        wanted = set(tokenize(query))
        hits = [Hit(key, float(len(wanted & terms))) for key, terms in self.terms if wanted & terms]
        return sorted(hits, key=lambda h: (-h.score, h.key))[: max(limit, 0)]


def record_long_run(name: str, line: str) -> None:
    """A kill test's figures, kept when run with MCPVEND_KILLS set (the long profile, `make long`),
    for bench/RESULTS.md (bench/results.py copies bench/long-*.txt)."""
    if os.environ.get("MCPVEND_KILLS"):
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        (REPO / "bench" / f"long-{name}.txt").write_text(f"{stamp}: {line}\n", encoding="utf-8")


@contextmanager
def locked_package(root: Path, package: str) -> Iterator[ModuleType]:
    """The servers of `root`'s config locked and generated into `root/package`, imported while in use."""
    for args in (("lock",), ("--output", package, "generate")):
        run = mcpvend(*args, cwd=root)
        assert run.code == 0, run.err
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(package)
    finally:
        sys.path.remove(str(root))


@pytest.fixture(scope="module")
def crashy(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[ModuleType]:
    """tests/servers/crashy.py locked and generated into a package named after the test module."""
    root = tmp_path_factory.mktemp("crashy")
    write_config(root, {"crashy": {"command": PY, "args": [str(SERVERS / "crashy.py")]}})
    with locked_package(root, f"crashy_{request.module.__name__}") as package:
        yield package
