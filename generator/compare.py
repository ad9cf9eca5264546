"""What `diff` and `lint` compare: lockfiles on disk, at a git revision, or a live server."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from generator import lockfile
from generator.config import Config
from generator.drift import Finding, diff_documents
from generator.errors import LockfileError
from generator.report import Section


def read_side(spec: str, cwd: Path) -> dict[str, Any]:
    """A lockfile document from a path, or from `REV:path` in git (verified either way)."""
    path = cwd / spec
    if path.is_file() or ":" not in spec:
        return lockfile.read(path).document
    revision, _, name = spec.partition(":")
    shown = subprocess.run(["git", "show", f"{revision}:{name}"], cwd=cwd, capture_output=True, text=True)
    if shown.returncode != 0:
        reason = shown.stderr.strip().splitlines()[-1] if shown.stderr.strip() else "git show failed"
        raise LockfileError(f"{spec}: cannot read from git: {reason}")
    return lockfile.parse(Path(spec), shown.stdout).document


def diff_specs(old: str, new: str, cwd: Path) -> Section:
    return Section(old, new, diff_documents(read_side(old, cwd), read_side(new, cwd)))


def diff_live(config: Config, server: str, environ: Mapping[str, str]) -> Section:
    """The lockfile of a server against what the server serves now."""
    from generator.snapshot import take_snapshot

    (selected,) = config.select((server,))
    path = lockfile.path_for(config.lockfiles, server)
    locked = lockfile.read(path).document
    snapshot = anyio.run(take_snapshot, selected, config.base_dir, environ)
    live = json.loads(lockfile.dumps(lockfile.build(snapshot)))
    return Section(str(path), f"live server '{server}'", diff_documents(locked, live))


def lint_lockfiles(config: Config, names: tuple[str, ...]) -> list[Section]:
    """The poisoning lint over every text of the named servers' lockfiles."""
    from generator.lint import lint_document

    sections = []
    servers = [s.name for s in config.select(names)]
    for name in servers:
        path = lockfile.path_for(config.lockfiles, name)
        document = lockfile.read(path).document
        hits = lint_document(document, known_servers=[s for s in servers if s != name])
        findings = [
            Finding("poisoning", h.severity, h.tool, h.pointer, f"{h.rule}: {h.message}", detail=h.excerpt, rule=h.rule)
            for h in hits
        ]
        sections.append(Section(str(path), "lint", findings))
    return sections
