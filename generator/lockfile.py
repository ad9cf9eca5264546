"""The lockfile: a server's tools as served, with digests, in a reviewable, byte-stable form."""

from __future__ import annotations

import glob
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.errors import LockfileError
from generator.runtime.digests import DIGESTED_FIELDS as DIGESTED_FIELDS
from generator.runtime.digests import canonical as canonical
from generator.runtime.digests import digest as digest
from generator.runtime.digests import tool_digests as tool_digests

if TYPE_CHECKING:
    from generator.snapshot import Snapshot

LOCKFILE_VERSION = 1
SUFFIX = ".lock.json"


def tools_digest(tools: list[dict[str, Any]]) -> str:
    return digest(tools)


def path_for(directory: Path, server: str) -> Path:
    return directory / f"{server}{SUFFIX}"


def build(snapshot: Snapshot) -> dict[str, Any]:
    """The lockfile document for a snapshot; no clock, no host, nothing that varies run to run."""
    server: dict[str, Any] = {"capabilities": snapshot.capabilities, "info": snapshot.server_info}
    if snapshot.instructions is not None:
        server["instructions"] = snapshot.instructions
    return {
        "lockfileVersion": LOCKFILE_VERSION,
        "name": snapshot.server.name,
        "protocolVersion": snapshot.protocol_version,
        "server": server,
        "source": snapshot.server.source_record(),
        "clientCapabilities": list(snapshot.server.capabilities),
        "tools": [{"digests": tool_digests(t), "tool": t} for t in snapshot.tools],
        "rejected": [{"name": r.name, "reason": r.reason} for r in snapshot.rejected],
        "digest": tools_digest(snapshot.tools),
    }


def dumps(document: dict[str, Any]) -> str:
    """Pretty, sorted and newline-terminated, so that a pull request diff reads well."""
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


@dataclass(frozen=True)
class Lockfile:
    """A lockfile read from disk whose digests have been checked against its content."""

    path: Path
    document: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.document["name"])

    @property
    def tools(self) -> list[dict[str, Any]]:
        return [entry["tool"] for entry in self.document["tools"]]

    @property
    def digest(self) -> str:
        return str(self.document["digest"])


def read(path: Path) -> Lockfile:
    """Load and verify a lockfile; anything hand-edited or corrupt is refused with the reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LockfileError(f"{path}: lockfile not found (run `mcpvend lock`)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LockfileError(f"{path}: cannot read: {exc}") from None
    return parse(path, text)


def parse(path: Path, text: str) -> Lockfile:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LockfileError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise LockfileError(f"{path}: not a lockfile (expected a JSON object)")
    version = document.get("lockfileVersion")
    if version != LOCKFILE_VERSION:
        if isinstance(version, int) and version > LOCKFILE_VERSION:
            raise LockfileError(f"{path}: lockfile format {version} is newer than this mcpvend reads; upgrade mcpvend")
        raise LockfileError(
            f"{path}: not a mcpvend lockfile of format {LOCKFILE_VERSION} (lockfileVersion={version!r})"
        )
    for key, kind in (("name", str), ("tools", list), ("digest", str), ("source", dict), ("server", dict)):
        if not isinstance(document.get(key), kind):
            raise LockfileError(f"{path}: missing or malformed '{key}'")
    tools: list[dict[str, Any]] = []
    for index, entry in enumerate(document["tools"]):
        tool = entry.get("tool") if isinstance(entry, dict) else None
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise LockfileError(f"{path}: tools[{index}] is malformed")
        if entry.get("digests") != tool_digests(tool):
            raise LockfileError(
                f"{path}: tool '{tool['name']}' does not match its digests (edited by hand or corrupt);"
                " run `mcpvend lock` to re-create it"
            )
        tools.append(tool)
    if [t["name"] for t in tools] != sorted(t["name"] for t in tools):
        raise LockfileError(f"{path}: tools are not sorted by name (edited by hand?)")
    if document["digest"] != tools_digest(tools):
        raise LockfileError(f"{path}: the lockfile digest does not match its tools (edited by hand or corrupt)")
    return Lockfile(path=path, document=document)


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` in one step: readers see the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _file_mode())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def sweep_temporaries(path: Path) -> None:
    """Remove what a killed `write_atomic` of `path` left: its complete but never renamed temp files.

    They sit in a committed directory, where `git add` would pick them up; nothing else reads them.
    """
    for temp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        temp.unlink(missing_ok=True)


def _file_mode() -> int:
    """The mode a plain `open()` would give: mkstemp's 0600 would hide lockfiles from group and CI users."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
