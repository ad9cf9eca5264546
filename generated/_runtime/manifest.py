# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.
"""The reviewed definition of a generated server, read from its `manifest.json`.

A manifest is data, never code: what the generator wrote from the lockfile (the source to
start the server from, the capabilities it was locked with, every tool as reviewed and its
digests), for `connect()` and the rest of the runtime.
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
    StdioTarget,
    Target,
    interpolate,
    meaningful,
)

MANIFEST = "manifest.json"


class ConnectError(Exception):
    """`connect()` failed: a missing variable, env or header, or the server did not start or answer."""


@dataclass(frozen=True)
class Manifest:
    server: str
    lockfile: str
    source: Mapping[str, Any]
    capabilities: tuple[Capability, ...]
    tools: tuple[Mapping[str, Any], ...]

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
        The values of variables expanded into the url or the arguments are the target's secrets
        (a url's query or userinfo, a `--token ${TOKEN}`); env and header values always are.
        The command and cwd are paths, shown in messages so that a wrong one can be found.
        """
        environ = os.environ if environ is None else environ
        given_env, given_headers = dict(env or {}), dict(headers or {})
        secrets: set[str] = set()

        def expand(text: str, secret: bool = False) -> str:
            try:
                value = interpolate(text, environ)
            except MissingVariable as exc:
                raise ConnectError(
                    f"server '{self.server}': set ${{{exc.args[0]}}} to connect"
                ) from None
            if secret:
                secrets.update(
                    environ[m.group(1)]
                    for m in VARIABLE.finditer(text)
                    if m.group(1) in environ
                )
            return value

        if self.source["transport"] == "http":
            missing = [h for h in self.source["headers"] if h not in given_headers]
            if missing:
                raise ConnectError(
                    f"server '{self.server}': pass headers={{{missing[0]!r}: ...}} to connect"
                )
            url = expand(self.source["url"], secret=True)
            return HttpTarget(
                url=url, headers=given_headers, secrets=meaningful(secrets)
            )
        values: dict[str, str] = {}
        for name in self.source["env"]:
            if name in given_env:
                values[name] = given_env.pop(name)
            elif name in environ:
                values[name] = environ[name]
            else:
                raise ConnectError(
                    f"server '{self.server}': set environment variable {name} (or pass env=) to connect"
                )
        values.update(given_env)
        locked_cwd = self.source.get("cwd")
        args = tuple(expand(a, secret=True) for a in self.source["args"])
        return StdioTarget(
            command=expand(self.source["command"]),
            args=args,
            env=values,
            cwd=(
                cwd if cwd is not None else (expand(locked_cwd) if locked_cwd else None)
            ),
            secrets=meaningful(secrets),
        )


def load_manifest(package: str) -> Manifest:
    """The manifest shipped beside a generated server subpackage."""
    data = json.loads(
        resources.files(package).joinpath(MANIFEST).read_text(encoding="utf-8")
    )
    return Manifest(
        server=data["server"],
        lockfile=data["lockfile"],
        source=data["source"],
        capabilities=tuple(data["clientCapabilities"]),
        tools=tuple(data["tools"]),
    )
