"""Hosted servers as users meet them: a legacy HTTP+SSE server (the SDK's own SSE server transport),
and OAuth 2.1 sign-in against an in-repo server built on the SDK's `mcp/server/auth`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters

from conftest import PY, SERVERS, Run, listening, locked_package, mcpvend, write_config
from oauth_browser import complete_sign_in, tampered

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def legacy_sse() -> Iterator[str]:
    """The demo server over the 2024-11-05 HTTP+SSE transport, on a free loopback port."""
    with listening([PY, str(SERVERS / "demo.py"), "--sse", "{port}"], "demo server (SSE)") as port:
        yield f"http://127.0.0.1:{port}/sse"


def text(result: object) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")  # type: ignore[attr-defined]


async def test_a_legacy_sse_server_is_locked_called_and_served(tmp_path: Path, legacy_sse: str) -> None:
    write_config(tmp_path, {"legacy": {"url": legacy_sse, "transport": "sse"}})
    with locked_package(tmp_path, "legacy_pkg") as package:
        lockfile = json.loads((tmp_path / "lockfiles" / "legacy.lock.json").read_text(encoding="utf-8"))
        assert lockfile["source"] == {"transport": "sse", "url": legacy_sse, "headers": []}
        assert "convert_temperature" in [entry["tool"]["name"] for entry in lockfile["tools"]]
        async with package.toolset(["legacy"], mode="direct") as ts:
            result = await ts.call("legacy__convert_temperature", {"value": 100, "to": "fahrenheit"})
            assert (result.is_error, result.text) == (False, "212.00 fahrenheit")
        check = mcpvend("lock", "--check", cwd=tmp_path)
        assert check.code == 0, check.err  # pinned: the live server still matches
        served = StdioServerParameters(
            command=PY,
            args=["-m", "mcpvend", "--output", "legacy_pkg", "serve", "legacy"],
            cwd=str(tmp_path),
            env=dict(os.environ),
        )
        async with Client(served) as client:
            converted = await client.call_tool("legacy__convert_temperature", {"value": 0, "to": "kelvin"})
            assert (converted.is_error, text(converted)) == (False, "273.15 kelvin")


def test_dot_mcp_json_type_sse_is_read_as_the_legacy_transport(tmp_path: Path, legacy_sse: str) -> None:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"legacy": {"type": "sse", "url": legacy_sse}}}))
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert json.loads((tmp_path / "lockfiles" / "legacy.lock.json").read_text())["source"]["transport"] == "sse"


# --- OAuth 2.1: mcpvend login, the token store, lock and the package --------------------------------


@pytest.fixture(scope="module")
def hosted() -> Iterator[str]:
    """tests/servers/oauth_demo.py: an MCP server that is its own authorization server (SDK mcp/server/auth)."""
    with listening([PY, str(SERVERS / "oauth_demo.py"), "--port", "{port}"], "OAuth demo server") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@dataclass
class Home:
    """A project and a user config directory of its own (the token store lives there)."""

    root: Path
    config: Path

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "XDG_CONFIG_HOME": str(self.config)}

    def run(self, *args: str) -> Run:
        return mcpvend(*args, cwd=self.root, env=self.env)

    def login(self, server: str, *, browse: Callable[[str], str] = lambda url: url) -> tuple[int, str]:
        """`mcpvend login --no-browser`, its printed URL followed as a browser would (after `browse`)."""
        command = [PY, "-m", "mcpvend", "login", server, "--no-browser"]
        proc = subprocess.Popen(command, cwd=self.root, env=self.env, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.strip().startswith("http://"):
                complete_sign_in(browse(line.strip()))
                break
        rest = proc.stderr.read()
        return proc.wait(timeout=60), "".join(lines) + rest

    def stored(self) -> dict[str, Any]:
        (path,) = (self.config / "mcpvend" / "tokens").glob("*.json")
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def written(self) -> dict[str, bytes]:
        """Every file mcpvend wrote outside the token store."""
        return {str(p): p.read_bytes() for p in self.root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture
def home(tmp_path: Path, hosted: str) -> Home:
    root, config = tmp_path / "project", tmp_path / "config"
    root.mkdir()
    demo = {"command": PY, "args": [str(SERVERS / "demo.py")]}
    write_config(root, {"hosted": {"url": hosted, "auth": "oauth", "scopes": ["mcp:read"]}, "demo": demo})
    return Home(root, config)


def post(url: str, path: str) -> None:
    httpx2.post(url.removesuffix("/mcp") + path).raise_for_status()


def test_sign_in_once_then_lock_generate_and_call_with_the_stored_tokens(home: Home, hosted: str) -> None:
    before = home.run("lock")
    assert before.code == 2
    assert "error: server 'hosted' needs sign-in: run mcpvend login hosted" in before.err
    assert (home.root / "lockfiles" / "demo.lock.json").exists()  # the other server is locked all the same

    code, said = home.login("hosted")
    assert code == 0, said
    assert "signed in to 'hosted' with scopes mcp:read" in said
    store = home.stored()
    tokens = [store["tokens"]["access_token"], store["tokens"]["refresh_token"]]
    store_file = next((home.config / "mcpvend" / "tokens").glob("*.json"))
    assert stat.S_IMODE(store_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(store_file.parent.stat().st_mode) == 0o700

    locked = home.run("lock")
    assert locked.code == 0, locked.err
    source = json.loads((home.root / "lockfiles" / "hosted.lock.json").read_text())["source"]
    assert source["auth"] == {"type": "oauth", "scopes": ["mcp:read"]}
    status = home.run("auth", "status")
    assert status.out.startswith("hosted: signed in (scopes: mcp:read), access token expires in ")

    generated = home.run("generate")
    assert generated.code == 0, generated.err
    script = (
        "import asyncio, generated\n"
        "async def main():\n"
        "    async with generated.toolset(['hosted'], mode='direct') as ts:\n"
        "        print((await ts.call('hosted__convert_temperature', {'value': 100, 'to': 'fahrenheit'})).text)\n"
        "asyncio.run(main())\n"
    )
    called = subprocess.run([PY, "-c", script], cwd=home.root, env=home.env, capture_output=True, text=True)
    assert called.stdout.strip() == "212.00 fahrenheit", called.stderr

    outputs = before.out + before.err + said + locked.out + locked.err + status.out + called.stdout + called.stderr
    for token in tokens:  # no token anywhere but the token store
        assert token not in outputs
        assert not [path for path, data in home.written().items() if token.encode() in data]


def test_an_expired_token_is_refreshed_and_a_revoked_one_asks_to_log_in_again(home: Home, hosted: str) -> None:
    assert home.login("hosted")[0] == 0
    path = next((home.config / "mcpvend" / "tokens").glob("*.json"))

    def expire() -> None:  # the server ends the access token and the store says it has ended
        post(hosted, "/test/expire")
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "expires_at": 1.0}))

    first = home.stored()["tokens"]["access_token"]
    expire()
    refreshed = home.run("lock", "hosted")
    assert refreshed.code == 0, refreshed.err
    assert home.stored()["tokens"]["access_token"] != first  # a new access token, without a browser

    post(hosted, "/test/revoke-refresh")
    expire()
    revoked = home.run("lock", "hosted")
    assert revoked.code == 2
    assert "error: server 'hosted' needs sign-in again: run mcpvend login hosted" in revoked.err
    assert "Traceback" not in revoked.err


def test_a_tampered_redirect_is_refused_and_nothing_is_stored(home: Home) -> None:
    code, said = home.login("hosted", browse=tampered)
    assert code == 2
    assert "error: server 'hosted': sign-in failed: the redirect's state did not match" in said
    assert "Traceback" not in said and not list((home.config / "mcpvend" / "tokens").glob("*.json"))


def test_a_server_without_oauth_metadata_is_one_line(tmp_path: Path) -> None:
    argv = [PY, str(SERVERS / "oauth_demo.py"), "--port", "{port}", "--no-metadata"]
    with listening(argv, "OAuth demo server without metadata") as port:
        write_config(tmp_path, {"bare": {"url": f"http://127.0.0.1:{port}/mcp", "auth": "oauth"}})
        home = Home(tmp_path, tmp_path / "config")
        code, said = home.login("bare")
    assert code == 2 and said.startswith("error: server 'bare': sign-in failed: ") and "Traceback" not in said


def test_logout_forgets_and_more_scopes_is_a_high_finding(home: Home, hosted: str, tmp_path: Path) -> None:
    assert home.login("hosted")[0] == 0
    assert home.run("lock", "hosted").code == 0
    old = home.root / "lockfiles" / "hosted.lock.json"
    document = json.loads(old.read_text())
    document["source"]["auth"]["scopes"] = ["mcp:read", "mcp:write"]
    new = tmp_path / "hosted.new.json"
    new.write_text(json.dumps(document))
    diff = home.run("diff", "--format", "json", str(old), str(new))
    (section,) = json.loads(diff.out)["sections"]
    findings = [f for f in section["findings"] if f["pointer"] == "/source/auth/scopes"]
    assert [(f["kind"], f["severity"], f["message"]) for f in findings] == [
        (
            "source-changed",
            "high",
            'source.auth.scopes changed: ["mcp:read"] -> ["mcp:read", "mcp:write"] (more OAuth scopes are asked for: mcp:write)',
        )
    ]
    out = home.run("logout", "hosted")
    assert out.code == 0 and "signed out of 'hosted'" in out.err
    assert home.run("auth", "status").out.strip() == "hosted: not signed in (mcpvend login hosted)"


def test_the_package_says_which_server_needs_sign_in_and_others_still_answer(home: Home) -> None:
    assert home.login("hosted")[0] == 0
    assert home.run("lock").code == 0 and home.run("generate").code == 0
    assert home.run("logout", "hosted").code == 0
    script = (
        "import asyncio, generated\n"
        "async def main():\n"
        "    async with generated.toolset(['hosted', 'demo'], mode='direct') as ts:\n"
        "        print((await ts.call('hosted__convert_temperature', {'value': 1})).text)\n"
        "        print((await ts.call('demo__convert_temperature', {'value': 1, 'to': 'kelvin'})).text)\n"
        "asyncio.run(main())\n"
    )
    called = subprocess.run([PY, "-c", script], cwd=home.root, env=home.env, capture_output=True, text=True)
    assert called.stdout.splitlines() == ["server 'hosted' needs sign-in: run mcpvend login hosted", "274.15 kelvin"]
