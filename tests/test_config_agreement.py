"""The config, its lockfiles and the generated package agree, and no credential of the config reaches a lockfile.

A literal credential in a server's `args` or `url` is refused by `lock`, `lock --check` and `diff --live`
before anything starts (one line naming the server, the key and the variable to use; the value never shown;
the old lockfile byte for byte as it was), and the `${VAR}` the line suggests then locks. A config edited
since `lock` (args, command, env value, capabilities) fails `generate --check` (exit 1), is refused by
`generate` (exit 2, the package untouched) and is a `source-mismatch` finding of `lint`. Real servers:
the demo server and http_faults.py (for a URL), and the PyPI `mcp-server-time`.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import PY, REPO, SERVERS, Run, demo, free_port, mcpvend, tree, write_config
from mcpvend.config import load_config
from mcpvend.lock import lockfile
from mcpvend.lock.agreement import describe, mismatches
from test_faults import start_http_server, stop

SECRET = f"hunter2-{uuid.uuid4().hex}"  # not shaped like a credential: where it stands makes it one
DEMO = str(SERVERS / "demo.py")


def each(commands: list[tuple[str, ...]], cwd: Path) -> list[Run]:
    """Several CLI runs, one after another in this process (none of them writes anything): a child
    process per run would pay Python's and the SDK's imports each time."""
    return [mcpvend(*args, cwd=cwd) for args in commands]


def files(root: Path) -> dict[str, bytes]:
    """What mcpvend writes: lockfiles and the package (the config is the user's)."""
    return {p: b for p, b in tree(root).items() if not p.startswith("mcpvend.toml") and "__pycache__" not in p}


# --- a literal credential in args or url: refused before anything starts ------------------------


@dataclass(frozen=True)
class Literal:
    server: str
    settings: dict[str, Any]  # the server's settings with the literal credential
    line: str  # the one error line, after "error: "
    variable: str
    fixed: dict[str, Any]  # the settings written as the line says
    value: str  # what the variable is set to


def literal_cases(url: str) -> dict[str, Literal]:
    with_user = url.replace("//", "//user:{}@")
    return {
        "url-userinfo": Literal(
            "web",
            {"url": with_user.format(SECRET)},
            "server 'web': url: the user info holds a literal credential;"
            ' write it as "${WEB_URL_USERINFO}" and set WEB_URL_USERINFO in the environment',
            "WEB_URL_USERINFO",
            {"url": url.replace("//", "//${WEB_URL_USERINFO}@")},
            f"user:{SECRET}",
        ),
        "url-query-token": Literal(
            "web",
            {"url": f"{url}?region=eu&access_token={SECRET}"},
            "server 'web': url: query parameter 'access_token' holds a literal credential;"
            ' write it as "access_token=${WEB_ACCESS_TOKEN}" and set WEB_ACCESS_TOKEN in the environment',
            "WEB_ACCESS_TOKEN",
            {"url": f"{url}?region=eu&access_token=${{WEB_ACCESS_TOKEN}}"},
            SECRET,
        ),
        "api-key-argument": Literal(
            "st",
            demo(args=[DEMO, "--api-key", SECRET]),
            "server 'st': args[2] holds a literal credential (after --api-key);"
            ' write it as "${ST_API_KEY}" and set ST_API_KEY in the environment',
            "ST_API_KEY",
            demo(args=[DEMO, "--api-key", "${ST_API_KEY}"]),
            SECRET,
        ),
        "token-equals-argument": Literal(
            "st",
            demo(args=[DEMO, f"--token={SECRET}"]),
            "server 'st': args[1] holds a literal credential (--token=...);"
            ' write it as "--token=${ST_TOKEN}" and set ST_TOKEN in the environment',
            "ST_TOKEN",
            demo(args=[DEMO, "--token=${ST_TOKEN}"]),
            SECRET,
        ),
    }


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = free_port()
    server = start_http_server(port)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(server)


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory, http_url: str) -> Path:
    """The demo server (stdio) and http_faults.py (HTTP), locked without any credential."""
    root = tmp_path_factory.mktemp("literal")
    write_config(root, {"st": demo(), "web": {"url": http_url}})
    run = mcpvend("lock", cwd=root)
    assert run.code == 0, run.err
    return root


