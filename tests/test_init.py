"""`mcpvend init`: a working mcpvend.toml from another client's config, with no secret copied."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from conftest import PY, SERVERS, mcpvend

SENTINEL = "sk-live-SENTINEL-4f1e"


def client_config(directory: Path, name: str = ".mcp.json") -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    servers = {
        "demo": {
            "command": PY,
            "args": [str(SERVERS / "demo.py"), "--api-key", SENTINEL],
            "env": {"API_KEY": SENTINEL},
        },
        "remote": {
            "type": "http",
            "url": f"https://user:{SENTINEL}@mcp.example.com/mcp?token={SENTINEL}&region=eu",
            "headers": {"Authorization": f"Bearer {SENTINEL}", "X-Plain": "${ALREADY_A_VAR}"},
        },
        "off": {"command": "nothing", "disabled": True},
    }
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def test_init_from_mcp_json_copies_no_secret_and_the_result_locks(tmp_path: Path) -> None:
    client_config(tmp_path)
    run = mcpvend("init", cwd=tmp_path)
    assert run.code == 0, run.err
    text = (tmp_path / "mcpvend.toml").read_text(encoding="utf-8")
    assert SENTINEL not in text and SENTINEL not in run.out + run.err
    config = tomllib.loads(text)
    assert set(config["servers"]) == {"demo", "remote"}  # the disabled one is left out
    demo, remote = config["servers"]["demo"], config["servers"]["remote"]
    assert demo["env"] == {"API_KEY": "${API_KEY}"} and demo["args"][1:] == ["--api-key", "${DEMO_API_KEY}"]
    assert remote["headers"] == {"Authorization": "${REMOTE_AUTHORIZATION}", "X-Plain": "${ALREADY_A_VAR}"}
    assert remote["url"] == "https://${REMOTE_URL_USERINFO}@mcp.example.com/mcp?token=${REMOTE_TOKEN}&region=eu"
    for variable in ("API_KEY", "DEMO_API_KEY", "REMOTE_AUTHORIZATION", "REMOTE_TOKEN", "REMOTE_URL_USERINFO"):
        assert f"set ${{{variable}}} in the environment" in run.err
    locked = mcpvend("lock", "demo", cwd=tmp_path, env={"API_KEY": "k", "DEMO_API_KEY": "k"})
    assert locked.code == 0, locked.err
    assert (tmp_path / "lockfiles" / "demo.lock.json").is_file()


def test_init_never_replaces_a_config_without_force(tmp_path: Path) -> None:
    client_config(tmp_path)
    (tmp_path / "mcpvend.toml").write_text("# mine\n", encoding="utf-8")
    run = mcpvend("init", cwd=tmp_path)
    assert run.code == 2 and "already exists; use --force" in run.err
    assert (tmp_path / "mcpvend.toml").read_text() == "# mine\n"
    assert mcpvend("init", "--force", cwd=tmp_path).code == 0
    assert '[servers."demo"]' in (tmp_path / "mcpvend.toml").read_text()


def test_init_finds_claude_desktop_config_and_reports_bad_input(tmp_path: Path) -> None:
    home = tmp_path / "home"
    client_config(home / ".config" / "Claude", "claude_desktop_config.json")
    project = tmp_path / "project"
    project.mkdir()
    run = mcpvend("init", cwd=project, env={"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    assert run.code == 0, run.err
    assert "claude_desktop_config.json" in run.err
    empty = tmp_path / "empty"
    empty.mkdir()
    none = mcpvend("init", cwd=empty, env={"HOME": str(tmp_path / "nohome"), "XDG_CONFIG_HOME": str(tmp_path / "x")})
    assert none.code == 2 and "no MCP client config found" in none.err
    broken = empty / "broken.json"
    broken.write_text("{nope", encoding="utf-8")
    bad = mcpvend("init", "--from", str(broken), cwd=empty)
    assert bad.code == 2 and "broken.json: invalid JSON" in bad.err
    assert not (empty / "mcpvend.toml").exists()


def test_init_keeps_only_the_servers_chosen(tmp_path: Path) -> None:
    """What a terminal user answers (the CLI asks with click.confirm): a server answered 'no' is left out."""
    from mcpvend.init_config import init

    client_config(tmp_path)
    asked: list[str] = []
    written = init(tmp_path, choose=lambda name: asked.append(name) or name == "remote")
    assert asked == ["demo", "remote"] and written.servers == ("remote",)
    assert set(tomllib.loads((tmp_path / "mcpvend.toml").read_text())["servers"]) == {"remote"}
