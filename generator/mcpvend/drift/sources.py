"""What `diff` and `lint` compare: lockfiles on disk, at a git revision, or a live server."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from mcpvend.config import Config
from mcpvend.drift.compare import Finding, diff_documents
from mcpvend.drift.report import Section
from mcpvend.errors import LockfileError, read_failure
from mcpvend.lock import lockfile


def read_side(spec: str, cwd: Path) -> dict[str, Any]:
    """A lockfile document from a path, or from `REV:path` in git (verified either way)."""
    path = cwd / spec
    if path.is_file() or ":" not in spec:
        return lockfile.read(path).document
    revision, _, name = spec.partition(":")
    try:
        shown = subprocess.run(["git", "show", f"{revision}:{name}"], cwd=cwd, capture_output=True)
    except FileNotFoundError:
        raise LockfileError(f"{spec}: cannot read from git: git is not installed (or not on PATH)") from None
    except OSError as exc:  # on PATH but not runnable (permissions, a broken binary)
        raise LockfileError(f"{spec}: cannot read from git: cannot run git: {exc.strerror or exc}") from None
    if shown.returncode != 0:
        lines = shown.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LockfileError(f"{spec}: cannot read from git: {lines[-1] if lines else 'git show failed'}")
    try:
        text = shown.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LockfileError(f"{spec}: cannot read: {read_failure(exc)}") from None
    return lockfile.parse(Path(spec), text).document


def diff_specs(old: str, new: str, cwd: Path) -> Section:
    return Section(old, new, diff_documents(read_side(old, cwd), read_side(new, cwd)))


def diff_live(config: Config, server: str, environ: Mapping[str, str]) -> Section:
    """The lockfile of a server against what the server serves now."""
    (selected,) = config.select((server,))
    locked_file = lockfile.read_for(config.lockfiles, server)  # bad input fails before a server starts
    path, locked = locked_file.path, locked_file.document

    from mcpvend.lock.snapshot import take_snapshot  # the SDK: imported only when a server is to be started

    snapshot = anyio.run(take_snapshot, selected, config.base_dir, environ)
    live = json.loads(lockfile.dumps(lockfile.build(snapshot)))
    return Section(str(path), f"live server '{server}'", diff_documents(locked, live))


def lint_lockfiles(config: Config, names: tuple[str, ...]) -> list[Section]:
    """The poisoning lint over every text of the named servers' lockfiles."""
    from mcpvend.drift.lint import lint_document

    sections = []
    servers = [s.name for s in config.select(names)]
    for name in servers:
        locked = lockfile.read_for(config.lockfiles, name)
        path, document = locked.path, locked.document
        hits = lint_document(document, known_servers=[s for s in servers if s != name])
        findings = [
            Finding("poisoning", h.severity, h.tool, h.pointer, f"{h.rule}: {h.message}", detail=h.excerpt, rule=h.rule)
            for h in hits
        ]
        sections.append(Section(str(path), "lint", findings))
    return sections
