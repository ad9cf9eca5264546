"""Whether the config still says what its lockfile recorded.

The generated package starts a server the way its lockfile says (command, args, env values, url,
client capabilities). A config edited since `lock` (`--local-timezone` changed, say) would otherwise
give a package that runs what the config no longer says, with `generate --check` content. `generate`
refuses it, `generate --check` fails, and `lint` reports it, all from `mismatches`.

Cheap on purpose (the pre-commit path): one dict comparison per server; the field-by-field
comparison (`lock.source`) is loaded only when something differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcpvend.errors import MCPVendError

if TYPE_CHECKING:
    from mcpvend.config import ServerConfig
    from mcpvend.lock.source import FieldChange

# Added by `lock` (whose credentials listed the tools), never written in a config.
_LOCK_ONLY = frozenset({"listedWith"})
# How a config names what a lockfile's source records under another name.
_CONFIG_NAMES = {"envValues": "env", "env": "env keys", "headers": "header names"}


class SourceMismatch(MCPVendError):
    """Configured servers differ from their lockfiles: one line each, naming the server and the field."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def mismatches(server: ServerConfig, document: Mapping[str, Any]) -> list[FieldChange]:
    """Every field where `server` as configured differs from the lockfile `document`: its `source` (what
    `source_record` would write now) and its `clientCapabilities`. Old values are the lockfile's, new ones the
    config's, masked by the credentials rule."""
    locked = document.get("source")
    if not isinstance(locked, Mapping):
        return []  # not a lockfile: reading it says so
    recorded = {k: v for k, v in locked.items() if k not in _LOCK_ONLY}
    configured = server.source_record()
    capabilities, locked_capabilities = list(server.capabilities), document.get("clientCapabilities", [])
    if recorded == configured and capabilities == locked_capabilities:
        return []
    from mcpvend.lock.source import FieldChange, changes

    found = changes(recorded, configured)
    if capabilities != locked_capabilities:
        found.append(FieldChange("capabilities", "/clientCapabilities", locked_capabilities, capabilities))
    return found


def describe(server: str, change: FieldChange) -> str:
    """One line for a mismatch, its values masked: `the config's args[3] is 'Europe/Paris', the lockfile's 'UTC';
    run `mcpvend lock time``."""
    head, dot, rest = change.field.partition(".")
    field = _CONFIG_NAMES.get(head, head) + dot + rest
    if change.old is None:
        said = f"the config's {field} is {change.new!r}, the lockfile has none"
    elif change.new is None:
        said = f"the config has no {field}, the lockfile's is {change.old!r}"
    else:
        said = f"the config's {field} is {change.new!r}, the lockfile's {change.old!r}"
    return f"{said}; run `mcpvend lock {server}`"


def refuse_mismatches(servers: Mapping[str, ServerConfig], documents: Mapping[str, Mapping[str, Any]]) -> None:
    """Raise SourceMismatch naming every configured server whose lockfile document says otherwise."""
    lines = [
        f"server '{name}': {describe(name, change)}"
        for name, document in documents.items()
        for change in mismatches(servers[name], document)
    ]
    if lines:
        raise SourceMismatch(lines)
