"""`mcpvend show`: what is locked, how risky each tool says it is, and what each mode would cost in tokens.

Offline (lockfiles only). The token figures are the runtime's own estimates (`runtime.core.specs.tokens`
and `runtime.core.budget.choose`), so `show` predicts exactly what a `ToolSet` would plan.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from mcpvend.config import Config
from mcpvend.counts import plural
from mcpvend.lock.lockfile import Lockfile, task_only
from mcpvend.runtime.core.budget import Budget
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.core.specs import compact_spec, full_spec, tokens
from mcpvend.runtime.toolset import ToolSet

# MCP's defaults when a hint is absent: not read-only, destructive, not idempotent, open world.
_HINTS = (("readOnlyHint", "read-only", False), ("destructiveHint", "destructive", True))
_MORE = (("idempotentHint", "idempotent", False), ("openWorldHint", "open-world", True))


def hints_in_words(tool: Mapping[str, Any]) -> str:
    """The hints in words; an absent hint shows its default in parentheses (a claim nobody made)."""
    given = tool.get("annotations")
    hints: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    words = []
    for key, word, default in (*_HINTS, *_MORE):
        if key == "destructiveHint" and hints.get("readOnlyHint") is True:
            continue  # meaningless for a read-only tool
        value = hints.get(key)
        if value is True or (value is None and default):
            words.append(word if value is True else f"({word})")
    if task_only(tool):
        words.append("runs as a task")
    return ", ".join(words) or "-"


@dataclass(frozen=True)
class ToolRow:
    name: str  # the provider-safe name a model sees
    wire_name: str
    annotations: str
    direct_tokens: int
    compact_tokens: int


@dataclass(frozen=True)
class RejectedRow:
    """A tool the server served that `lock` could not lock: not in the package, whatever a reviewer expects."""

    name: str
    reason: str


@dataclass(frozen=True)
class ServerView:
    server: str
    lockfile: str
    protocol: str
    tools: tuple[ToolRow, ...]
    direct_tokens: int
    compact_tokens: int
    routed_tokens: int
    auto_mode: str
    rejected: tuple[RejectedRow, ...] = ()


def views(config: Config, locks: Mapping[str, Lockfile], budget: Budget) -> tuple[list[ServerView], ServerView]:
    """One view per server, and one for all of them pooled (what `toolset()` with every server gets)."""
    result = []
    every: list[Entry] = []
    for name, lock in locks.items():
        entries = [Entry(name, tool) for tool in lock.tools]
        every += entries
        relative = lock.path.relative_to(config.base_dir) if lock.path.is_relative_to(config.base_dir) else lock.path
        view = _view(name, str(relative), str(lock.document.get("protocolVersion", "")), entries, budget)
        result.append(replace(view, rejected=_rejected(lock)))
    return result, _view("(all)", "", "", every, budget)


def _rejected(lock: Lockfile) -> tuple[RejectedRow, ...]:
    """The lockfile's `rejected` list (entries as `lock` writes them; anything else is skipped, not shown)."""
    return tuple(
        RejectedRow(str(entry.get("name", "")), str(entry.get("reason", "")))
        for entry in lock.document.get("rejected", [])
        if isinstance(entry, dict)
    )


def _view(server: str, lockfile: str, protocol: str, entries: list[Entry], budget: Budget) -> ServerView:
    toolset = ToolSet(Catalog(entries), budget=budget)
    plan = toolset.plan()
    rows = tuple(
        ToolRow(e.provider, e.name, hints_in_words(e.tool), tokens([full_spec(e)]), tokens([compact_spec(e)]))
        for e in toolset.catalog.entries
    )
    return ServerView(
        server, lockfile, protocol, rows, plan.direct_tokens, plan.compact_tokens, plan.routed_tokens, plan.mode
    )


def render_json(servers: list[ServerView], total: ServerView, budget: Budget) -> str:
    document = {
        "budget": {"context_window": budget.context_window, "ratio": budget.ratio, "tokens": budget.tokens},
        "servers": [asdict(v) for v in servers],
        "all": {
            k: v for k, v in asdict(total).items() if k not in ("tools", "lockfile", "protocol", "server", "rejected")
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_text(servers: list[ServerView], total: ServerView, budget: Budget, *, width: int | None = None) -> str:
    """Tables for a terminal (or a CI log): untrusted names are printed as text, never as markup."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=width or 120, file=io.StringIO(), highlight=False, emoji=False, color_system=None)
    for view in servers:
        table = Table(title=Text(f"{view.server}  ({view.lockfile}, protocol {view.protocol})"), title_justify="left")
        for column, justify in (("tool", "left"), ("annotations", "left"), ("direct", "right"), ("compact", "right")):
            table.add_column(column, justify=justify)  # type: ignore[arg-type]
        for row in view.tools:
            table.add_row(Text(row.name), Text(row.annotations), str(row.direct_tokens), str(row.compact_tokens))
        console.print(table)
        if view.rejected:
            title = f"{view.server}: {plural(len(view.rejected), 'tool')} rejected at lock (not in the package)"
            rejected = Table(title=Text(title), title_justify="left")
            rejected.add_column("tool")
            rejected.add_column("reason")
            for tool in view.rejected:
                rejected.add_row(Text(tool.name), Text(tool.reason))
            console.print(rejected)
        console.print(Text(_summary(view, budget)))
        console.print()
    if len(servers) > 1:
        console.print(Text(_summary(total, budget)))
    output = console.file
    assert isinstance(output, io.StringIO)
    return output.getvalue()


def _summary(view: ServerView, budget: Budget) -> str:
    rejected = f", {len(view.rejected)} rejected" if view.rejected else ""
    return (
        f"{view.server}: {plural(len(view.tools), 'tool')}{rejected}; tokens: direct {view.direct_tokens},"
        f" compact {view.compact_tokens},"
        f" routed {view.routed_tokens}; auto at a {budget.context_window:,}-token context: {view.auto_mode}"
    )
