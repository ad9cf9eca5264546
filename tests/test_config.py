"""Config discovery, the three file formats, interpolation, and one clear message per mistake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import lock_documents, mcpvend, tree
from mcpvend.config import find_config, load_config
from mcpvend.errors import ConfigError
from mcpvend.runtime.client.targets import HttpTarget, StdioTarget


def test_discovery_order_prefers_mcpvend_toml_then_pyproject_then_mcp_json(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {}}')
    assert find_config(None, tmp_path).name == ".mcp.json"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.mcpvend]: not ours
    assert find_config(None, tmp_path).name == ".mcp.json"
    (tmp_path / "pyproject.toml").write_text("[tool.mcpvend.servers.a]\ncommand = 'x'\n")
    assert find_config(None, tmp_path).name == "pyproject.toml"
    (tmp_path / "mcpvend.toml").write_text("")
    assert find_config(None, tmp_path).name == "mcpvend.toml"


def test_no_config_names_the_directory_and_the_files_looked_for(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no config found in .*mcpvend\.toml, pyproject\.toml, \.mcp\.json"):
        find_config(None, tmp_path)
    with pytest.raises(ConfigError, match=r"missing\.toml: config file not found"):
        find_config(tmp_path / "missing.toml", tmp_path)


def test_native_config_reads_every_setting(tmp_path: Path) -> None:
    path = tmp_path / "mcpvend.toml"
    path.write_text(
        """
lockfiles = "locks"
output = "out"

[servers.files]
command = "node"
args = ["server.js", "${ROOT}"]
env = { TOKEN = "${TOKEN}", MODE = "fast" }
cwd = "sub"
include = ["read_*"]
exclude = ["read_secret"]
timeout = 12.5
capabilities = ["sampling", "roots"]
protocol = "legacy"

