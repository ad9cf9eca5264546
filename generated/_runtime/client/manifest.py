# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The reviewed definition of a generated server, read from its `manifest.json`.

A manifest is data, never code: what the generator wrote from the lockfile (the source to
start the server from, the capabilities it was locked with, every tool as reviewed), for
`connect()` and the rest of the runtime.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from .targets import (
    VARIABLE,
    Capability,
    HttpTarget,
    MissingVariable,
    StdioTarget,
    Target,
    interpolate,
    meaningful,
)

MANIFEST = "manifest.json"
DEFAULT_START_TIMEOUT = 30.0  # as `mcpvend lock` waits for a server, unless the config says otherwise
# A locked `python` runs with the interpreter that runs the runtime: a server installed in the
# agent's virtualenv starts whether or not that virtualenv is activated.
_THIS_PYTHON = ("python", "python3")


class ConnectError(Exception):
    """A server could not be reached: a variable, env value or header is missing, or it did not start or answer."""


@dataclass(frozen=True)
class Manifest:
    server: str
    lockfile: str
    source: Mapping[str, Any]
    capabilities: tuple[Capability, ...]
    tools: tuple[Mapping[str, Any], ...]  # {"tool": as reviewed, "method", "input", "output": generated names}

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
        """Where to reach the server now: `${VAR}` expanded, env and headers filled in by name.

        Lockfiles keep only the names of env variables and headers, never their values: an env
        value comes from `env`, else from the process environment; a header value from `headers`.
        Given values may use `${VAR}` too (`{"Authorization": "Bearer ${TOKEN}"}`): they are
        expanded here, when the server is about to start, so a variable is needed only by the
        server that uses it. The values of variables expanded into the url or the arguments are
        the target's secrets (a url's query or userinfo, a `--token ${TOKEN}`); env and header
        values always are. The command and cwd are paths, shown in messages so that a wrong one
        can be found.
        """
        environ = os.environ if environ is None else environ
        secrets: set[str] = set()

        def expand(text: str, secret: bool = False) -> str:
            try:
                value = interpolate(text, environ)
            except MissingVariable as exc:
                raise ConnectError(f"server '{self.server}': set ${{{exc.args[0]}}} to connect") from None
            if secret:
                secrets.update(environ[m.group(1)] for m in VARIABLE.finditer(text) if m.group(1) in environ)
            return value

        given_env = {name: expand(value) for name, value in (env or {}).items()}
        given_headers = {name: expand(value) for name, value in (headers or {}).items()}
        if self.transport == "http":
            missing = [h for h in self.source["headers"] if h not in given_headers]
            if missing:
                raise ConnectError(f"server '{self.server}': pass headers={{{missing[0]!r}: ...}} to connect")
            url = expand(self.source["url"], secret=True)
            return HttpTarget(url=url, headers=given_headers, secrets=meaningful(secrets))
        values: dict[str, str] = {}
        for name in self.source["env"]:
            if name in given_env:
                values[name] = given_env.pop(name)
            elif name in environ:
                values[name] = environ[name]
            else:
                raise ConnectError(f"server '{self.server}': set environment variable {name} (or pass env=) to connect")
        values.update(given_env)
        locked_cwd = self.source.get("cwd")
        command = expand(self.source["command"])
        args = tuple(expand(a, secret=True) for a in self.source["args"])
        return StdioTarget(
            command=sys.executable if command in _THIS_PYTHON else command,
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
    )
