"""The config's environment reaches the server at run time, and the audit trail keeps no secret of it.

`lock`, `serve`, `diff --live` and the generated package start a server with the same environment
from the same config: env values are recorded as written (`TZ = "UTC"`, `${GITHUB_TOKEN}`,
`${LEVEL:-info}`) and expanded at start, except a literal credential, which is never written (`lock`
says which key to make a `${VAR}`). `command = "python"` is the interpreter that runs mcpvend or the
package everywhere, never the first one on PATH. tests/servers/env_echo.py shows what it was given.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import pytest
from mcp import Client, StdioServerParameters

from conftest import PY, SERVERS, Run, mcpvend, write_config
from mcpvend.config import load_config, writable_env
from mcpvend.errors import LockfileError
from mcpvend.lock import lockfile
from mcpvend.runtime.audit.trail import digest
from mcpvend.runtime.client.manifest import ConnectError, Manifest
from mcpvend.runtime.client.targets import StdioTarget, Target
from test_readme import fenced

ECHO = str(SERVERS / "env_echo.py")
MARK = uuid.uuid4().hex
GITHUB_TOKEN = f"ghp_{MARK}abcd"  # shaped like a GitHub token: a credential by its value alone
SECRET = f"SENTINEL-{MARK}-é/tok"  # percent-encoded and JSON-escaped, it reads differently


def environ(root: Path, **values: str | None) -> dict[str, str]:
    """This process's environment without TZ, with a `python` first on PATH that is not Python at all."""
    fake = root / "fakebin"
    if not fake.is_dir():
        fake.mkdir()
        for name in ("python", "python3"):
            (fake / name).write_text("#!/bin/sh\necho 'not the Python that runs mcpvend' >&2\nexit 7\n")
            (fake / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in {"TZ", "GITHUB_TOKEN", "GITHUB_PERSONAL_ACCESS_TOKEN"}}
    env["PATH"] = f"{fake}{os.pathsep}{os.environ['PATH']}"
    env.update({k: v for k, v in values.items() if v is not None})
    for name in [k for k, v in values.items() if v is None]:
        env.pop(name, None)
    return env


def run(args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=120)


def cli(*args: str, cwd: Path, env: dict[str, str]) -> Run:
    """The CLI in this process with exactly `env` as its environment, as a child given `env=env` would
    have (variables left out of it are unset for the run, PATH is its PATH); put back afterwards."""
    with pytest.MonkeyPatch.context() as patch:
        for name in set(os.environ) - set(env):
            patch.delenv(name)
        for name, value in env.items():
            patch.setenv(name, value)
        return mcpvend(*args, cwd=cwd)


def every_file(root: Path) -> str:
    """What mcpvend wrote under `root` (the config is the user's)."""
    written = [p for p in root.rglob("*") if p.is_file() and p.suffix != ".pyc" and p.name != "mcpvend.toml"]
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in written)


# --- the README's configuration, locked and run -------------------------------------------------------


