"""`mcpvend init`: an `mcpvend.toml` from the servers another MCP client already knows.

Other clients' files often hold secrets in plain text (an API key in `env` or `args`, a bearer
token in a header, a password in a URL). Those values are never copied: each becomes a `${VAR}`
reference, and the user is told which variables to set. Which values are secret is the rule of
`mcpvend.credentials`, the one `lock` applies, so a data path or a time zone is kept as written and
the config locks as the client's own file would. The file is checked by loading it before it
replaces anything.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from mcpvend.config import ServerConfig, load_config
from mcpvend.credentials import (
    LiteralCredential,
    holds_credential,
    scrub_args,
    scrub_url,
    variable_name,
    writable_env,
)
from mcpvend.errors import ConfigError
from mcpvend.exclusions import exclude_output
from mcpvend.runtime.client.files import write_atomic
from mcpvend.runtime.client.targets import VARIABLE

TARGET = "mcpvend.toml"
_T = TypeVar("_T")


def sources(cwd: Path, home: Path, platform: str = sys.platform) -> list[Path]:
    """Where MCP clients keep their server lists, project files first; only those that exist."""
    project = [cwd / ".mcp.json", cwd / ".cursor" / "mcp.json", cwd / ".vscode" / "mcp.json"]
    if platform == "darwin":
        desktop = home / "Library" / "Application Support" / "Claude"
    elif platform.startswith("win"):
        desktop = Path(os.environ.get("APPDATA", home / "AppData" / "Roaming")) / "Claude"
    else:
        desktop = Path(os.environ.get("XDG_CONFIG_HOME", home / ".config")) / "Claude"
    user = [desktop / "claude_desktop_config.json", home / ".cursor" / "mcp.json"]
    return [p for p in project + user if p.is_file()]


@dataclass
class _Scrubber:
    """Writes each literal credential as a `${VAR}` (by the credentials rule, as `lock` judges them) and
    remembers what to set; every other literal is kept as written, as `lock --config .mcp.json` keeps it."""

    variables: dict[str, str]  # variable -> where it came from

    def header(self, server: str, key: str, text: str) -> str:
        """Every header value is a secret: a `${VAR}` as written stays, anything else becomes one."""
        if not text or (VARIABLE.fullmatch(text) and not holds_credential("", text)):
            return text
        return self._variable(variable_name(server, key), f"server '{server}' header {key}")

    def env(self, server: str, key: str, text: str) -> str:
        if writable_env(key, text):
            return text
        return self._variable(variable_name(key), f"server '{server}' env {key}")

    def url(self, server: str, url: str) -> str:
        return self._found(server, *scrub_url(server, url))

    def args(self, server: str, args: tuple[str, ...]) -> list[str]:
        return self._found(server, *scrub_args(server, args))

    def _found(self, server: str, written: _T, found: list[LiteralCredential]) -> _T:
        for literal in found:
            self.variables.setdefault(literal.variable, f"server '{server}' {literal.place}")
        return written

    def _variable(self, variable: str, where: str) -> str:
        self.variables.setdefault(variable, where)
        return f"${{{variable}}}"


def _toml(value: object) -> str:
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_toml(str(k))} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value, ensure_ascii=False)  # JSON strings, numbers and lists are valid TOML


def render(servers: list[ServerConfig], origin: str) -> tuple[str, dict[str, str]]:
    """The TOML text and the variables (name -> why) the user must set."""
    scrub = _Scrubber({})
    lines = [f"# Written by `mcpvend init` from {origin}. Secrets were not copied: see the ${{VAR}} references.", ""]
    for server in servers:
        lines.append(f"[servers.{_toml(server.name)}]")
        if server.transport != "stdio":
            lines.append(f"url = {_toml(scrub.url(server.name, server.url))}")
            if server.transport == "sse":
                lines.append('transport = "sse"')
            headers = {k: scrub.header(server.name, k, v) for k, v in server.headers.items()}
            if headers:
                lines.append(f"headers = {_toml(headers)}")
            if server.auth is not None:  # signed in with `mcpvend login`, never a copied secret
                lines.append('auth = "oauth"')
                if server.auth.scopes:
                    lines.append(f"scopes = {_toml(list(server.auth.scopes))}")
                if server.auth.client_id is not None:
                    lines.append(f"client_id = {_toml(server.auth.client_id)}")
        else:
            lines.append(f"command = {_toml(server.command)}")
            if server.args:
                lines.append(f"args = {_toml(scrub.args(server.name, server.args))}")
            env = {k: scrub.env(server.name, k, v) for k, v in server.env.items()}
            if env:
                lines.append(f"env = {_toml(env)}")
            if server.cwd:
                lines.append(f"cwd = {_toml(server.cwd)}")
        lines.append("")
    return "\n".join(lines), scrub.variables


@dataclass(frozen=True)
class Written:
    path: Path
    source: Path
    servers: tuple[str, ...]
    variables: Mapping[str, str]
    exclusions: tuple[str, ...] = ()  # what was done to keep formatters and linters off the output


def init(
    cwd: Path,
    *,
    source: Path | None = None,
    force: bool = False,
    home: Path | None = None,
    choose: Callable[[str], bool] | None = None,
) -> Written:
    """Write `cwd/mcpvend.toml` from `source` (or the first client config found); `choose` asks per server."""
    target = cwd / TARGET
    if os.path.lexists(target) and not target.is_file():
        raise ConfigError(f"{target}: cannot write: it is a directory, not a file")
    if target.exists() and not force:
        raise ConfigError(f"{target} already exists; use --force to replace it")
    if source is None:
        found = sources(cwd, home or Path.home())
        if not found:
            raise ConfigError("no MCP client config found (looked for .mcp.json here and Claude Desktop's); use --from")
        source = found[0]
    elif not os.path.lexists(source):
        raise ConfigError(f"{source}: config file not found")
    config = load_config(source)
    if not config.servers:
        raise ConfigError(f"{source}: lists no servers")
    servers = [s for s in config.servers.values() if choose is None or choose(s.name)]
    text, variables = render(servers, source.name)
    with tempfile.TemporaryDirectory() as scratch:  # our own output must load before it replaces anything
        (Path(scratch) / TARGET).write_text(text, encoding="utf-8")
        try:
            load_config(Path(scratch) / TARGET)
        except ConfigError as exc:
            raise ConfigError(f"internal error: the config made from {source} does not load: {exc}") from None
    try:
        write_atomic(target, text)
    except OSError as exc:
        raise ConfigError(f"{target}: cannot write: {exc.strerror or exc}") from None
    excluded = exclude_output(cwd)
    return Written(target, source, tuple(s.name for s in servers), variables, tuple(excluded))
