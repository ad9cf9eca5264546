# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""What every framework adapter shares: the tools to list at this step, which calls wait for approval,
and a conversation's found tools read back from its history.

A framework lists tools, checks a call's name against them and asks for approval by tool name;
it cannot see through routed mode's `call_tool` to the tool it reaches. So a call through
`call_tool` to a tool that needs approval does not run: the tool is listed from the next step on,
and the model is told to call it by its own name, where the framework's approval applies.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..core.catalog import Entry
from ..core.results import ModelResult, error_result
from ..core.specs import CALL_TOOL, META_NAMES, opened

if TYPE_CHECKING:
    from ..core.seams import ToolsetView

Approval = Literal["destructive", "always"]


def needs_approval(entry: Entry, policy: Approval | None) -> bool:
    """ "destructive" reads the reviewed annotations with MCP's defaults: a tool that does not say it is
    read-only may write, and what it writes may destroy unless it says `destructiveHint: false`."""
    if policy is None:
        return False
    if policy == "always":
        return True
    annotations = entry.tool.get("annotations")
    if not isinstance(annotations, Mapping):
        return True
    return annotations.get("readOnlyHint") is not True and annotations.get("destructiveHint") is not False


@dataclass(frozen=True)
class Definition:
    """A tool as a framework declares it."""

    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool  # `parameters` are in OpenAI's strict form
    annotations: Mapping[str, Any] | None
    deferred: bool = False  # for the framework's tool search to find, not listed until then


class Bridge:
    """One conversation's view of a toolset, with the adapter's approval policy and strictness."""

    def __init__(self, toolset: ToolsetView, *, approval: Approval | None = None, strict: bool = False) -> None:
        self.toolset = toolset
        self.approval: Approval | None = approval
        self.strict = strict

    def view(self) -> Bridge:
        """A fresh conversation on the same servers."""
        return Bridge(self.toolset.session(), approval=self.approval, strict=self.strict)

    def definitions(self, *, deferred: bool = False) -> list[Definition]:
        """The tools of the current mode, as of now: in routed mode, what this conversation found.

        `deferred=True`, for a framework with a tool search of its own: in routed mode that search
        replaces the meta-tools but `call_tool`, and every tool of the step not found yet is deferred.
        """
        specs, hidden = self.toolset.listing(), set[str]()
        if deferred and self.toolset.mode == "routed":
            specs = [CALL_TOOL, *self.toolset.listing(deferred=True)]
            hidden = {spec.name for spec in specs[1:]} - set(self.toolset.materialized)
        if self.strict:
            rendered = self.toolset.render(specs, "openai-responses", strict=True)
        else:
            rendered = [opened(spec).render("openai-responses") for spec in specs]
        return [
            Definition(r["name"], r["description"], r["parameters"], r["strict"], spec.annotations, spec.name in hidden)
            for spec, r in zip(specs, rendered, strict=True)
        ]

    def entry(self, name: str) -> Entry | None:
        return None if name in META_NAMES else self.toolset.resolve(name)

    def approval_required(self, name: str) -> bool:
        """Whether a call of `name` (a listed name, not a meta-tool) waits for approval."""
        entry = self.entry(name)
        return entry is not None and needs_approval(entry, self.approval)

    def approval_names(self) -> list[str]:
        """Every tool name that waits for approval, listed now or later (at any routing step)."""
        return [e.provider for e in self.toolset.entries if needs_approval(e, self.approval)]

    async def call(self, name: str, arguments: Mapping[str, Any] | str | None) -> ModelResult:
        redirect = self._redirect(name, arguments)
        return redirect if redirect is not None else await self.toolset.call(name, arguments)

    def call_sync(self, name: str, arguments: Mapping[str, Any] | str | None) -> ModelResult:
        redirect = self._redirect(name, arguments)
        return redirect if redirect is not None else self.toolset.call_sync(name, arguments)

    def _redirect(self, name: str, arguments: Mapping[str, Any] | str | None) -> ModelResult | None:
        target = self._held_back(name, arguments)
        if target is None:
            return None
        self.materialize([target.provider])
        return error_result(
            f"'{target.provider}' needs the user's approval, which call_tool cannot ask for: "
            f"call '{target.provider}' itself (it is now among your tools) with the same arguments",
            retry=True,
        )

    def recall(self, history: Iterable[tuple[str, Any, Any]]) -> None:
        """Find again, in order, the tools an earlier part of the conversation found or was sent to.

        `history` holds (tool name, arguments, result content) for each call the model made.
        """
        for name, arguments, content in history:
            if name == "search_tools":
                self.materialize(_found(content))
            elif (target := self._held_back(name, arguments)) is not None:
                self.materialize([target.provider])
            elif name not in META_NAMES:
                self.materialize([name])

    def _held_back(self, name: str, arguments: Any) -> Entry | None:
        """The tool a `call_tool` call reaches, when that tool waits for approval (which call_tool cannot ask)."""
        if name != "call_tool" or self.approval is None or not isinstance(arguments, Mapping):
            return None
        target = self.toolset.resolve(name, arguments)
        return target if target is not None and needs_approval(target, self.approval) else None

    def materialize(self, names: list[str]) -> None:
        """List these tools from the next step on (routed mode; the others list every tool already)."""
        known = [entry.provider for name in names if (entry := self.toolset.resolve(name)) is not None]
        if known and self.toolset.mode == "routed":
            self.toolset.materialize(known)


def _found(content: Any) -> list[str]:
    """The tool names a `search_tools` result listed (the text the model read, or its data)."""
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return []
    tools = content.get("tools") if isinstance(content, Mapping) else None
    if not isinstance(tools, list):
        return []
    return [tool["name"] for tool in tools if isinstance(tool, Mapping) and isinstance(tool.get("name"), str)]