@pytest.mark.parametrize("name", list(literal_cases("http://h/mcp")))
def test_lock_refuses_a_literal_credential_in_args_or_url_and_the_variable_it_names_locks(
    locked: Path, http_url: str, tmp_path: Path, name: str
) -> None:
    case = literal_cases(http_url)[name]
    project = tmp_path / "project"
    shutil.copytree(locked, project)
    servers = {"st": demo(), "web": {"url": http_url}}
    write_config(project, {**servers, case.server: case.settings})
    before = files(project)
    assert before  # the lockfiles are there to be kept
    commands = [("lock",), ("lock", case.server), ("lock", "--check"), ("diff", "--live", case.server)]
    for args, run in zip(commands, each(commands, project), strict=True):
        assert (run.code, run.out, run.err) == (2, "", f"error: {case.line}\n"), args
        assert SECRET not in run.out + run.err
    assert files(project) == before  # byte for byte, nothing added
    # As the line says: the variable in the config, its value in the environment.
    write_config(project, {**servers, case.server: case.fixed})
    run = mcpvend("lock", case.server, cwd=project, env={case.variable: case.value})
    assert run.code == 0, run.err
    written = (project / "lockfiles" / f"{case.server}.lock.json").read_text(encoding="utf-8")
    assert f"${{{case.variable}}}" in written and SECRET not in written and SECRET not in run.err


def test_several_literal_credentials_are_named_first_to_last_and_none_is_shown(tmp_path: Path) -> None:
    """The first one is named; the value of none is shown, whatever its shape."""
    write_config(tmp_path, {"st": demo(args=[DEMO, "--api-key", f"sk-{SECRET}", "--password", SECRET])})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 2 and run.err.startswith("error: server 'st': args[2] holds a literal credential"), run.err
    assert SECRET not in run.err and not (tmp_path / "lockfiles").exists()
    config = load_config(tmp_path / "mcpvend.toml").servers["st"]
    assert [c.place for c in config.literal_credentials()] == [
        "args[2] (after --api-key)",
        "args[4] (after --password)",
    ]


# --- a config edited since lock -------------------------------------------------------------------

TIME = ["-m", "mcp_server_time", "--local-timezone", "UTC"]


@dataclass(frozen=True)
class Edit:
    settings: dict[str, Any]  # the time server as configured after the edit
    line: str  # generate --check's line
    pointer: str
    old: Any
    new: Any


EDITS = {
    "args": Edit(
        {"args": [*TIME[:3], "Europe/Paris"]},
        "server 'time': the config's args[3] is 'Europe/Paris', the lockfile's 'UTC'; run `mcpvend lock time`",
        "/source/args/3",
        "UTC",
        "Europe/Paris",
    ),
    "command": Edit(
        {"command": "python3"},
        "server 'time': the config's command is 'python3', the lockfile's 'python'; run `mcpvend lock time`",
        "/source/command",
        "python",
        "python3",
    ),
    "env-value": Edit(
        {"env": {"TZ": "Europe/Paris"}},
        "server 'time': the config's env.TZ is 'Europe/Paris', the lockfile's 'UTC'; run `mcpvend lock time`",
        "/source/envValues/TZ",
        "UTC",
        "Europe/Paris",
    ),
    "capabilities": Edit(
        {"capabilities": ["roots"]},
        "server 'time': the config's capabilities is ['roots'], the lockfile's []; run `mcpvend lock time`",
        "/clientCapabilities",
        [],
        ["roots"],
    ),
    "literal-credential-masked": Edit(
        {"args": [*TIME, f"--token={SECRET}"]},
        "server 'time': the config's args[4] is '--token=***', the lockfile has none; run `mcpvend lock time`",
        "/source/args/4",
        None,
        "--token=***",
    ),
}


def time_server(**changes: Any) -> dict[str, Any]:
    return {"command": "python", "args": TIME, "env": {"TZ": "UTC"}, **changes}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """mcp-server-time locked and generated, with an env value (recorded: TZ is no credential)."""
    root = tmp_path_factory.mktemp("agreement")
    write_config(root, {"time": time_server()})
    for args in (("lock",), ("generate",)):
        run = mcpvend(*args, cwd=root)
        assert run.code == 0, run.err
    assert json.loads((root / "lockfiles" / "time.lock.json").read_text())["source"]["envValues"] == {"TZ": "UTC"}
    return root


