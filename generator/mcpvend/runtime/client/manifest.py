"""The reviewed definition of a generated server, read from its `manifest.json`.

A manifest is data, never code: what the generator wrote from the lockfile (the source to
start the server from, the capabilities it was locked with, every tool as reviewed), for
`connect()` and the rest of the runtime.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from .targets import (
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

MANIFEST = "manifest.json"
MODERN = "2026-07-28"
DEFAULT_START_TIMEOUT = 30.0  # as `mcpvend lock` waits for a server, unless the config says otherwise


class ConnectError(Exception):
    """A server could not be reached: a variable, env value or header is missing, or it did not start or answer."""


@dataclass(frozen=True)
class Manifest:
    server: str
    lockfile: str
    source: Mapping[str, Any]
    capabilities: tuple[Capability, ...]
    tools: tuple[Mapping[str, Any], ...]  # {"tool": as reviewed, "method", "input", "output": generated names}
    protocol_version: str | None = None  # the era the server was locked in
    # The server's capabilities as locked (its tasks extension, 2026-07-28); None: the manifest records none.
    server_capabilities: Mapping[str, Any] | None = None
    instructions: str | None = None  # the server's, as reviewed in its lockfile

    @property
    def protocol(self) -> Protocol:
        """The era to speak: the legacy handshake for tools reviewed before 2026-07-28; else negotiated, which
        finds 2026-07-28 where the server still speaks it (`pinned_client` refuses one that does not)."""
        legacy = self.protocol_version is not None and self.protocol_version != MODERN
        return "legacy" if legacy else "auto"

    @property
    def checked(self) -> dict[str, Mapping[str, Any]]:
        """Input schemas, by tool, holding a pattern no engine here checks in bounded time: its model leaves
        the pattern out (pydantic would search it with `re`), so the typed wrapper validates the schema."""
        return {
            str(entry["tool"]["name"]): entry["tool"]["inputSchema"] for entry in self.tools if entry.get("checked")
        }

    @property
    def reviewed(self) -> tuple[Mapping[str, Any], ...]:
        """Each tool as reviewed in the lockfile, as its server served it."""
        return tuple(entry["tool"] for entry in self.tools)

    @property
    def transport(self) -> str:
        return str(self.source["transport"])

    @property
    def start_timeout(self) -> float:
        """How long starting the server may take: the config's `timeout` when the server was locked."""
        return float(self.source.get("timeout", DEFAULT_START_TIMEOUT))

    def target(
        self,
        *,
        env: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        cwd: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Target:
        """Where to reach the server now, with the environment `mcpvend lock` started it with.

        The lockfile keeps each env value as the config wrote it (`TZ = "UTC"`, `${GITHUB_TOKEN}`,
        `${LEVEL:-info}`), except a literal credential, of which it keeps the name only (as lockfiles
        older than these values keep every one). An env value comes from `env`, else from the
        lockfile (its `${VAR}`s expanded now), else, for a name alone, from the process environment;
        a header value from `headers`. Given values may use `${VAR}` too (`{"Authorization": "Bearer
        ${TOKEN}"}`). Everything is expanded here, when the server is about to start, so a variable is
        needed only by the server that uses it. The values of variables expanded into the url or the
        arguments are the target's secrets (a url's query or userinfo, a `--token ${TOKEN}`); env and
        header values always are. The command and cwd are paths, shown in messages so that a wrong one
        can be found; `python` is the interpreter that runs this code (`executable`).
        """
        environ = os.environ if environ is None else environ
        secrets: set[str] = set()

        def expand(text: str, secret: bool = False, env_name: str | None = None) -> str:
            try:
                value = interpolate(text, environ)
            except MissingVariable as exc:
                variable = exc.args[0]
                if env_name is None:
                    raise ConnectError(f"server '{self.server}': set ${{{variable}}} to connect") from None
                raise ConnectError(
                    f"server '{self.server}': set environment variable {variable} (env {env_name} uses"
                    f" ${{{variable}}}) or pass env={{{env_name!r}: ...}} to connect"
                ) from None
            if secret:
                secrets.update(environ[m.group(1)] for m in VARIABLE.finditer(text) if m.group(1) in environ)
            return value

        given_env = {name: expand(value) for name, value in (env or {}).items()}
        given_headers = {name: expand(value) for name, value in (headers or {}).items()}
        if self.transport != "stdio":
            missing = [h for h in self.source["headers"] if h not in given_headers]
            if missing:
                raise ConnectError(f"server '{self.server}': pass headers={{{missing[0]!r}: ...}} to connect")
            if "token" in self.source and "Authorization" not in given_headers:  # `token = "${X_TOKEN}"`
                given_headers["Authorization"] = f"Bearer {expand(self.source['token'], secret=True)}"
            auth = self.source.get("auth")
            oauth = None if auth is None else OAuth(self.server, tuple(auth["scopes"]), auth.get("clientId"))
            url = expand(self.source["url"], secret=True)
            secret = meaningful(secrets)
            return HttpTarget(url, given_headers, secret, sse=self.transport == "sse", oauth=oauth)
        recorded: Mapping[str, str] = self.source.get("envValues", {})
        values: dict[str, str] = {}
        for name in self.source["env"]:
            if name in given_env:
                values[name] = given_env.pop(name)
            elif name in recorded:
                values[name] = expand(recorded[name], secret=True, env_name=name)
            elif name in environ:
                values[name] = environ[name]
            else:
                raise ConnectError(f"server '{self.server}': set environment variable {name} (or pass env=) to connect")
        values.update(given_env)
        locked_cwd = self.source.get("cwd")
        command = expand(self.source["command"])
        args = tuple(expand(a, secret=True) for a in self.source["args"])
        return StdioTarget(
            command=executable(command),
            args=args,
            env=values,
            cwd=cwd if cwd is not None else (expand(locked_cwd) if locked_cwd else None),
            secrets=meaningful(secrets),
        )


def load_manifest(package: str) -> Manifest:
    """The manifest shipped beside a generated server subpackage."""
    data = json.loads(resources.files(package).joinpath(MANIFEST).read_text(encoding="utf-8"))
    return Manifest(
        server=data["server"],
        lockfile=data["lockfile"],
        source=data["source"],
        capabilities=tuple(data["clientCapabilities"]),
        tools=tuple(data["tools"]),
        protocol_version=data.get("protocolVersion"),
        server_capabilities=data.get("serverCapabilities"),
        instructions=data.get("instructions"),
    )
