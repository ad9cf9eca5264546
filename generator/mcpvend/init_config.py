"""`mcpvend init`: an `mcpvend.toml` from the servers another MCP client already knows.

Other clients' files often hold secrets in plain text (an API key in `env`, a bearer token in
a header). Those values are never copied: each becomes a `${VAR}` reference, and the user is
told which variables to set. The file is checked by loading it before it replaces anything.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mcpvend.config import ServerConfig, load_config
from mcpvend.errors import ConfigError
from mcpvend.exclusions import exclude_output
from mcpvend.runtime.client.files import write_atomic
from mcpvend.runtime.client.targets import VARIABLE

TARGET = "mcpvend.toml"
_SECRETISH = re.compile(r"key|token|secret|passw|auth|credential|session|cookie", re.IGNORECASE)


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


def _variable(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", "_".join(parts)).strip("_").upper() or "SECRET"


@dataclass
class _Scrubber:
    """Replaces literal values that may be secret with `${VAR}` and remembers what to set."""

    variables: dict[str, str]  # variable -> where it came from

    def value(self, text: str, variable: str, where: str) -> str:
        if not text or VARIABLE.fullmatch(text):
            return text
        self.variables.setdefault(variable, where)
        return f"${{{variable}}}"

    def url(self, server: str, url: str) -> str:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo = self.value("x", _variable(server, "URL_USERINFO"), "the URL user info")
            netloc = f"{userinfo}@{netloc.rsplit('@', 1)[-1]}"
        query = [
            (k, self.value(v, _variable(server, k), f"URL query parameter {k!r}") if _SECRETISH.search(k) else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ]
        return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, safe="${}")))

    def args(self, server: str, args: tuple[str, ...]) -> list[str]:
        result: list[str] = []
        for i, arg in enumerate(args):
            flag, sep, value = arg.partition("=")
            if sep and flag.startswith("-") and _SECRETISH.search(flag):
                arg = f"{flag}={self.value(value, _variable(server, flag), f'argument {flag}')}"
            elif i and args[i - 1].startswith("-") and _SECRETISH.search(args[i - 1]) and not arg.startswith("-"):
                arg = self.value(arg, _variable(server, args[i - 1]), f"argument {args[i - 1]}")
            result.append(arg)
        return result


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
            headers = {
                k: scrub.value(v, _variable(server.name, k), f"server '{server.name}' header {k}")
                for k, v in server.headers.items()
            }
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
            env = {k: scrub.value(v, _variable(k), f"server '{server.name}' env {k}") for k, v in server.env.items()}
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
