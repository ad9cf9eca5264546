"""What `diff` and `lint` compare: lockfiles on disk, at a git revision, or a live server."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from mcpvend.config import Config
from mcpvend.drift.compare import Finding, diff_documents
from mcpvend.drift.ignore import Ignore, ignore_for
from mcpvend.drift.lint import lint_document
from mcpvend.drift.section import Section
from mcpvend.errors import LockfileError, read_failure
from mcpvend.lock import lockfile
from mcpvend.lock.agreement import describe, mismatches
from mcpvend.runtime.client import files


def read_side(spec: str, cwd: Path) -> dict[str, Any]:
    """A lockfile document from a path, or from `REV:path` in git (verified either way).

    A revision is never read as an option: `--output=FILE:x` would have `git show` write FILE.
    """
    path = cwd / spec
    if path.is_file() or ":" not in spec:
        return lockfile.read(path).document
    revision, _, name = spec.partition(":")
    if revision.startswith("-"):
        raise LockfileError(f"{spec}: cannot read from git: a revision may not start with '-'")
    try:
        data = _git_show(spec, cwd, f"{revision}:{name}")
    except FileNotFoundError:
        raise LockfileError(f"{spec}: cannot read from git: git is not installed (or not on PATH)") from None
    except OSError as exc:  # on PATH but not runnable (permissions, a broken binary)
        raise LockfileError(f"{spec}: cannot read from git: cannot run git: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LockfileError(f"{spec}: cannot read: {read_failure(exc)}") from None
    return lockfile.parse(Path(spec), text).document


def _git_show(spec: str, cwd: Path, object_name: str) -> bytes:
    """`git show REV:path`, read up to the cap that files on disk have: a committed blob may be of any size."""
    command = ["git", "show", "--end-of-options", object_name]  # whatever it holds, never an option
    with (
        tempfile.TemporaryFile() as errors,  # a file, not a pipe: git cannot block on it while stdout is read
        subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=errors) as shown,
    ):
        assert shown.stdout is not None  # stdout=PIPE
        data = shown.stdout.read(files.MAX_BYTES + 1)
        if len(data) > files.MAX_BYTES:
            shown.kill()
            raise LockfileError(f"{spec}: cannot read from git: {files.TOO_LARGE}")
        if shown.wait() != 0:
            errors.seek(0)
            lines = errors.read(64 * 1024).decode("utf-8", "replace").strip().splitlines()
            raise LockfileError(f"{spec}: cannot read from git: {lines[-1] if lines else 'git show failed'}")
    return data


def diff_specs(old: str, new: str, cwd: Path, config: Config | None = None, ignore: Sequence[str] = ()) -> Section:
    """Two lockfiles; with a config, the other configured servers and `[lint] ignore` count too."""
    exceptions = _exceptions(config, ignore)
    before, after = read_side(old, cwd), read_side(new, cwd)
    artifact = new if (cwd / new).is_file() or ":" not in new else new.partition(":")[2]
    return _reviewed(Section(old, new, (), artifact=artifact, document=after), before, after, config, exceptions)


def diff_live(config: Config, server: str, environ: Mapping[str, str], ignore: Sequence[str] = ()) -> Section:
    """The lockfile of a server against what the server serves now."""
    (selected,) = config.select((server,))
    exceptions = _exceptions(config, ignore)
    locked_file = lockfile.read_for(config.lockfiles, server)  # bad input fails before a server starts
    path, locked = locked_file.path, locked_file.document

    from mcpvend.lock.snapshot import take_snapshot  # the SDK: imported only when a server is to be started

    snapshot = anyio.run(take_snapshot, selected, config.base_dir, environ)
    live = json.loads(lockfile.dumps(lockfile.build(snapshot)))
    section = Section(str(path), f"live server '{server}'", (), artifact=str(path), document=locked)
    return _reviewed(section, locked, live, config, exceptions)


def _exceptions(config: Config | None, ignore: Sequence[str]) -> Ignore:
    return ignore_for(config.path if config else None, config.lint_ignore if config else (), ignore)


def _reviewed(
    section: Section, old: Mapping[str, Any], new: Mapping[str, Any], config: Config | None, exceptions: Ignore
) -> Section:
    """`section` with the findings between `old` and `new`, split by the reviewed exceptions."""
    server = str(new.get("name", ""))
    peers = _locked(config, exclude={server, str(old.get("name", ""))}) if config else {}
    servers = list(config.servers) if config else []
    findings = diff_documents(old, new, known_servers=servers, foreign_tools=_tools(peers.values()))
    kept, accepted = exceptions.split(findings, server)
    return dataclasses.replace(section, findings=kept, ignored=accepted)


def lint_lockfiles(config: Config, names: tuple[str, ...], ignore: Sequence[str] = ()) -> list[Section]:
    """The poisoning lint over every text of the named servers' lockfiles, and whether each still records
    what the config says (`source-mismatch`: the package would run what the config no longer says).

    Every configured server's name and every locked server's tools are known, selected or not, so
    that a description shadowing another server's tool is caught.
    """
    exceptions = _exceptions(config, ignore)
    selected = {s.name: lockfile.read_for(config.lockfiles, s.name) for s in config.select(names)}
    locked = {**_locked(config, exclude=set(selected)), **selected}
    sections = []
    for name, lock in selected.items():
        others = [s for s in config.servers if s != name]
        hits = lint_document(
            lock.document, known_servers=others, foreign_tools=_tools(v for k, v in locked.items() if k != name)
        )
        findings = [
            Finding("poisoning", h.severity, h.tool, h.pointer, f"{h.rule}: {h.message}", detail=h.excerpt, rule=h.rule)
            for h in hits
        ]
        findings += [
            Finding("source-mismatch", "high", "", c.pointer, describe(name, c), old=c.old, new=c.new)
            for c in mismatches(config.servers[name], lock.document)
        ]
        kept, accepted = exceptions.split(findings, name)
        sections.append(Section(str(lock.path), "lint", kept, accepted, str(lock.path), lock.document))
    return sections


def _locked(config: Config, exclude: set[str]) -> dict[str, lockfile.Lockfile]:
    """The other configured servers' lockfiles that can be read: context for the lint, not its subject."""
    found = {}
    for name in config.servers:
        if name not in exclude:
            try:
                found[name] = lockfile.read_for(config.lockfiles, name)
            except LockfileError:  # not locked yet, or broken: its own lint or diff says so
                continue
    return found


def _tools(locks: Iterable[lockfile.Lockfile]) -> frozenset[str]:
    return frozenset(t["name"] for lock in locks for t in lock.tools if isinstance(t.get("name"), str))