[servers.remote]
url = "https://example.test/mcp"
headers = { Authorization = "Bearer ${TOKEN}" }
"""
    )
    config = load_config(path)
    assert config.lockfiles == tmp_path / "locks" and config.output == tmp_path / "out"
    files = config.servers["files"]
    assert (files.transport, files.timeout, files.protocol) == ("stdio", 12.5, "legacy")
    assert files.capabilities == ("roots", "sampling")
    assert files.wants("read_file") and not files.wants("read_secret") and not files.wants("write_file")
    target, secrets = files.target(tmp_path, {"ROOT": "/data", "TOKEN": "tok-12345"})
    assert target == StdioTarget(
        command="node",
        args=("server.js", "/data"),
        env={"MODE": "fast", "TOKEN": "tok-12345"},
        cwd=str(tmp_path / "sub"),
    )
    assert "tok-12345" in secrets and "fast" in secrets
    remote, secrets = config.servers["remote"].target(tmp_path, {"TOKEN": "tok-12345"})
    assert remote == HttpTarget(url="https://example.test/mcp", headers={"Authorization": "Bearer tok-12345"})
    assert "Bearer tok-12345" in secrets


def test_source_record_keeps_templates_and_only_the_names_of_env_and_headers(tmp_path: Path) -> None:
    path = tmp_path / "mcpvend.toml"
    path.write_text(
        '[servers.a]\ncommand = "node"\nargs = ["${ROOT}"]\nenv = { TOKEN = "literal-secret" }\n'
        '[servers.b]\nurl = "https://h/mcp"\nheaders = { "X-Key" = "literal-secret" }\n'
    )
    config = load_config(path)
    a, b = config.servers["a"].source_record(), config.servers["b"].source_record()
    assert a == {"transport": "stdio", "command": "node", "args": ["${ROOT}"], "env": ["TOKEN"]}
    assert b == {"transport": "http", "url": "https://h/mcp", "headers": ["X-Key"]}


def test_pyproject_table(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.mcpvend.servers.time]\ncommand = "python"\nargs = ["-m", "mcp_server_time"]\n')
    assert load_config(path).servers["time"].args == ("-m", "mcp_server_time")


def test_mcp_json_from_claude_cursor_and_vscode(tmp_path: Path) -> None:
    claude = tmp_path / ".mcp.json"
    claude.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "gh": {"command": "npx", "args": ["-y", "x"], "env": {"T": "${T}"}, "autoApprove": []},
                    "api": {"type": "http", "url": "https://h/mcp", "headers": {"A": "b"}},
                    "off": {"command": "x", "disabled": True},
                }
            }
        )
    )
    config = load_config(claude)
    assert sorted(config.servers) == ["api", "gh"]
    assert config.servers["api"].transport == "http" and config.servers["gh"].env == {"T": "${T}"}
    vscode = tmp_path / "mcp.json"
    vscode.write_text(json.dumps({"servers": {"s": {"type": "stdio", "command": "x"}}}))
    assert load_config(vscode).servers["s"].command == "x"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[servers.a]\ncomand = "x"\n', r"server 'a': unknown key 'comand'"),
        ("[servers.a]\nargs = []\n", r"server 'a': needs 'command' \(stdio\) or 'url'"),
        ('[servers.a]\ncommand = "x"\nargs = "one"\n', r"server 'a': key 'args' must be a list of strings"),
        ('[servers.a]\ncommand = "x"\nenv = { A = 1 }\n', r"server 'a': key 'env' must be a table of strings"),
        ('[servers.a]\ncommand = "x"\ntimeout = -1\n', r"server 'a': key 'timeout' must be a number"),
        ('[servers.a]\ncommand = "x"\ncapabilities = ["telepathy"]\n', r"server 'a': key 'capabilities' must be one"),
        ('[servers.a]\ncommand = "x"\nprotocol = "2025-06-18"\n', r"server 'a': key 'protocol' must be one of"),
        ('[servers.a]\nurl = "ftp://h"\n', r"server 'a': key 'url' must start with http"),
        ('[servers.a]\nurl = "https://h"\ncommand = "x"\n', r"server 'a': key 'command' does not apply to a HTTP"),
        ('[servers."../etc"]\ncommand = "x"\n', r"server '\.\./etc': a server name may use"),
        ('[servers."a\\n"]\ncommand = "x"\n', r"server 'a\\n': a server name may use"),  # `$` passed a final \n
        ('[lint]\nignore = ["tool-reference@a/t\\n"]\n', r"\[lint\] ignore: 'tool-reference@a/t\\n' is not RULE@"),
        ("servers = 3\n", r"'servers' must be a table"),
        ('lockfile = "x"\n', r"unknown key 'lockfile'"),
        ("[servers.a\n", r"invalid TOML"),
        ('[servers.a]\ncommand = "x"\nrename = { t = "class" }\n', r"key 'rename': 'class' \(for tool 't'\) is not"),
        ('[servers.a]\nurl = "https://h"\ntoken = "raw-token"\n', r"key 'token' must name an environment variable"),
        (
            '[servers.a]\nurl = "https://h"\nauth = "oauth"\nclient_secret = "raw"\n',
            r"key 'client_secret' must name an environment",
        ),
        ('[servers.a]\nurl = "https://h"\nscopes = ["a"]\n', r"key 'scopes' needs auth = \"oauth\""),
        ('[servers.a]\nurl = "https://h"\nauth = "basic"\n', r"key 'auth' must be \"oauth\""),
        ('[servers.a]\nurl = "https://h"\ntransport = "websocket"\n', r"key 'transport' must be one of"),
        ('[servers.a]\ncommand = "x"\nauth = "oauth"\n', r"key 'auth' does not apply to a stdio server"),
    ],
)
def test_bad_config_gets_one_message_naming_file_server_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mcpvend.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(path)
    assert str(caught.value).startswith(str(path))


def test_a_server_name_ending_in_a_line_break_is_one_error_line_not_generated_code(tmp_path: Path) -> None:
    """A name that held a line break once passed the check, and `generate` wrote code that does not parse."""
    config = lock_documents(tmp_path, {"a\n": [{"name": "t", "inputSchema": {"type": "object"}}]})
    before = tree(tmp_path)
    for args in (("generate",), ("show",), ("lint",), ("lock",)):
        run = mcpvend(*args, cwd=tmp_path)
        assert (run.code, run.out) == (2, ""), run.err
        expected = "server 'a\\n': a server name may use letters, digits, '_', '.', '-' (64 at most)"
        assert run.err == f"error: {config}: {expected}\n"
    assert tree(tmp_path) == before


def test_oauth_sse_and_token_settings_from_toml_and_mcp_json(tmp_path: Path) -> None:
    toml = tmp_path / "mcpvend.toml"
    toml.write_text(
        '[servers.a]\nurl = "https://h/mcp"\nauth = "oauth"\nscopes = ["read"]\nclient_id = "cid"\n'
        'client_secret = "${SECRET}"\n[servers.b]\nurl = "https://h/sse"\ntransport = "sse"\ntoken = "${B_TOKEN}"\n'
    )
    config = load_config(toml)
    target, named = config.servers["a"].target(tmp_path, {"SECRET": "s3cret-value"})
    assert isinstance(target, HttpTarget) and target.oauth is not None and target.oauth.scopes == ("read",)
    assert "s3cret-value" in target.secret_values() and named["s3cret-value"] == "${SECRET}"
    assert "s3cret-value" not in repr(target)
    assert config.servers["a"].source_record()["auth"] == {"type": "oauth", "scopes": ["read"], "clientId": "cid"}
    b, _ = config.servers["b"].target(tmp_path, {"B_TOKEN": "tok-123456"})
    assert isinstance(b, HttpTarget) and b.sse and b.headers == {"Authorization": "Bearer tok-123456"}
    assert config.servers["b"].source_record() == {
        "transport": "sse",
        "url": "https://h/sse",
        "headers": [],
        "token": "${B_TOKEN}",
    }
    mcp_json = tmp_path / ".mcp.json"
    entry = {"type": "http", "url": "https://h/mcp", "oauth": {"clientId": "cid", "scopes": ["x"]}}
    mcp_json.write_text(json.dumps({"mcpServers": {"old": {"type": "sse", "url": "https://h/sse"}, "o": entry}}))
    read = load_config(mcp_json)
    assert read.servers["old"].transport == "sse"
    assert read.servers["o"].auth is not None and read.servers["o"].auth.client_id == "cid"


def test_non_utf8_and_non_json_configs(tmp_path: Path) -> None:
    path = tmp_path / "mcpvend.toml"
    path.write_bytes(b"[servers.a]\ncommand = '\xff'\n")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(path)
    json_path = tmp_path / ".mcp.json"
    json_path.write_text("{not json")
    with pytest.raises(ConfigError, match="invalid JSON"):
        load_config(json_path)
    json_path.write_text("[]")
    with pytest.raises(ConfigError, match="expected a JSON object with 'mcpServers'"):
        load_config(json_path)


def test_interpolation_defaults_and_missing_variables(tmp_path: Path) -> None:
    path = tmp_path / "mcpvend.toml"
    path.write_text('[servers.a]\ncommand = "x"\nargs = ["${MODE:-safe}", "${HOME_DIR}"]\n')
    server = load_config(path).servers["a"]
    target, _ = server.target(tmp_path, {"HOME_DIR": "/h"})
    assert isinstance(target, StdioTarget) and target.args == ("safe", "/h")
    with pytest.raises(ConfigError, match=r"server 'a': args\[1\] uses \$\{HOME_DIR\}, which is not set"):
        server.target(tmp_path, {})


def test_selecting_an_unknown_server_lists_the_configured_ones(tmp_path: Path) -> None:
    path = tmp_path / "mcpvend.toml"
    path.write_text('[servers.a]\ncommand = "x"\n[servers.b]\ncommand = "y"\n')
    config = load_config(path)
    assert [s.name for s in config.select(("b", "b"))] == ["b"]
    with pytest.raises(ConfigError, match=r"no server named 'c' \(configured: a, b\)"):
        config.select(("a", "c"))
