"""`.mcpvend.json`: what an output was generated from, so that `generate --check` on an unchanged tree
answers without running the code generator (the pre-commit path), and one changed lockfile
regenerates one server.

A server's fingerprint covers its lockfile, renames and paths, and the toolchain: mcpvend's version,
the formatter and model generator versions, the templates and the vendored runtime. The rest of
mcpvend's source is represented by its version; while developing mcpvend itself, the golden-record
test (a fresh generation compared byte for byte) catches staleness.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpvend import __version__
from mcpvend.codegen.render import template_sources
from mcpvend.codegen.vendor import runtime_sources
from mcpvend.config.find import find_config
from mcpvend.config.raw import directories, mcpvend_table
from mcpvend.errors import MCPVendError
from mcpvend.runtime.client.files import read_bytes, read_text

if TYPE_CHECKING:
    from mcpvend.config import Config

STATE = ".mcpvend.json"  # marks a directory as ours, and records what generated it
# What formats or generates the bytes of the output, besides mcpvend itself (isort orders the
# model modules' imports for datamodel-code-generator).
TOOLCHAIN_DISTRIBUTIONS = ("black", "datamodel-code-generator", "isort")


def tree_files(root: Path) -> Iterator[str]:
    """Files under `root` as posix paths, without the caches Python leaves behind (`os.walk`: `rglob` took
    half of the pre-commit path's reading)."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        where = os.path.relpath(folder, root).replace(os.sep, "/")
        found += [n if where == "." else f"{where}/{n}" for n in names if not n.endswith(".pyc")]
    yield from sorted(found)


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@cache
def toolchain() -> str:
    """A digest of the versions, templates and vendored runtime every server's output depends on.

    Each source is hashed as it is read, after its name and length: the pre-commit path reads the whole
    runtime, and serializing it first cost as much as reading it.
    """
    versions = [__version__, *(installed_version(d) for d in TOOLCHAIN_DISTRIBUTIONS)]
    digest = hashlib.sha256(json.dumps(versions).encode())
    for name, text in [*sorted(template_sources().items()), *runtime_sources()]:
        data = text.encode()
        digest.update(f"\0{name}\0{len(data)}\0".encode())
        digest.update(data)
    return "sha256:" + digest.hexdigest()


def installed_version(distribution: str) -> str:
    """A distribution's version, read off its `.dist-info` directory name.

    `importlib.metadata` parses every distribution's metadata to answer: that alone cost more than
    the rest of `generate --check`. It stays the fallback for installs it knows and this does not.
    """
    prefix = distribution.replace("-", "_").lower() + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info") and name.lower().startswith(prefix):
                return name[len(prefix) : -len(".dist-info")]
    from importlib import metadata

    return metadata.version(distribution)


def fingerprint(config: Config, name: str, path: Path, text: str) -> str:
    """What one server's output depends on: its lockfile's text, renames and paths, and the toolchain."""
    relative = os.path.relpath(path, config.base_dir)
    part = [toolchain(), name, relative, dict(config.servers[name].rename), text]
    part += ["semantic"] if config.semantic else []  # vectors.json joins the output
    if config.search_model is not None:  # and is made with that model
        part.append(os.path.relpath(config.search_model, config.base_dir))
    return sha256(json.dumps(part, sort_keys=True, ensure_ascii=False).encode())


def config_key(config: Path, lockfiles: Path, texts: Mapping[str, bytes]) -> str:
    """What the whole output depends on besides the toolchain, as files: the config's bytes and each configured
    server's lockfile's, and where the lockfiles are beside the config (the same key in any clone, for any output)."""
    parts = [
        config.name,
        sha256(read_bytes(config)),
        os.path.relpath(lockfiles, config.parent),
        {name: sha256(data) for name, data in texts.items()},
    ]
    return sha256(json.dumps(parts, sort_keys=True).encode())


def unchanged(
    config: Path | None, lockfiles: Path | None, output: Path | None, cwd: Path
) -> tuple[Path, int, int] | None:
    """`generate --check` when nothing changed: the output, its servers and tools, if the config, every lockfile,
    the toolchain and every generated file are what the recorded generation had; else None (look closer).

    Reads the config's table as written, never checks it key by key, and parses no lockfile: a generation
    checked all of that from these very bytes (it refuses a config its lockfiles disagree with). Like every
    record here, a pull request can edit it: `--full` (CI) trusts none.
    """
    try:
        path = find_config(config, cwd)
        table = mcpvend_table(path)
        lockfiles, output = directories(path, table, lockfiles, output)
        servers = table.get("servers", {})
        previous = read_state(output)
        if previous is None or not isinstance(servers, dict) or not same_toolchain(previous):
            return None
        texts = {name: read_bytes(lockfiles / f"{name}.lock.json") for name in servers}  # lockfile.path_for's rule
        if previous.get("config") != config_key(path, lockfiles, texts):
            return None
    except (MCPVendError, OSError, ValueError):
        return None  # the full path says what is wrong
    tools = fresh_tools(output, previous, previous["servers"])
    return None if tools is None else (output, len(previous["servers"]), tools)


def render_state(inputs: Mapping[str, str], files: Mapping[str, str], tools: int, key: str) -> str:
    """The record: each server's fingerprint, the config key (`unchanged`), the toolchain, every file's hash."""
    hashes = {path: sha256(text.encode()) for path, text in sorted(files.items()) if path != STATE}
    state = {
        "generator": "mcpvend",
        "toolchain": toolchain(),
        "config": key,
        "servers": inputs,
        "files": hashes,
        "tools": tools,
    }
    return json.dumps(state, sort_keys=True, indent=2) + "\n"


def read_state(output: Path) -> dict[str, Any] | None:
    try:
        state = json.loads(read_text(output / STATE))
    except (OSError, ValueError):
        return None
    ok = isinstance(state, dict) and isinstance(state.get("servers"), dict) and isinstance(state.get("files"), dict)
    return state if ok else None


def same_toolchain(state: Mapping[str, Any] | None) -> bool:
    return state is not None and state.get("toolchain") == toolchain()


def reusable(output: Path, state: Mapping[str, Any] | None, prefix: str) -> dict[str, str] | None:
    """The files under `prefix` from disk, if each has the hash the previous run recorded (the
    caller has checked that they were made from the same inputs)."""
    recorded: Mapping[str, str] = state["files"] if state is not None else {}
    paths = {p: h for p, h in recorded.items() if p.startswith(prefix)}
    try:
        data = {p: read_bytes(output / p) for p in paths}
    except OSError:
        return None
    if not paths or any(sha256(data[p]) != h for p, h in paths.items()):
        return None
    return {p: content.decode("utf-8") for p, content in data.items()}


def fresh_tools(output: Path, state: Mapping[str, Any] | None, inputs: Mapping[str, str]) -> int | None:
    """How many tools the output holds, when it is fresh (see `is_fresh`) and says so; else None."""
    tools = None if state is None else state.get("tools")
    return tools if isinstance(tools, int) and is_fresh(output, state, inputs) else None


def is_fresh(output: Path, state: Mapping[str, Any] | None, inputs: Mapping[str, str]) -> bool:
    """True when the output was generated from these inputs and no file has changed since."""
    if state is None or state["servers"] != inputs or set(state["files"]) != set(tree_files(output)) - {STATE}:
        return False
    try:
        return all(sha256(read_bytes(output / path)) == digest for path, digest in state["files"].items())
    except OSError:
        return False


def differences(output: Path, files: Mapping[str, str]) -> list[str]:
    """What differs between the package on disk and the one the lockfiles give (the state file aside)."""
    on_disk = set(tree_files(output)) if output.is_dir() else set()
    found = []
    for path in sorted(set(files) - {STATE}):
        if path not in on_disk:
            found.append(f"missing: {path}")
        elif _on_disk(output / path) != files[path].encode():
            found.append(f"changed: {path}")
    found += [f"extra: {path}" for path in sorted(on_disk - set(files))]
    return found


def _on_disk(path: Path) -> bytes | None:
    """A file's bytes, or None (so it differs) when it cannot be read: unreadable, too large."""
    try:
        return read_bytes(path)
    except OSError:
        return None
