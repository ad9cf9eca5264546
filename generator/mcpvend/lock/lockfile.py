"""The lockfile: a server's tools as served, with digests, in a reviewable, byte-stable form."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpvend.errors import LockfileError, read_failure
from mcpvend.lock.digests import DIGESTED_FIELDS as DIGESTED_FIELDS
from mcpvend.lock.digests import NumberOutOfRange
from mcpvend.lock.digests import canonical as canonical
from mcpvend.lock.digests import digest as digest
from mcpvend.lock.digests import tool_digests as tool_digests
from mcpvend.lock.schema_checks import nesting_problem
from mcpvend.runtime.client import files

if TYPE_CHECKING:
    from mcpvend.config import Config
    from mcpvend.lock.snapshot import Snapshot

# 2: each tool keeps the key and property order it was served in (1 sorted them; still read).
# 3: the source may keep env values (`envValues`); written only by a lockfile that has some (`version_for`).
LOCKFILE_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
SUFFIX = ".lock.json"


def tools_digest(tools: list[dict[str, Any]]) -> str:
    return digest(tools)


def path_for(directory: Path, server: str) -> Path:
    return directory / f"{server}{SUFFIX}"


def version_for(source: Mapping[str, Any]) -> int:
    """The oldest format that holds the source: 3 when it keeps env values, which an mcpvend reading format 2
    would drop (generating a package that asks for them), so it refuses the file instead ("upgrade mcpvend");
    any other lockfile stays format 2, byte for byte what it was."""
    return LOCKFILE_VERSION if "envValues" in source else 2


def build(snapshot: Snapshot) -> dict[str, Any]:
    """The lockfile document for a snapshot; no clock, no host, nothing that varies run to run."""
    server: dict[str, Any] = {"capabilities": snapshot.capabilities, "info": snapshot.server_info}
    if snapshot.instructions is not None:
        server["instructions"] = snapshot.instructions
    source = snapshot.server.source_record()
    credentials = snapshot.server.credential_names()
    if snapshot.private and credentials:  # another credential may be served other tools: say whose listing it is
        source["listedWith"] = {"cacheScope": "private", "credentials": credentials}
    return {
        "lockfileVersion": version_for(source),
        "name": snapshot.server.name,
        "protocolVersion": snapshot.protocol_version,
        "server": server,
        "source": source,
        "clientCapabilities": list(snapshot.server.capabilities),
        "tools": [{"digests": tool_digests(t), "tool": t} for t in snapshot.tools],
        "rejected": [{"name": r.name, "reason": r.reason} for r in snapshot.rejected],
        "digest": tools_digest(snapshot.tools),
    }


def dumps(document: Mapping[str, Any]) -> str:
    """Pretty and newline-terminated, so that a pull request diff reads well.

    Everything is sorted but the tools themselves, which keep the order they were served in: a
    tool's parameters are read (by people, by models) in the order their author chose.
    """
    return json.dumps(as_served(document), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def task_only(tool: Mapping[str, Any]) -> bool:
    """A tool that runs only as a task (`execution.taskSupport: "required"`): mcpvend calls it as one."""
    execution = tool.get("execution")
    return isinstance(execution, Mapping) and execution.get("taskSupport") == "required"


def as_served(document: Mapping[str, Any]) -> dict[str, Any]:
    """`document` with sorted keys, except in each `tools[].tool` (lockfiles and manifests alike)."""
    ordered = _sorted({k: v for k, v in document.items() if k != "tools"})
    if "tools" in document:
        ordered["tools"] = [
            {**_sorted({k: v for k, v in entry.items() if k != "tool"}), "tool": entry["tool"]}
            for entry in document["tools"]
        ]
    return dict(sorted(ordered.items()))


def _sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def same_content(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether two lockfile documents record the same server, whatever their format version or key order."""
    return canonical({**old, "lockfileVersion": None}) == canonical({**new, "lockfileVersion": None})


@dataclass(frozen=True)
class Lockfile:
    """A lockfile read from disk whose digests have been checked against its content."""

    path: Path
    document: dict[str, Any]
    text: str  # as read: what generated code depends on, byte for byte

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
    return parse(path, read_text(path))


