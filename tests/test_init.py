"""`mcpvend init`: a working mcpvend.toml from another client's config, with no secret copied and every
harmless literal kept (by the credentials rule, the one `lock` applies)."""

from __future__ import annotations

import json
import os
import subprocess
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


def test_init_keeps_harmless_literals_as_lock_does_and_only_credentials_become_variables(tmp_path: Path) -> None:
    """One rule for both: the config `init` writes locks to what `lock --config .mcp.json` records."""
    env = {"MEMORY_FILE_PATH": "./data/memory.jsonl", "API_KEY": SENTINEL, "LEVEL": "${LEVEL:-info}"}
    args = [str(SERVERS / "demo.py"), "--local-timezone", "UTC", "--token-file", "./token"]
    servers = {"memory": {"command": PY, "args": args, "env": env}}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    run = mcpvend("init", cwd=tmp_path)
    assert run.code == 0, run.err
    written = tomllib.loads((tmp_path / "mcpvend.toml").read_text(encoding="utf-8"))["servers"]["memory"]
    assert written["args"] == args  # no credential among them: as written
    assert written["env"] == {**env, "API_KEY": "${API_KEY}"}
    assert [line for line in run.err.splitlines() if "set $" in line] == [
        "  set ${API_KEY} in the environment: server 'memory' env API_KEY was not copied"
    ]
    locked = mcpvend("lock", cwd=tmp_path, env={"API_KEY": "k"})
    assert locked.code == 0 and "warning" not in locked.err, locked.err
    from_client = mcpvend("--config", ".mcp.json", "--lockfiles", "client-locks", "lock", cwd=tmp_path)
    assert from_client.code == 0, from_client.err  # its literal API_KEY is left out, with a note
    assert "env.API_KEY looks like a credential and is not written" in from_client.err
    ours = json.loads((tmp_path / "lockfiles" / "memory.lock.json").read_text(encoding="utf-8"))["source"]
    theirs = json.loads((tmp_path / "client-locks" / "memory.lock.json").read_text(encoding="utf-8"))["source"]
    assert ours["envValues"] == {
        "LEVEL": "${LEVEL:-info}",
        "MEMORY_FILE_PATH": "./data/memory.jsonl",
        "API_KEY": "${API_KEY}",
    }
    assert theirs["envValues"] == {"LEVEL": "${LEVEL:-info}", "MEMORY_FILE_PATH": "./data/memory.jsonl"}
    assert ours["args"] == theirs["args"] == args
    assert SENTINEL not in json.dumps([ours, theirs]) + run.err + locked.err + from_client.err


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


def _tools_leave_the_output_alone(project: Path) -> None:
    """The real ruff and black, run over the whole project, skip generated/ and still see the rest."""
    package = project / "generated"
    package.mkdir(exist_ok=True)
    (package / "bad.py").write_text("import os\nx   =   1\n", encoding="utf-8")  # unused import, unformatted
    (project / "app.py").write_text("x = 1\n", encoding="utf-8")
    env = {"PATH": f"{Path(PY).parent}:{os.environ['PATH']}"}
    ruff = subprocess.run([PY, "-m", "ruff", "check", "."], cwd=project, capture_output=True, text=True, env=env)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    black = subprocess.run([PY, "-m", "black", "--check", "."], cwd=project, capture_output=True, text=True, env=env)
    assert black.returncode == 0 and "1 file would be left unchanged" in black.stderr, black.stderr
    (project / "app.py").write_text("import os\n", encoding="utf-8")  # the exclusion is not everything
    ruff = subprocess.run([PY, "-m", "ruff", "check", "."], cwd=project, capture_output=True, text=True, env=env)
    assert ruff.returncode == 1 and "app.py" in ruff.stdout and "bad.py" not in ruff.stdout


def test_init_keeps_formatters_and_linters_off_the_generated_package(tmp_path: Path) -> None:
    client_config(tmp_path)
    run = mcpvend("init", cwd=tmp_path)
    assert run.code == 0, run.err
    assert "ruff: excluded in pyproject.toml" in run.err and "black: excluded in pyproject.toml" in run.err
    settings = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert settings == {"ruff": {"extend-exclude": ["generated"]}, "black": {"extend-exclude": "^/generated/"}}
    _tools_leave_the_output_alone(tmp_path)


def test_init_adds_the_exclusions_to_a_projects_own_tables_and_changes_nothing_else(tmp_path: Path) -> None:
    client_config(tmp_path)
    mine = '[project]\nname = "app"\n\n[tool.ruff]  # ours\nline-length = 100\n\n[tool.black]\nline-length = 100\n'
    (tmp_path / "pyproject.toml").write_text(mine, encoding="utf-8")
    assert mcpvend("init", cwd=tmp_path).code == 0
    text = (tmp_path / "pyproject.toml").read_text(encoding="utf-8")
    assert text == mine.replace("# ours\n", '# ours\nextend-exclude = ["generated"]\n').replace(
        "[tool.black]\n", '[tool.black]\nextend-exclude = "^/generated/"\n'
    )
    _tools_leave_the_output_alone(tmp_path)
    assert mcpvend("init", "--force", cwd=tmp_path).code == 0  # a second run adds nothing twice
    assert (tmp_path / "pyproject.toml").read_text(encoding="utf-8") == text


def test_a_setting_that_only_looks_like_the_exclusion_is_not_taken_for_it(tmp_path: Path) -> None:
    """`generated` and a line break is another path: ruff would still lint the package."""
    client_config(tmp_path)
    mine = '[tool.ruff]\nextend-exclude = ["generated\\n"]\n'
    (tmp_path / "pyproject.toml").write_text(mine, encoding="utf-8")
    run = mcpvend("init", cwd=tmp_path)
    assert run.code == 0, run.err
    assert "ruff: extend-exclude is set already" in run.err and "already excluded" not in run.err


def test_init_never_overwrites_a_setting_it_cannot_merge_and_says_what_to_add(tmp_path: Path) -> None:
    client_config(tmp_path)
    mine = '[tool.ruff]\nextend-exclude = ["build"]\n\n[tool]\nblack.line-length = 100\n'
    (tmp_path / "pyproject.toml").write_text(mine, encoding="utf-8")
    run = mcpvend("init", cwd=tmp_path)
    assert run.code == 0, run.err
    assert (tmp_path / "pyproject.toml").read_text(encoding="utf-8") == mine
    assert 'ruff: extend-exclude is set already: add `extend-exclude = ["generated"]` under [tool.ruff]' in run.err
    assert 'black: add `extend-exclude = "^/generated/"` under [tool.black] yourself' in run.err
    (tmp_path / "pyproject.toml").write_text("[tool.ruff\n", encoding="utf-8")  # broken: left as it is
    run = mcpvend("init", "--force", cwd=tmp_path)
    assert run.code == 0 and "pyproject.toml: invalid TOML" in run.err and (tmp_path / "mcpvend.toml").is_file()
    assert (tmp_path / "pyproject.toml").read_text(encoding="utf-8") == "[tool.ruff\n"
