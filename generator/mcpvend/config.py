"""Read servers from `mcpvend.toml`, `[tool.mcpvend]` in `pyproject.toml`, or a `.mcp.json`.

Values are kept as written (with `${VAR}` unexpanded) until a server is started, so that
`generate` never needs the environment and nothing expanded is ever recorded.
"""

from __future__ import annotations

import fnmatch
import json
import keyword
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from mcpvend.credentials import (
    LiteralCredential,
    arg_secret_values,
    scrub_args,
    scrub_url,
    url_secret_values,
)
from mcpvend.credentials import looks_like_credential as looks_like_credential
from mcpvend.credentials import writable_env as writable_env
from mcpvend.errors import ConfigError, read_failure
from mcpvend.runtime.client import files
from mcpvend.runtime.client.targets import (
    CAPABILITIES,
    PROTOCOLS,
    VARIABLE,
    Capability,
    HttpTarget,
    MissingVariable,
    OAuth,
    Protocol,
    StdioTarget,
    Target,
    executable,
    interpolate,
    meaningful,
)

if TYPE_CHECKING:
    from mcpvend.runtime.routing.rules import RoutingOptions

CONFIG_NAMES = ("mcpvend.toml", "pyproject.toml", ".mcp.json")
DEFAULT_TIMEOUT = 30.0
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


@dataclass(frozen=True)
class AuthConfig:
    """`auth = "oauth"`: the server signs clients in as MCP's authorization spec says (`mcpvend login`)."""

    scopes: tuple[str, ...] = ()
    client_id: str | None = None
    client_secret: str | None = None  # a `${VAR}`: never written anywhere
    client_name: str | None = None