def read_text(path: Path) -> str:
    """A lockfile's text, not yet verified (what `generate --check` fingerprints before it parses anything)."""
    try:
        return files.read_text(path)  # a FIFO, a device or a huge file is refused, not read forever
    except FileNotFoundError:
        raise LockfileError(f"{path}: lockfile not found (run `mcpvend lock`)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LockfileError(f"{path}: cannot read: {read_failure(exc)}") from None


def read_for(directory: Path, server: str) -> Lockfile:
    """The verified lockfile of `server`, which must be the lockfile of that server."""
    path = path_for(directory, server)
    return parse_for(server, path, read_text(path))


def parse_for(server: str, path: Path, text: str) -> Lockfile:
    """`text` verified as the lockfile of `server`."""
    lock = parse(path, text)
    if lock.name != server:
        raise LockfileError(f"{lock.path}: holds server {lock.name!r}, expected {server!r}")
    return lock


def read_configured(config: Config, servers: tuple[str, ...] = ()) -> dict[str, Lockfile]:
    """The verified lockfile of each named server (all configured ones when none are named)."""
    return {server.name: read_for(config.lockfiles, server.name) for server in config.select(servers)}


def preflight(directory: Path, server: str, *, check: bool) -> None:
    """Before `lock` starts a server: refuse a lockfile it could not check or should not replace.

    `--check` needs a valid lockfile, or none (a server not locked yet is drift). Locking replaces a
    corrupt lockfile (that is how one is repaired), but not a directory in its place, nor a lockfile
    written by a newer mcpvend, which it would silently downgrade.
    """
    path = path_for(directory, server)
    blocking = _blocking_file(path.parent)
    if blocking is not None:
        verb = "check" if check else "write"
        raise LockfileError(f"server '{server}': cannot {verb} {path}: {blocking} is not a directory")
    if check:
        if os.path.lexists(path):
            read_for(directory, server)
        return
    if os.path.lexists(path) and not path.is_file():
        what = "a directory" if path.is_dir() else "not a regular file"
        raise LockfileError(f"server '{server}': cannot write {path}: it is {what}")
    with contextlib.suppress(OSError, ValueError, RecursionError, AttributeError):
        version = json.loads(files.read_bytes(path)).get("lockfileVersion")
        if type(version) is int and version > LOCKFILE_VERSION:
            raise LockfileError(_newer(path, version))


def _blocking_file(directory: Path) -> Path | None:
    """The file that stands where `directory` or one of its parents should be, if any."""
    for candidate in (directory, *directory.parents):
        if os.path.lexists(candidate):
            return None if candidate.is_dir() else candidate
    return None


def _newer(path: Path, version: int) -> str:
    return f"{path}: lockfile format {version} is newer than this mcpvend reads; upgrade mcpvend"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def parse(path: Path, text: str) -> Lockfile:
    if not text.strip():
        raise LockfileError(f"{path}: the file is empty (run `mcpvend lock` to re-create it)")
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise LockfileError(f"{path}: not valid JSON: {exc}") from None
    except RecursionError:
        raise LockfileError(f"{path}: not valid JSON: nested too deeply") from None
    if not isinstance(document, dict):
        raise LockfileError(f"{path}: not a lockfile (expected a JSON object)")
    version = document.get("lockfileVersion")
    if type(version) is not int or version not in READABLE_VERSIONS:
        if type(version) is int and version > LOCKFILE_VERSION:
            raise LockfileError(_newer(path, version))
        raise LockfileError(
            f"{path}: not a mcpvend lockfile of format {LOCKFILE_VERSION} (lockfileVersion={version!r})"
        )
    required = (("name", str), ("protocolVersion", str), ("tools", list), ("digest", str))
    for key, kind in (*required, ("source", dict), ("server", dict)):
        if not isinstance(document.get(key), kind):
            raise LockfileError(f"{path}: missing or malformed '{key}'")
    values = document["source"].get("envValues", {})  # the runtime starts the server with them
    if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
        raise LockfileError(f"{path}: malformed 'source.envValues' (expected an object of strings)")
    for key in ("clientCapabilities", "rejected"):  # written since format 1, read as optional
        if not isinstance(document.get(key, []), list):
            raise LockfileError(f"{path}: malformed '{key}' (expected a list)")
    tools: list[dict[str, Any]] = []
    for index, entry in enumerate(document["tools"]):
        tool = entry.get("tool") if isinstance(entry, dict) else None
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise LockfileError(f'{path}: tools[{index}] is malformed (expected {{"tool": {{"name": ...}}, ...}})')
        if (why := nesting_problem(tool)) is not None:  # its digests would raise RecursionError
            raise LockfileError(f"{path}: tool {tool['name']!r}: {why}")
        try:
            digests = tool_digests(tool)
        except NumberOutOfRange as exc:
            raise LockfileError(f"{path}: tool {tool['name']!r}: {exc}") from None
        if entry.get("digests") != digests:
            raise LockfileError(
                f"{path}: tool {tool['name']!r} does not match its digests (edited by hand or corrupt);"
                " run `mcpvend lock` to re-create it"
            )
        _check_tool(path, tool)
        tools.append(tool)
    names = [t["name"] for t in tools]
    if names != sorted(names):
        raise LockfileError(f"{path}: tools are not sorted by name (edited by hand?)")
    twice = next((a for a, b in itertools.pairwise(names) if a == b), None)
    if twice is not None:
        raise LockfileError(f"{path}: tool {twice!r} is listed twice")
    if document["digest"] != tools_digest(tools):
        raise LockfileError(f"{path}: the lockfile digest does not match its tools (edited by hand or corrupt)")
    return Lockfile(path=path, document=document, text=text)


# What generated code relies on; a server cannot serve otherwise (the SDK refuses such a tool).
_TOOL_FIELDS: tuple[tuple[str, type, bool], ...] = (
    ("inputSchema", dict, True),
    ("outputSchema", dict, False),
    ("description", str, False),
    ("title", str, False),
    ("annotations", dict, False),
)


def _check_tool(path: Path, tool: dict[str, Any]) -> None:
    """Refuse a tool whose digests match but whose fields no server could have served (a crafted file)."""
    for key, kind, required in _TOOL_FIELDS:
        value = tool.get(key)
        if (value is None and not required) or isinstance(value, kind):
            continue
        expected = "an object" if kind is dict else "a string"
        raise LockfileError(f"{path}: tool {tool['name']!r}: '{key}' must be {expected}, not {_json_type(value)}")


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")
