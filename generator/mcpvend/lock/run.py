"""`mcpvend lock`: snapshot servers concurrently and write (or check) their lockfiles."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio

from mcpvend.config import Config, ServerConfig
from mcpvend.errors import MCPVendError
from mcpvend.lock import lockfile
from mcpvend.lock.snapshot import Rejected, take_snapshot

Status = Literal["locked", "unchanged", "up to date", "drifted", "failed"]


@dataclass(frozen=True)
class Outcome:
    """What happened to one server; `detail` is a ready-to-print explanation."""

    server: str
    status: Status
    path: Path
    detail: str = ""
    tools: int = 0
    rejected: tuple[Rejected, ...] = ()
    changes: tuple[str, ...] = field(default=())


class Reporter(Protocol):
    def started(self, servers: list[str]) -> None: ...
    def finished(self, outcome: Outcome) -> None: ...


def exit_code(outcomes: list[Outcome]) -> int:
    """0 all well, 1 a check found drift, 2 a server failed (the contract CI scripts rely on)."""
    if any(o.status == "failed" for o in outcomes):
        return 2
    return 1 if any(o.status == "drifted" for o in outcomes) else 0


def lock(
    config: Config, names: tuple[str, ...], *, check: bool, environ: Mapping[str, str], reporter: Reporter
) -> list[Outcome]:
    """Lock (or, with `check`, compare) the named servers at once; one failure costs no other."""
    servers = config.select(names)
    reporter.started([s.name for s in servers])
    return anyio.run(_lock_all, config, servers, check, environ, reporter)


async def _lock_all(
    config: Config, servers: list[ServerConfig], check: bool, environ: Mapping[str, str], reporter: Reporter
) -> list[Outcome]:
    outcomes: dict[str, Outcome] = {}

    async def one(server: ServerConfig) -> None:
        outcome = await _lock_one(config, server, check, environ)
        outcomes[server.name] = outcome
        reporter.finished(outcome)

    async with anyio.create_task_group() as group:
        for server in servers:
            group.start_soon(one, server)
    return [outcomes[s.name] for s in servers]


async def _lock_one(config: Config, server: ServerConfig, check: bool, environ: Mapping[str, str]) -> Outcome:
    path = lockfile.path_for(config.lockfiles, server.name)
    try:
        snapshot = await take_snapshot(server, config.base_dir, environ)
    except MCPVendError as exc:
        return Outcome(server.name, "failed", path, detail=str(exc))
    document = lockfile.build(snapshot)
    text = lockfile.dumps(document)
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    except (OSError, UnicodeDecodeError):
        old = ""
    base = Outcome(server.name, "locked", path, tools=len(snapshot.tools), rejected=tuple(snapshot.rejected))
    if check:
        if old == text:
            return replace(base, status="up to date")
        return replace(base, status="drifted", changes=tuple(changes(old, document)))
    try:
        if old != text:
            lockfile.write_atomic(path, text)
        lockfile.sweep_temporaries(path)
    except OSError as exc:
        return Outcome(server.name, "failed", path, detail=f"server '{server.name}': cannot write {path}: {exc}")
    return (
        replace(base, status="unchanged")
        if old == text
        else replace(base, detail=f"protocol {snapshot.protocol_version}")
    )


def changes(old_text: str | None, new: dict[str, Any]) -> list[str]:
    """What differs between the lockfile on disk and the live server, one classified line each."""
    from mcpvend.drift.compare import diff_documents

    if old_text is None:
        return ["no lockfile yet"]
    try:
        old = json.loads(old_text)
        findings = diff_documents(old, new)
    except (ValueError, KeyError, TypeError, AttributeError):
        return ["the existing lockfile is unreadable"]
    lines = [f"{f.severity} {f.kind}: {f.tool or '(server)'} {f.pointer or '/'}: {f.message}" for f in findings]
    return lines or ["formatting differs"]
