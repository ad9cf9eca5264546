"""The typed config: each server as written (strings may hold `${VAR}`s, kept unexpanded), and what it becomes.

Values are expanded only when a server is started (`ServerConfig.target`), so that `generate` never
needs the environment and nothing expanded is ever recorded; `source_record` is what a lockfile keeps.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mcpvend.credentials import (
    LiteralCredential,
    arg_secret_values,
    looks_like_credential,
    scrub_args,
    scrub_url,
    url_secret_values,
    writable_env,
)
from mcpvend.errors import ConfigError
from mcpvend.runtime.client.targets import (
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

DEFAULT_TIMEOUT = 30.0


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
    search_model: Path | None = None  # `[search] model`: a local copy of the upstream model, for mcpvend-minilm's

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
