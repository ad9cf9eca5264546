"""Read a config file: `mcpvend.toml`, `[tool.mcpvend]` in `pyproject.toml`, or a `.mcp.json` (Claude
Desktop, Claude Code, Cursor, VS Code), checked key by key; every problem names the file, the server and
the key, in one line.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from mcpvend.config.model import DEFAULT_TIMEOUT, AuthConfig, Config, ServerConfig
from mcpvend.config.raw import directories, mcpvend_table
from mcpvend.errors import ConfigError
from mcpvend.runtime.client.targets import CAPABILITIES, PROTOCOLS, VARIABLE

if TYPE_CHECKING:
    from mcpvend.runtime.routing.rules import RoutingOptions

# _NAME and _IGNORE_ENTRY are used with `fullmatch`: `$` would let a final newline through.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_STDIO_KEYS = {"command", "args", "env", "cwd"}
_HTTP_KEYS = {"url", "headers", "transport", "token", "auth", "scopes", "client_id", "client_secret", "client_name"}
_OAUTH_KEYS = ("scopes", "client_id", "client_secret", "client_name")
_COMMON_KEYS = {"include", "exclude", "timeout", "capabilities", "protocol", "rename"}
_TOP_KEYS = {"servers", "lockfiles", "output", "lint", "routing", "search"}
# A reviewed lint finding: RULE@SERVER/TOOL, globs allowed in SERVER and TOOL (an empty TOOL: the server's own text).
_IGNORE_ENTRY = re.compile(r"[a-z0-9-]+@[^/@\s]+/[^@\s]*")
# Keys other clients put in .mcp.json-style files that mean nothing to us.
_FOREIGN_KEYS = {"type", "oauth", "disabled", "autoApprove", "alwaysAllow", "description", "transportType", "envFile"}


def load_config(path: Path, *, lockfiles: Path | None = None, output: Path | None = None) -> Config:
    """Parse and check a config file; every problem names the file, the server and the key."""
    table = mcpvend_table(path)
    unknown = set(table) - _TOP_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key {sorted(unknown)[0]!r} (expected one of {sorted(_TOP_KEYS)})")
    semantic, search_model = _search(path, table.get("search", {}))
    servers_table = table.get("servers", {})
    if not isinstance(servers_table, dict):
        raise ConfigError(f"{path}: 'servers' must be a table of server name to settings")
    servers = {
        name: _server(path, name, raw, foreign=path.suffix == ".json") for name, raw in sorted(servers_table.items())
    }
    lockfiles, output = directories(path, table, lockfiles, output)
    return Config(
        path=path,
        servers=servers,
        lockfiles=lockfiles,
        output=output,
        lint_ignore=_lint_ignore(path, table.get("lint", {})),
        routing=_routing(path, table.get("routing", {}), servers),
        semantic=semantic,
        search_model=search_model,
    )


def _search(path: Path, search: object) -> tuple[bool, Path | None]:
    """`[search] semantic`, and `model`: the directory of a local copy of the upstream model (relative to the
    config's), for semantic search in place of mcpvend-minilm."""
    if not isinstance(search, dict):
        raise ConfigError(f"{path}: 'search' must be a table")
    if unknown := sorted(set(search) - {"semantic", "model"}):
        raise ConfigError(f"{path}: [search]: unknown key {unknown[0]!r} (expected 'semantic' or 'model')")
    semantic = search.get("semantic", False)
    if not isinstance(semantic, bool):
        raise ConfigError(f"{path}: [search] semantic must be true or false, not {semantic!r}")
    model = search.get("model")
    if model is None:
        return semantic, None
    if not isinstance(model, str) or not model.strip():
        raise ConfigError(f"{path}: [search] model must be a directory's path, not {model!r}")
    if not semantic:
        raise ConfigError(f"{path}: [search] model is the model of semantic search: set semantic = true with it")
    return semantic, (path.parent / model).resolve()


def _lint_ignore(path: Path, lint: object) -> tuple[str, ...]:
    if not isinstance(lint, dict):
        raise ConfigError(f"{path}: 'lint' must be a table")
    if unknown := sorted(set(lint) - {"ignore"}):
        raise ConfigError(f"{path}: [lint]: unknown key {unknown[0]!r} (expected 'ignore')")
    entries = _strings(f"{path}: [lint]", "ignore", lint.get("ignore", []))
    for entry in entries:
        if not _IGNORE_ENTRY.fullmatch(entry):
            raise ConfigError(
                f"{path}: [lint] ignore: {entry!r} is not RULE@SERVER/TOOL (e.g. 'tool-reference@github/*')"
            )
    return tuple(entries)


def _routing(path: Path, routing: object, servers: Mapping[str, ServerConfig]) -> RoutingOptions | None:
    if routing == {}:
        return None
    from mcpvend.runtime.core.steps import RoutingError  # the catalog it needs costs `--check` 20 ms
    from mcpvend.runtime.routing.rules import routing_options

    try:
        return routing_options(routing, where=f"{path}: [routing]", servers=servers)
    except RoutingError as exc:
        raise ConfigError(str(exc)) from None


def _server(path: Path, name: str, raw: object, *, foreign: bool) -> ServerConfig:
    where = f"{path}: server '{name}'"
    if not _NAME.fullmatch(name):  # quoted as a repr: the name may hold a line break
        raise ConfigError(f"{path}: server {name!r}: a server name may use letters, digits, '_', '.', '-' (64 at most)")
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: settings must be a table")
    kind = raw.get("type")
    is_http = "url" in raw or kind in ("http", "streamable-http", "streamableHttp", "sse")
    allowed = _COMMON_KEYS | (_HTTP_KEYS if is_http else _STDIO_KEYS) | (_FOREIGN_KEYS if foreign else set())
    for key in raw:
        if key not in allowed:
            if key in _HTTP_KEYS | _STDIO_KEYS:
                raise ConfigError(f"{where}: key '{key}' does not apply to a {'HTTP' if is_http else 'stdio'} server")
            raise ConfigError(f"{where}: unknown key '{key}' (expected one of {sorted(allowed - _FOREIGN_KEYS)})")
    common: dict[str, Any] = {
        "include": tuple(_strings(where, "include", raw.get("include", []))),
        "exclude": tuple(_strings(where, "exclude", raw.get("exclude", []))),
        "timeout": _timeout(where, raw.get("timeout", DEFAULT_TIMEOUT)),
        "capabilities": tuple(sorted(_choices(where, "capabilities", raw.get("capabilities", []), CAPABILITIES))),
        "protocol": _choice(where, "protocol", raw.get("protocol", "auto"), PROTOCOLS),
        "rename": _renames(where, raw.get("rename", {})),
    }
    if is_http:
        if "url" not in raw:
            raise ConfigError(f"{where}: key 'url' is required for an HTTP server")
        url = _string(path, name, "url", raw["url"])
        if not re.match(r"^(https?://|\$\{)", url):
            raise ConfigError(f"{where}: key 'url' must start with http:// or https://")
        headers = _mapping(where, "headers", raw.get("headers", {}))
        transport: Literal["http", "sse"] = (
            "sse" if kind == "sse" else _choice(where, "transport", raw.get("transport", "http"), ("http", "sse"))
        )
        token = None if "token" not in raw else _string(path, name, "token", raw["token"])
        if token is not None and not VARIABLE.search(token):
            raise ConfigError(f"{where}: key 'token' must name an environment variable, e.g. token = \"${{X_TOKEN}}\"")
        auth = _auth(path, name, where, raw)
        return ServerConfig(name=name, transport=transport, url=url, headers=headers, token=token, auth=auth, **common)
    if "command" not in raw:
        raise ConfigError(f"{where}: needs 'command' (stdio) or 'url' (HTTP)")
    cwd = raw.get("cwd")
    return ServerConfig(
        name=name,
        transport="stdio",
        command=_string(path, name, "command", raw["command"]),
        args=tuple(_strings(where, "args", raw.get("args", []))),
        env=_mapping(where, "env", raw.get("env", {})),
        cwd=None if cwd is None else _string(path, name, "cwd", cwd),
        **common,
    )


def _auth(path: Path, name: str, where: str, raw: Mapping[str, Any]) -> AuthConfig | None:
    """`auth = "oauth"` and its settings (an `.mcp.json` entry may hold them in an `oauth` table)."""
    kind = raw.get("auth")
    settings = {key: raw[key] for key in _OAUTH_KEYS if key in raw}
    if isinstance(table := raw.get("oauth"), dict):  # .mcp.json: {"oauth": {"clientId": ..., "scopes": [...]}}
        kind = "oauth"
        camel = {
            "scopes": "scopes",
            "clientId": "client_id",
            "clientSecret": "client_secret",
            "clientName": "client_name",
        }
        settings |= {camel[key]: value for key, value in table.items() if key in camel}
    if kind is None:
        if settings:
            raise ConfigError(f"{where}: key '{next(iter(settings))}' needs auth = \"oauth\"")
        return None
    if kind != "oauth":
        raise ConfigError(f"{where}: key 'auth' must be \"oauth\" (a bearer token from the environment: token)")
    secret = settings.get("client_secret")
    if secret is not None and not VARIABLE.search(_string(path, name, "client_secret", secret)):
        raise ConfigError(
            f"{where}: key 'client_secret' must name an environment variable, e.g. \"${{CLIENT_SECRET}}\""
        )
    return AuthConfig(
        scopes=tuple(_strings(where, "scopes", settings.get("scopes", []))),
        client_id=None if "client_id" not in settings else _string(path, name, "client_id", settings["client_id"]),
        client_secret=secret,
        client_name=None
        if "client_name" not in settings
        else _string(path, name, "client_name", settings["client_name"]),
    )


def _string(path: Path, server: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        where = f"{path}: server '{server}'" if server else str(path)
        raise ConfigError(f"{where}: key '{key}' must be a non-empty string")
    return value


def _strings(where: str, key: str, value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: key '{key}' must be a list of strings")
    return cast(list[str], value)


def _mapping(where: str, key: str, value: object) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ConfigError(f"{where}: key '{key}' must be a table of strings")
    return dict(sorted(cast(dict[str, str], value).items()))


def _renames(where: str, value: object) -> dict[str, str]:
    renames = _mapping(where, "rename", value)
    for tool, name in renames.items():
        if not name.isidentifier() or not name.isascii() or keyword.iskeyword(name) or name.startswith("_"):
            raise ConfigError(f"{where}: key 'rename': {name!r} (for tool {tool!r}) is not a public Python name")
    return renames


def _timeout(where: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 3600:
        raise ConfigError(f"{where}: key 'timeout' must be a number of seconds between 0 and 3600")
    return float(value)


def _choice(where: str, key: str, value: object, choices: tuple[str, ...]) -> Any:
    if value not in choices:
        raise ConfigError(f"{where}: key '{key}' must be one of {list(choices)}, not {value!r}")
    return value


def _choices(where: str, key: str, value: object, choices: tuple[str, ...]) -> list[Any]:
    return [_choice(where, key, v, choices) for v in _strings(where, key, value)]
