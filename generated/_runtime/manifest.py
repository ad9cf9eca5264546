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
    Capability,
    HttpTarget,
    MissingVariable,
    StdioTarget,
    Target,
    interpolate,
)

MANIFEST = "manifest.json"


class ConnectError(Exception):
    """The locked server cannot be reached as configured (a missing variable, env or header)."""


@dataclass(frozen=True)
class Manifest:
    server: str
    lockfile: str
    digest: str
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
        """
        environ = os.environ if environ is None else environ
        given_env, given_headers = dict(env or {}), dict(headers or {})

        def expand(text: str) -> str:
            try:
                return interpolate(text, environ)
            except MissingVariable as exc:
                raise ConnectError(
                    f"server '{self.server}': set ${{{exc.args[0]}}} to connect"
                ) from None

        if self.source["transport"] == "http":
            missing = [h for h in self.source["headers"] if h not in given_headers]
            if missing:
                raise ConnectError(
                    f"server '{self.server}': pass headers={{{missing[0]!r}: ...}} to connect"
                )
            return HttpTarget(url=expand(self.source["url"]), headers=given_headers)
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
        return StdioTarget(
            command=expand(self.source["command"]),
            args=tuple(expand(a) for a in self.source["args"]),
            env=values,
            cwd=(
                cwd if cwd is not None else (expand(locked_cwd) if locked_cwd else None)
            ),
        )


def load_manifest(package: str) -> Manifest:
    """The manifest shipped beside a generated server subpackage."""
    data = json.loads(
        resources.files(package).joinpath(MANIFEST).read_text(encoding="utf-8")
    )
    return Manifest(
        server=data["server"],
        lockfile=data["lockfile"],
        digest=data["digest"],
        source=data["source"],
        capabilities=tuple(data["clientCapabilities"]),
        tools=tuple(data["tools"]),
    )