@pytest.fixture(scope="module")
def readme_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's example config, with the GitHub server's command swapped for the echo server (no network)
    and the remote one left out (example.com serves nothing); locked and generated with a fake `python` first
    on PATH, TZ unset and GITHUB_TOKEN set."""
    root = tmp_path_factory.mktemp("readme-config")
    (block,) = [b for b in fenced("toml") if "[servers.time]" in b]  # the configuration reference's example
    config = block.replace('command = "npx"', 'command = "python"')
    config = config.replace('args = ["-y", "@modelcontextprotocol/server-github"]', f"args = [{json.dumps(ECHO)}]")
    config = re.sub(r"\[servers\.remote\].*?(?=^\[lint\])", "", config, flags=re.DOTALL | re.MULTILINE)
    assert config.count("[servers.") == 2 and ECHO in config and 'TZ = "UTC"' in config, config
    (root / "mcpvend.toml").write_text(config, encoding="utf-8")
    env = environ(root, GITHUB_TOKEN=GITHUB_TOKEN)
    for args in (["lock"], ["generate"]):
        done = cli(*args, cwd=root, env=env)
        assert done.code == 0, done.err
        assert "warning" not in done.err, done.err  # nothing in the example is a literal credential
    return root


def test_the_readme_config_records_its_env_values_as_written_and_no_secret(readme_project: Path) -> None:
    time_lock = json.loads((readme_project / "lockfiles" / "time.lock.json").read_text(encoding="utf-8"))
    github_lock = json.loads((readme_project / "lockfiles" / "github.lock.json").read_text(encoding="utf-8"))
    assert time_lock["lockfileVersion"] == 3 and time_lock["source"]["envValues"] == {"TZ": "UTC"}
    assert time_lock["source"]["command"] == "python"  # as written: resolved only when the server starts
    assert github_lock["source"]["env"] == ["GITHUB_PERSONAL_ACCESS_TOKEN"]
    assert github_lock["source"]["envValues"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}
    assert [t["tool"]["name"] for t in github_lock["tools"]] == ["search_environment"]  # include/exclude apply
    assert MARK not in every_file(readme_project)


PACKAGE_SCRIPT = """
import asyncio, json
import generated
from generated import github, time as time_tools

async def main():
    try:
        async with time_tools.connect() as tools:
            now = await tools.get_current_time(timezone="UTC")
        async with github.connect() as tools:
            echo = await tools.search_environment(name="GITHUB_PERSONAL_ACCESS_TOKEN")
        print(json.dumps({"timezone": now.timezone, "token": echo.value, "python": echo.python}))
    except generated.ConnectError as exc:
        print(json.dumps({"error": str(exc)}))

