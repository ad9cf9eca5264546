# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.
"""Which mode a toolset runs in: seed 004's token budget plus seed 000's tool-count limit.

The decision is made once, from numbers the caller can see (`Plan`), and every input to it
can be overridden: a mode chosen for reasons nobody can read is a mode nobody can tune.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .specs import Mode
from .strict import StrictReport

RequestedMode = Literal["auto", "direct", "compact", "routed"]
MODES: tuple[RequestedMode, ...] = ("auto", "direct", "compact", "routed")
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_RATIO = 0.20
DEFAULT_TOOL_LIMIT = (
    40  # above this many tools, models pick worse from a flat list (seed 000)
)
COMPACT_TOKENS_PER_TOOL = 30
MATERIALIZE_CAPS = {
    "small": 2,
    "medium": 5,
    "large": 10,
}  # seed 003: tools in the prompt, by model size


@dataclass(frozen=True)
class Budget:
    """The inputs of the auto rule."""

    context_window: int = DEFAULT_CONTEXT_WINDOW
    ratio: float = DEFAULT_RATIO
    tool_limit: int = DEFAULT_TOOL_LIMIT
    compact_tokens_per_tool: int = COMPACT_TOKENS_PER_TOOL

    def __post_init__(self) -> None:
        if self.context_window <= 0 or not 0 < self.ratio <= 1 or self.tool_limit < 0:
            raise ValueError(
                "context_window must be > 0, ratio in (0, 1] and tool_limit >= 0"
            )
        if self.compact_tokens_per_tool <= 0:
            raise ValueError("compact_tokens_per_tool must be > 0")

    @property
    def tokens(self) -> int:
        return int(self.context_window * self.ratio)


@dataclass(frozen=True)
class Plan:
    """The mode a toolset runs in, and the figures it was chosen from."""

    mode: Mode
    requested: RequestedMode
    reason: str
    tools: int
    budget: Budget
    direct_tokens: int  # every tool with its full schema
    compact_tokens: (
        int  # every tool by name and one line, plus get_tool_schema (measured)
    )
    routed_tokens: int  # the meta-tools alone
    strict: tuple[
        StrictReport, ...
    ] = ()  # per strict format: the tools it cannot send strict, and why

    @property
    def compact_estimate(self) -> int:
        """What the rule counts for compact mode: about 30 tokens a tool."""
        return self.tools * self.budget.compact_tokens_per_tool

    def __str__(self) -> str:
        b = self.budget
        rows = [
            f"mode: {self.mode} ({'chosen by auto' if self.requested == 'auto' else 'forced'}): {self.reason}",
            f"tools: {self.tools} (direct when at most {b.tool_limit})",
            f"budget: {b.tokens} tokens = context window {b.context_window} x {b.ratio:g}",
            f"direct:  {self.direct_tokens:>7} tokens (full schemas)",
            f"compact: {self.compact_tokens:>7} tokens measured, {self.compact_estimate} by the rule "
            f"({self.tools} x {b.compact_tokens_per_tool})",
            f"routed:  {self.routed_tokens:>7} tokens (meta-tools only, plus materialized tools)",
            *map(str, self.strict),
        ]
        return "\n".join(rows)


def choose(
    requested: RequestedMode,
    budget: Budget,
    tools: int,
    direct: int,
    compact: int,
    routed: int,
) -> Plan:
    """Direct if the full schemas fit the budget and the count limit, compact if ~30 tokens a tool fit, else routed."""
    if requested not in MODES:
        raise ValueError(f"unknown mode {requested!r}; use one of {', '.join(MODES)}")
    if requested != "auto":
        return Plan(
            requested,
            requested,
            "set by the caller",
            tools,
            budget,
            direct,
            compact,
            routed,
        )
    estimate = tools * budget.compact_tokens_per_tool
    if direct <= budget.tokens and tools <= budget.tool_limit:
        mode: Mode = "direct"
        reason = f"full schemas ({direct} tokens) fit the budget ({budget.tokens}) and {tools} <= {budget.tool_limit} tools"
    elif estimate <= budget.tokens:
        mode = "compact"
        why = (
            f"{tools} tools > limit {budget.tool_limit}"
            if tools > budget.tool_limit
            else "they exceed the budget"
        )
        reason = f"full schemas do not fit ({why}); {tools} x {budget.compact_tokens_per_tool} = {estimate} tokens do"
    else:
        mode = "routed"
        reason = f"not even names fit: {estimate} tokens > budget {budget.tokens}"
    return Plan(mode, "auto", reason, tools, budget, direct, compact, routed)