@dataclass(frozen=True)
class ServerConfig:
    """One server as configured; strings may hold `${VAR}` references."""

    name: str
    transport: Literal["stdio", "http", "sse"]
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    token: str | None = None  # a `${VAR}` sent as a bearer token
    auth: AuthConfig | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    capabilities: tuple[Capability, ...] = ()
    protocol: Protocol = "auto"
    rename: Mapping[str, str] = field(default_factory=dict)

    def wants(self, tool_name: str) -> bool:
        """Whether the include/exclude globs keep this tool."""
        if self.include and not any(fnmatch.fnmatchcase(tool_name, g) for g in self.include):
            return False
        return not any(fnmatch.fnmatchcase(tool_name, g) for g in self.exclude)

    def target(self, base_dir: Path, environ: Mapping[str, str]) -> tuple[Target, dict[str, str]]:
        """The concrete target to start, and every expanded value that must never be shown, each with
        the name it is known by in the config (`${VAR}`, `env.KEY`, `headers.KEY`): a message may name
        a secret, never show it."""
        named: dict[str, str] = {}

        def remember(value: str, key: str) -> None:
            named.setdefault(value, key)
            if len(scheme_and_credentials := value.split(None, 1)) == 2:  # `Bearer sk-...`: the token alone too
                named.setdefault(scheme_and_credentials[1], key)

        def expand(key: str, text: str, secret: bool = False) -> str:
            value = _interpolate(text, environ, f"server '{self.name}': {key}")
            named.update({environ[m[1]]: f"${{{m[1]}}}" for m in VARIABLE.finditer(text) if m[1] in environ})
            if secret:
                remember(value, key)
            return value

        def literal(values: Mapping[str, str]) -> None:
            """The literal credentials of args or the url (`lock` refuses them; serve and logs mask them)."""
            for text, key in values.items():
                remember(interpolate(text, environ), key)  # expanded above already: no variable is missing

        if self.transport != "stdio":
            headers = {k: expand(f"headers.{k}", v, secret=True) for k, v in self.headers.items()}
            if self.token is not None:
                headers["Authorization"] = f"Bearer {expand('token', self.token, secret=True)}"
            url = expand("url", self.url)
            literal(dict.fromkeys(url_secret_values(self.url), "url"))
            oauth = None
            if (auth := self.auth) is not None:
                secret = (
                    None if auth.client_secret is None else expand("client_secret", auth.client_secret, secret=True)
                )
                client_id = None if auth.client_id is None else expand("client_id", auth.client_id)
                oauth = OAuth(self.name, auth.scopes, client_id, secret, auth.client_name or "mcpvend")
            secrets = _worth_hiding(named)
            http = HttpTarget(url, headers, frozenset(secrets), sse=self.transport == "sse", oauth=oauth)
            return http, secrets
        env = {k: expand(f"env.{k}", v, secret=True) for k, v in self.env.items()}
        cwd = base_dir / expand("cwd", self.cwd) if self.cwd else base_dir
        command = executable(expand("command", self.command))
        args = tuple(expand(f"args[{i}]", a) for i, a in enumerate(self.args))
        literal(arg_secret_values(self.args))
        secrets = _worth_hiding(named)
        target = StdioTarget(command=command, args=args, env=env, cwd=str(cwd), secrets=frozenset(secrets))
        return target, secrets

    def source_record(self) -> dict[str, Any]:
        """How the server is reached, for the lockfile: templates as written, header names only, and env values
        as written unless one is a literal credential (`unwritten_env`), whose name alone is kept.

        Recording the values lets the generated package start the server with the environment `lock` gave it;
        `envValues` is left out when empty, so a lockfile without env values reads as it always did.
        """
        if self.transport != "stdio":
            http: dict[str, Any] = {"transport": self.transport, "url": self.url, "headers": sorted(self.headers)}
            if self.token is not None:
                http["token"] = self.token  # a `${VAR}`, as written
            if self.auth is not None:  # what the server is asked for, never a client secret or a token
                http["auth"] = {"type": "oauth", "scopes": list(self.auth.scopes)}
                if self.auth.client_id is not None:
                    http["auth"]["clientId"] = self.auth.client_id
            return http | self._start_record()
        record: dict[str, Any] = {
            "transport": "stdio",
            "command": self.command,
            "args": list(self.args),
            "env": sorted(self.env),
        }
        unwritten = self.unwritten_env()
        if values := {k: v for k, v in self.env.items() if k not in unwritten}:
            record["envValues"] = values
        if self.cwd is not None:
            record["cwd"] = self.cwd
        return record | self._start_record()

    def credential_names(self) -> list[str]:
        """The config's names of what identifies the client to the server (never a value)."""
        names = [f"headers.{k}" for k in sorted(self.headers)]
        names += [f"env.{k}" for k, v in sorted(self.env.items()) if looks_like_credential(k, v) or VARIABLE.search(v)]
        names += ["token"] * (self.token is not None) + ["oauth"] * (self.auth is not None)
        return names

    def unwritten_env(self) -> tuple[str, ...]:
        """The env keys whose values a lockfile must not keep: literal credentials (a `${VAR}` holds none)."""
        return tuple(k for k, v in self.env.items() if not writable_env(k, v))

    def unwritten_notes(self) -> list[str]:
        """One line per env value left out of the lockfile, saying how to make it a `${VAR}` the package reads."""
        return [
            f"server '{self.name}': env.{key} looks like a credential and is not written to the lockfile;"
            f' write {key} = "${{{key}}}" and set {key} in the environment (or pass env= to the package)'
            for key in self.unwritten_env()
        ]

    def literal_credentials(self) -> list[LiteralCredential]:
        """Literal credentials in `args` or `url`, which a lockfile would keep as written (env values are left out
        of it instead, see `unwritten_env`; header values are never written)."""
        if self.transport == "stdio":
            return scrub_args(self.name, self.args)[1]
        return scrub_url(self.name, self.url)[1]

    def refuse_literal_credentials(self) -> None:
        """Before a server is started for a lockfile (`lock`, `lock --check`, `diff --live`): one line naming
        the first literal credential and the variable to write instead, never its value."""
        if found := self.literal_credentials():
            raise ConfigError(found[0].message(self.name))

    def _start_record(self) -> dict[str, Any]:
        """How long the runtime may wait for the server to start: recorded only when not the default."""
        return {} if self.timeout == DEFAULT_TIMEOUT else {"timeout": self.timeout}


@dataclass(frozen=True)
class Config:
    path: Path
    servers: Mapping[str, ServerConfig]
    lockfiles: Path
    output: Path
    lint_ignore: tuple[str, ...] = ()  # `[lint] ignore`, RULE@SERVER/TOOL; rule ids are checked by drift.ignore
    routing: RoutingOptions | None = None  # `[routing]`, as toolset() takes it
    semantic: bool = False  # `[search] semantic`: vendor tool vectors at generate (needs mcpvend[semantic])

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def select(self, names: tuple[str, ...]) -> list[ServerConfig]:
        """The named servers (all when none are named), refusing names the config lacks."""
        if not names:
            return list(self.servers.values())
        unknown = [n for n in names if n not in self.servers]
        if unknown:
            known = ", ".join(self.servers) or "none"
            raise ConfigError(f"{self.path}: no server named {', '.join(map(repr, unknown))} (configured: {known})")
        return [self.servers[n] for n in dict.fromkeys(names)]