asyncio.run(main())
"""


def test_the_generated_package_starts_the_readme_servers_with_the_config_environment(readme_project: Path) -> None:
    done = run([PY, "-"], readme_project, environ(readme_project, GITHUB_TOKEN=GITHUB_TOKEN), PACKAGE_SCRIPT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"timezone": "UTC", "token": GITHUB_TOKEN, "python": PY}
    missing = run([PY, "-"], readme_project, environ(readme_project), PACKAGE_SCRIPT)  # GITHUB_TOKEN unset
    assert json.loads(missing.stdout) == {
        "error": "server 'github': set environment variable GITHUB_TOKEN (env GITHUB_PERSONAL_ACCESS_TOKEN uses"
        " ${GITHUB_TOKEN}) or pass env={'GITHUB_PERSONAL_ACCESS_TOKEN': ...} to connect"
    }


@pytest.mark.anyio
async def test_serve_and_diff_live_start_the_readme_servers_as_lock_did(readme_project: Path) -> None:
    env = environ(readme_project, GITHUB_TOKEN=GITHUB_TOKEN)
    # Results unmasked (a single-user setup) to see the token the server got; by default it would be ***.
    command = ["-m", "mcpvend", "serve", "--unmasked-results"]
    params = StdioServerParameters(command=PY, args=command, cwd=str(readme_project), env=env)
    async with Client(params) as client:
        echo = await client.call_tool("github__search_environment", {"name": "GITHUB_PERSONAL_ACCESS_TOKEN"})
        now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
    assert not echo.is_error and echo.structured_content == {"value": GITHUB_TOKEN, "python": PY}
    assert not now.is_error
    masked = StdioServerParameters(command=PY, args=["-m", "mcpvend", "serve"], cwd=str(readme_project), env=env)
    async with Client(masked) as client:
        hidden = await client.call_tool("github__search_environment", {"name": "GITHUB_PERSONAL_ACCESS_TOKEN"})
    assert hidden.structured_content == {"value": "***", "python": PY}  # a proxy's callers get no secret
    for server in ("github", "time"):
        live = cli("diff", "--live", server, cwd=readme_project, env=env)
        assert live.code == 0 and "no findings" in live.out + live.err, live.err


# --- literals, defaults and credentials ---------------------------------------------------------------

LITERALS = {
    "API_KEY": f"sk-live-{MARK}",  # a credential by its name and its shape
    "DB_PASSWORD": "hunter2hunter2",  # by its name
    "GREETING": "hello",  # a literal: recorded
    "LEVEL": "${LEVEL:-info}",  # a default: recorded
    "REGION": "${ECHO_REGION}",  # a template: recorded
}


@pytest.fixture(scope="module")
def literal_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ModuleType, str]]:
    root = tmp_path_factory.mktemp("env-literals")
    write_config(root, {"echo": {"command": "python", "args": [ECHO, "GREETING", "LEVEL"], "env": LITERALS}})
    env = environ(root, ECHO_REGION="eu-west-1", LEVEL=None)
    locked = cli("lock", cwd=root, env=env)
    assert locked.code == 0, locked.err
    generated = cli("--output", "literalpkg", "generate", cwd=root, env=env)
    assert generated.code == 0, generated.err
    sys.path.insert(0, str(root))
    try:
        yield root, importlib.import_module("literalpkg"), locked.err
    finally:
        sys.path.remove(str(root))


def test_lock_writes_no_literal_credential_and_says_which_key_to_turn_into_a_variable(
    literal_project: tuple[Path, ModuleType, str],
) -> None:
    root, _, stderr = literal_project
    warnings = [line for line in stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: server 'echo': env.{key} looks like a credential and is not written to the lockfile;"
        f' write {key} = "${{{key}}}" and set {key} in the environment (or pass env= to the package)'
        for key in ("API_KEY", "DB_PASSWORD")
    ]
    document = json.loads((root / "lockfiles" / "echo.lock.json").read_text(encoding="utf-8"))
    assert document["source"]["env"] == sorted(LITERALS)
    assert document["source"]["envValues"] == {
        "GREETING": "hello",
        "LEVEL": "${LEVEL:-info}",
        "REGION": "${ECHO_REGION}",
    }
    assert document["server"]["instructions"] == "Started with: GREETING='hello', LEVEL='info'"  # what lock gave
    text = every_file(root)
    assert MARK not in text and "hunter2" not in text and MARK not in stderr


@pytest.mark.anyio
async def test_the_package_expands_templates_and_defaults_at_start_and_asks_for_what_was_not_written(
    literal_project: tuple[Path, ModuleType, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, package, _ = literal_project
    importlib.import_module("literalpkg.echo")
    for name in ("API_KEY", "DB_PASSWORD", "ECHO_REGION", "LEVEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(package.ConnectError) as missing:
        async with package.echo.connect():
            pass
    assert str(missing.value) == "server 'echo': set environment variable API_KEY (or pass env=) to connect"
    credentials = {"API_KEY": "k-given", "DB_PASSWORD": "p-given"}
    with pytest.raises(package.ConnectError) as unset:
        async with package.echo.connect(env=credentials):
            pass
    assert str(unset.value) == (
        "server 'echo': set environment variable ECHO_REGION (env REGION uses ${ECHO_REGION})"
        " or pass env={'REGION': ...} to connect"
    )
    monkeypatch.setenv("ECHO_REGION", "us-east-2")
    async with package.echo.connect(env=credentials) as tools:
        seen = {n: (await tools.search_environment(name=n)).value for n in ("GREETING", "LEVEL", "REGION", "API_KEY")}
        assert (await tools.search_environment(name="PATH")).python == sys.executable
    assert seen == {"GREETING": "hello", "LEVEL": "info", "REGION": "us-east-2", "API_KEY": "k-given"}
    monkeypatch.setenv("LEVEL", "debug")
    monkeypatch.setenv("API_KEY", "k-from-the-environment")
    async with package.echo.connect(env={"DB_PASSWORD": "p", "GREETING": "hi"}) as tools:
        seen = {n: (await tools.search_environment(name=n)).value for n in ("GREETING", "LEVEL", "API_KEY")}
    assert seen == {"GREETING": "hi", "LEVEL": "debug", "API_KEY": "k-from-the-environment"}


@pytest.mark.parametrize(
    ("key", "value", "written"),
    [
        ("TZ", "UTC", True),
        ("GITHUB_PERSONAL_ACCESS_TOKEN", "${GITHUB_TOKEN}", True),
        ("API_KEY", "${API_KEY:-}", True),
        ("HEADER", "Bearer ${TOKEN}", True),
        ("LEVEL", "${LEVEL:-info}", True),
        ("API_KEY", "abc", False),
        ("CLIENT_SECRET", "x", False),
        ("DB_PASSWORD", "postgres", False),
        ("GH_AUTH", "hunter2", False),
        ("GH_AUTH", "on", True),  # a word that picks a mode is no credential, whatever its name
        ("MEMORY_FILE_PATH", "./data/memory.jsonl", True),
        ("MAX_TOKENS", "4096", True),  # tokens of a model, not a credential
        ("GITHUB_TOKEN_FILE", "/run/secrets/github", True),  # where the credential is
        ("DATABASE_URL", "postgres://app:hunter2@db/app", False),  # a URL with a password
        ("DATABASE_URL", "postgres://app:${DB_PASSWORD}@db/app", True),
        ("OPENAI", "sk-proj-abcdef", False),
        ("NOTE", "ghp_0123456789abcdefABCDEF0123456789abcd", False),
        ("NOTE", "${TOKEN:-ghp_0123456789abcdef0123}", False),  # a default shaped like a credential
        ("NOTE", "sk-live-x${SUFFIX}", False),
    ],
)
def test_which_env_values_a_lockfile_keeps(key: str, value: str, written: bool) -> None:
    assert writable_env(key, value) is written


def test_python_is_the_interpreter_that_runs_mcpvend_and_stays_as_written_in_the_lockfile(tmp_path: Path) -> None:
    write_config(tmp_path, {"a": {"command": "python", "args": ["-V"]}, "b": {"command": "${PY:-python3}"}})
    config = load_config(tmp_path / "mcpvend.toml")
    for name in ("a", "b"):
        target, _ = config.servers[name].target(tmp_path, {})
        assert stdio(target).command == sys.executable
    assert config.servers["a"].source_record()["command"] == "python"
    node, _ = config.servers["b"].target(tmp_path, {"PY": "node"})
    assert stdio(node).command == "node"


# --- older lockfiles ----------------------------------------------------------------------------------


def manifest(source: dict[str, Any]) -> Manifest:
    return Manifest(server="s", lockfile="s.lock.json", source=source, capabilities=(), tools=())


def stdio(target: Target) -> StdioTarget:
    assert isinstance(target, StdioTarget)
    return target


def test_a_lockfile_without_env_values_still_reads_each_name_from_the_environment() -> None:
    old = manifest({"transport": "stdio", "command": "python", "args": [], "env": ["TZ"]})
    target = stdio(old.target(environ={"TZ": "Europe/Paris"}))
    assert target.env == {"TZ": "Europe/Paris"} and target.command == sys.executable
    with pytest.raises(ConnectError, match=r"^server 's': set environment variable TZ \(or pass env=\) to connect$"):
        old.target(environ={})
    new = manifest({"transport": "stdio", "command": "x", "args": [], "env": ["TZ"], "envValues": {"TZ": "UTC"}})
    assert stdio(new.target(environ={"TZ": "Europe/Paris"})).env == {"TZ": "UTC"}  # as lock started it
    assert stdio(new.target(env={"TZ": "Asia/Tokyo"}, environ={})).env == {"TZ": "Asia/Tokyo"}


def test_the_format_version_is_3_only_when_env_values_are_recorded(readme_project: Path, tmp_path: Path) -> None:
    path = readme_project / "lockfiles" / "time.lock.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert lockfile.read(path).document["source"]["envValues"] == {"TZ": "UTC"}
    assert lockfile.version_for(document["source"]) == 3
    del document["source"]["envValues"]
    assert lockfile.version_for(document["source"]) == 2
    older = tmp_path / "time.lock.json"
    older.write_text(lockfile.dumps({**document, "lockfileVersion": 2}), encoding="utf-8")
    assert lockfile.read(older).document["source"]["env"] == ["TZ"]  # as mcpvend wrote it before: still verifies
    document["source"]["envValues"] = {"TZ": 1}
    older.write_text(lockfile.dumps(document), encoding="utf-8")
    with pytest.raises(LockfileError, match=r"malformed 'source\.envValues'"):
        lockfile.read(older)


# --- the audit trail ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def secret_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ModuleType]]:
    """The echo server with a configured secret, `ECHO_TOKEN = "${ECHO_TOKEN}"`, locked with it set."""
    root = tmp_path_factory.mktemp("audit-secrets")
    write_config(root, {"echo": {"command": "python", "args": [ECHO], "env": {"ECHO_TOKEN": "${ECHO_TOKEN}"}}})
    env = environ(root, ECHO_TOKEN=SECRET)
    for args in (["lock"], ["--output", "auditpkg", "generate"]):
        done = cli(*args, cwd=root, env=env)
        assert done.code == 0, done.err
    sys.path.insert(0, str(root))
    try:
        yield root, importlib.import_module("auditpkg")
    finally:
        sys.path.remove(str(root))


def trail(directory: Path) -> tuple[str, list[dict[str, Any]]]:
    text = (directory / "tool-calls.jsonl").read_text(encoding="utf-8")
    return text, [json.loads(line) for line in text.splitlines()]


@pytest.mark.anyio
async def test_the_trail_keeps_no_configured_secret_a_model_copies_and_digests_the_raw_value(
    secret_project: tuple[Path, ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, package = secret_project
    monkeypatch.setenv("ECHO_TOKEN", SECRET)
    escaped = json.dumps({"name": SECRET})  # `\u00e9`: as a provider may send it
    sent: list[Any] = [{"name": SECRET}, {"name": quote(SECRET)}, escaped]
    audit = package.AuditOptions(tmp_path, arguments=True)
    async with package.toolset(mode="routed", audit=audit) as ts:
        await ts.call("search_tools", {"query": f"the token is {SECRET}"})  # before the server ever started
        read = await ts.call("echo__search_environment", {"name": "ECHO_TOKEN"})
        assert json.loads(read.text)["value"] == SECRET  # a result is the server's data, passed on as sent
        for arguments in sent:
            assert not (await ts.call("echo__search_environment", arguments)).is_error
    text, records = trail(tmp_path)
    assert MARK not in text and quote(SECRET) not in text, text
    search = next(r for r in records if r["event"] == "search")
    assert search["query"] == "the token is ***"
    calls = [r for r in records if r["event"] == "call"][-3:]
    assert [c["arguments"] for c in calls] == [{"name": "***"}] * 3
    assert [c["arguments_sha256"] for c in calls] == [
        digest({"name": SECRET}),
        digest({"name": quote(SECRET)}),
        digest({"name": SECRET}),
    ]


@pytest.mark.anyio
async def test_serve_audit_dir_keeps_no_configured_secret_in_a_search_query(
    secret_project: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    root, _ = secret_project
    env = environ(root, ECHO_TOKEN=SECRET)
    args = ["-m", "mcpvend", "--output", "auditpkg", "serve", "--mode", "routed", "--audit-dir", str(tmp_path)]
    async with Client(StdioServerParameters(command=PY, args=args, cwd=str(root), env=env)) as client:
        found = await client.call_tool("search_tools", {"query": f"search {SECRET} environment"})
        assert not found.is_error
    text, records = trail(tmp_path)
    assert MARK not in text, text
    assert [r["query"] for r in records if r["event"] == "search"] == ["search *** environment"]
