"""`mcpvend lock`: snapshot servers concurrently and write (or check) their lockfiles."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio

from mcpvend.config import Config, ServerConfig
from mcpvend.errors import MCPVendError
from mcpvend.lock import lockfile
from mcpvend.lock.digests import NumberOutOfRange, canonical
from mcpvend.lock.snapshot import Rejected, take_snapshot
from mcpvend.runtime.client import files
from mcpvend.runtime.client.files import sweep_temporaries, write_atomic

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
    notes: tuple[str, ...] = ()  # warnings that do not stop the lock (an env value not written)


class Reporter(Protocol):
    def started(self, servers: list[str]) -> None: ...
    def finished(self, outcome: Outcome) -> None: ...


# Why a live server differs from its lockfile, one line a change: drift's classification, passed
# in by the caller so that locking depends on nothing downstream of it.
Explain = Callable[[Mapping[str, Any] | None, Mapping[str, Any]], Sequence[str]]


def _unexplained(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> Sequence[str]:
    return ["no lockfile yet"] if old is None else ["the live server differs from the lockfile"]


def exit_code(outcomes: list[Outcome]) -> int:
    """0 all well, 1 a check found drift, 2 a server failed (the contract CI scripts rely on)."""
    if any(o.status == "failed" for o in outcomes):
        return 2
    return 1 if any(o.status == "drifted" for o in outcomes) else 0


def lock(
    config: Config,
    names: tuple[str, ...],
    *,
    check: bool,
    environ: Mapping[str, str],
    reporter: Reporter,
    explain: Explain = _unexplained,
    jobs: int | None = None,
) -> list[Outcome]:
    """Lock (or, with `check`, compare) the named servers at once; one failure costs no other.

    `jobs` caps how many servers run at the same time (each one is a process, or a connection
    that may be rate-limited); None runs them all at once. Bad input (an unknown server, a literal
    credential the lockfile would keep, a lockfile that cannot be checked or replaced) fails before
    any server starts.
    """
    servers = config.select(names)
    for server in servers:
        server.refuse_literal_credentials()
        lockfile.preflight(config.lockfiles, server.name, check=check)
    reporter.started([s.name for s in servers])
    return anyio.run(_lock_all, config, servers, check, environ, reporter, explain, jobs)


async def _lock_all(
    config: Config,
    servers: list[ServerConfig],
    check: bool,
    environ: Mapping[str, str],
    reporter: Reporter,
    explain: Explain,
    jobs: int | None,
) -> list[Outcome]:
    outcomes: dict[str, Outcome] = {}
    slots = anyio.CapacityLimiter(jobs or max(len(servers), 1))

    async def one(server: ServerConfig) -> None:
        async with slots:  # a server's timeout starts when it does, not while it waits for a slot
            outcome = await _lock_one(config, server, check, environ, explain)
        outcomes[server.name] = outcome
        reporter.finished(outcome)

    async with anyio.create_task_group() as group:
        for server in servers:
            group.start_soon(one, server)
    return [outcomes[s.name] for s in servers]


def _deprecated(server: ServerConfig, version: str) -> list[str]:
    """MCP 2026-07-28 deprecates the sampling and roots capabilities: a note where one is still advertised."""
    old = [c for c in server.capabilities if c in ("sampling", "roots")]
    if version != "2026-07-28" or not old:
        return []
    return [
        f"server '{server.name}': protocol 2026-07-28 deprecates the client capabilities {', '.join(old)};"
        " keep them only while the server still asks for them"
    ]


def _per_credential(listed: Mapping[str, Any]) -> str:
    names = ", ".join(listed.get("credentials") or []) or "no credential"
    return f"the server lists its tools per credential (cacheScope: private); this listing was taken with: {names}"


async def _lock_one(
    config: Config, server: ServerConfig, check: bool, environ: Mapping[str, str], explain: Explain
) -> Outcome:
    path = lockfile.path_for(config.lockfiles, server.name)
    try:
        snapshot = await take_snapshot(server, config.base_dir, environ)
    except MCPVendError as exc:
        return Outcome(server.name, "failed", path, detail=str(exc))
    old = _existing(path)
    try:
        document = lockfile.build(snapshot)
        canonical(document)  # the server's own info or capabilities may hold what no digest can take
    except NumberOutOfRange as exc:
        return Outcome(server.name, "failed", path, detail=f"server '{server.name}': cannot be locked: {exc}")
    base = Outcome(
        server.name,
        "locked",
        path,
        tools=len(snapshot.tools),
        rejected=tuple(snapshot.rejected),
        notes=(*server.unwritten_notes(), *_deprecated(server, snapshot.protocol_version)),
    )
    if check:  # what the server serves, whatever the format of the file that records it
        if old is not None and lockfile.same_content(old, document):
            return replace(base, status="up to date")
        private = document["source"].get("listedWith")
        scope = () if private is None else (_per_credential(private),)
        return replace(base, status="drifted", changes=(*scope, *explain(old, document)))
    # Equal canonical forms are the same lockfile: a server that sends its keys in another order
    # this time changes nothing on disk.
    same = old is not None and canonical(old) == canonical(document)
    try:
        if not same:
            write_atomic(path, lockfile.dumps(document))
        sweep_temporaries(path)
    except OSError as exc:
        return Outcome(server.name, "failed", path, detail=f"server '{server.name}': cannot write {path}: {exc}")
    return replace(base, status="unchanged") if same else replace(base, detail=f"protocol {snapshot.protocol_version}")


def _existing(path: Path) -> dict[str, Any] | None:
    """The lockfile on disk as a document; None when there is none or it is unreadable."""
    try:
        document = json.loads(files.read_text(path))
        canonical(document)  # NumberOutOfRange is a ValueError: such a file is re-created like a corrupt one
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None