def _worth_hiding(named: Mapping[str, str]) -> dict[str, str]:
    """The values `meaningful` keeps (and their decoded forms), each with its name."""
    return {form: name for value, name in named.items() for form in sorted(meaningful([value]))}


def _interpolate(text: str, environ: Mapping[str, str], where: str) -> str:
    try:
        return interpolate(text, environ)
    except MissingVariable as exc:
        raise ConfigError(f"{where} uses ${{{exc.args[0]}}}, which is not set in the environment") from None


def find_config(explicit: Path | None, cwd: Path) -> Path:
    """The config file: the one given, else the first of CONFIG_NAMES that configures us."""
    # A config that is there but cannot be read (a directory, no permission) is reported, not skipped.
    if explicit is not None:
        if not os.path.lexists(explicit):
            raise ConfigError(f"{explicit}: config file not found")
        return explicit
    for name in CONFIG_NAMES:
        candidate = cwd / name
        if not os.path.lexists(candidate):
            continue
        if name == "pyproject.toml" and not _has_our_table(candidate):
            continue
        return candidate
    raise ConfigError(f"no config found in {cwd} (looked for {', '.join(CONFIG_NAMES)} with [tool.mcpvend])")


def _has_our_table(pyproject: Path) -> bool:
    tool = _read_toml(pyproject).get("tool")
    return isinstance(tool, dict) and "mcpvend" in tool


def load_config(path: Path, *, lockfiles: Path | None = None, output: Path | None = None) -> Config:
    """Parse and check a config file; every problem names the file, the server and the key."""
    if path.suffix == ".json":
        table = _mcp_json_table(path)
    elif path.name == "pyproject.toml":
        tool = _read_toml(path).get("tool", {})
        if not isinstance(tool, dict) or "mcpvend" not in tool:
            raise ConfigError(f"{path}: no [tool.mcpvend] table")
        table = tool["mcpvend"]
    else:
        table = _read_toml(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: the mcpvend configuration must be a table")
    unknown = set(table) - _TOP_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key {sorted(unknown)[0]!r} (expected one of {sorted(_TOP_KEYS)})")
    servers_table = table.get("servers", {})
    if not isinstance(servers_table, dict):
        raise ConfigError(f"{path}: 'servers' must be a table of server name to settings")
    servers = {
        name: _server(path, name, raw, foreign=path.suffix == ".json") for name, raw in sorted(servers_table.items())
    }
    base = path.parent
    return Config(
        path=path,
        servers=servers,
        lockfiles=lockfiles or base / _string(path, "", "lockfiles", table.get("lockfiles", "lockfiles")),
        output=output or base / _string(path, "", "output", table.get("output", "generated")),
        lint_ignore=_lint_ignore(path, table.get("lint", {})),
        routing=_routing(path, table.get("routing", {}), servers),
        semantic=_semantic(path, table.get("search", {})),
    )


def _semantic(path: Path, search: object) -> bool:
    if not isinstance(search, dict):
        raise ConfigError(f"{path}: 'search' must be a table")
    if unknown := sorted(set(search) - {"semantic"}):
        raise ConfigError(f"{path}: [search]: unknown key {unknown[0]!r} (expected 'semantic')")
    value = search.get("semantic", False)
    if not isinstance(value, bool):
        raise ConfigError(f"{path}: [search] semantic must be true or false, not {value!r}")
    return value


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


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(files.read_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {read_failure(exc)}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def _mcp_json_table(path: Path) -> dict[str, Any]:
    """Map Claude Desktop / Claude Code / Cursor (`mcpServers`) and VS Code (`servers`) files to ours."""
    try:
        data = json.loads(files.read_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {read_failure(exc)}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: invalid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object with 'mcpServers'")
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: expected a JSON object with 'mcpServers'")
    return {"servers": {k: v for k, v in servers.items() if not (isinstance(v, dict) and v.get("disabled") is True)}}


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