def edited(generated: Path, tmp_path: Path, **changes: Any) -> Path:
    project = tmp_path / "project"
    shutil.copytree(generated, project)
    write_config(project, {"time": time_server(**changes)})
    return project


@pytest.mark.parametrize("name", list(EDITS))
def test_a_config_edited_since_lock_fails_generate_check_generate_and_lint(
    generated: Path, tmp_path: Path, name: str
) -> None:
    edit = EDITS[name]
    project = edited(generated, tmp_path, **edit.settings)
    before = files(project)
    check, refused, lint = each([("generate", "--check"), ("generate",), ("lint", "--format", "json")], project)
    assert (check.code, check.err) == (1, f"{edit.line}\n")
    assert (refused.code, refused.err) == (2, f"error: {edit.line}\n")
    assert lint.code == 1, lint.err
    (section,) = json.loads(lint.out)["sections"]
    (finding,) = section["findings"]
    assert (finding["kind"], finding["severity"], finding["pointer"]) == ("source-mismatch", "high", edit.pointer)
    assert (finding["old"], finding["new"]) == (edit.old, edit.new)
    assert finding["message"] == edit.line.removeprefix("server 'time': ")
    for run in (check, refused, lint):
        assert SECRET not in run.out + run.err
    assert files(project) == before  # nothing written: the package still runs what was reviewed


def test_locking_the_edit_makes_the_package_stale_then_generate_agrees(generated: Path, tmp_path: Path) -> None:
    project = edited(generated, tmp_path, args=[*TIME[:3], "Europe/Paris"])
    assert mcpvend("lock", "time", cwd=project).code == 0
    assert mcpvend("lint", cwd=project).code == 0
    stale = mcpvend("generate", "--check", cwd=project)
    assert stale.code == 1 and "generated is stale" in stale.err, stale.err
    assert mcpvend("generate", cwd=project).code == 0
    check = mcpvend("generate", "--check", cwd=project)
    assert (check.code, check.err) == (0, "up to date: generated (1 server, 2 tools)\n")
    manifest = json.loads((project / "generated" / "time" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["source"]["args"][-1] == "Europe/Paris"  # what the package now starts


def test_lint_ignores_what_only_lock_adds_and_names_the_config_key(tmp_path: Path) -> None:
    """`listedWith` says whose credentials listed the tools: no config writes it, so it is no mismatch."""
    write_config(tmp_path, {"s": {"command": "node", "args": ["s.js"], "env": {"TZ": "UTC", "KEY": "${KEY}"}}})
    server = load_config(tmp_path / "mcpvend.toml").servers["s"]
    source = {**server.source_record(), "listedWith": {"cacheScope": "private", "credentials": ["env.KEY"]}}
    assert mismatches(server, {"source": source, "clientCapabilities": []}) == []
    document = {"source": {**source, "env": ["KEY"], "envValues": {"KEY": "${KEY}"}}}
    assert [describe("s", c) for c in mismatches(server, document)] == [
        "the config's env keys is ['KEY', 'TZ'], the lockfile's ['KEY']; run `mcpvend lock s`",
        "the config's env.TZ is 'UTC', the lockfile has none; run `mcpvend lock s`",
    ]


def test_the_repos_own_config_agrees_with_its_lockfiles() -> None:
    config = load_config(REPO / "mcpvend.toml")
    for name, server in config.servers.items():
        assert mismatches(server, lockfile.read_for(config.lockfiles, name).document) == [], name


def test_a_command_is_compared_as_written_not_as_it_resolves(tmp_path: Path) -> None:
    """`python` is resolved only when a server starts: a config that names the interpreter's path says otherwise."""
    write_config(tmp_path, {"s": {"command": PY, "args": ["s.py"]}})
    server = load_config(tmp_path / "mcpvend.toml").servers["s"]
    document = {"source": {"transport": "stdio", "command": "python", "args": ["s.py"], "env": []}}
    (change,) = mismatches(server, document)
    assert (change.field, change.old, change.new) == ("command", "python", PY)
