# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Which mode a toolset runs in: a token budget for the tool listing, plus a limit on how many tools a model sees.

The decision is made once, from numbers the caller can see (`Plan`), and every input to it
can be overridden: a mode chosen for reasons nobody can read is a mode nobody can tune.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from .specs import Mode

_MAX_STRICT_SHOWN = 3  # tools a strict report names
RequestedMode = Literal["auto", "direct", "compact", "routed", "code"]
MODES: tuple[RequestedMode, ...] = ("auto", "direct", "compact", "routed", "code")
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_RATIO = 0.20
DEFAULT_TOOL_LIMIT = 40  # above this many tools, models pick worse from a flat list


@dataclass(frozen=True)
class Budget:
    """The inputs of the auto rule."""

    context_window: int = DEFAULT_CONTEXT_WINDOW
    ratio: float = DEFAULT_RATIO
    tool_limit: int = DEFAULT_TOOL_LIMIT
    # None: compact mode is judged by its listing as measured; a number counts each tool as that
    # many tokens instead (30 is a common rule of thumb), e.g. for a tokenizer denser than json/4.
    compact_tokens_per_tool: int | None = None

    def __post_init__(self) -> None:
        if self.context_window <= 0 or not 0 < self.ratio <= 1 or self.tool_limit < 0:
            raise ValueError("context_window must be > 0, ratio in (0, 1] and tool_limit >= 0")
        if self.compact_tokens_per_tool is not None and self.compact_tokens_per_tool <= 0:
            raise ValueError("compact_tokens_per_tool must be > 0 (or None: the listing as measured)")

    @property
    def tokens(self) -> int:
        return int(self.context_window * self.ratio)


@dataclass(frozen=True)
class FormatChoice:
    """The tool-call format chosen, the formats it was chosen from, and why."""

    format: str
    formats: tuple[str, ...]
    primary: str
    reason: str
    unavailable: tuple[tuple[str, str], ...] = ()  # (format, why), for every listed format that cannot be used
    is_text: bool = False  # a text format (the model writes its calls as text), not native calls or code

    def __str__(self) -> str:
        rows = [f"format: {self.format} (of {', '.join(self.formats)}): {self.reason}"]
        rows += [f"  {name} unavailable: {why}" for name, why in self.unavailable if name != self.primary]
        return "\n".join(rows)


@dataclass(frozen=True)
class StrictReport:
    """Which tools one format gets strict, and why the others are sent non-strict."""

    format: str
    strict: tuple[str, ...]
    fallback: tuple[tuple[str, str], ...]  # (tool, why)

    def __str__(self) -> str:
        total = len(self.strict) + len(self.fallback)
        line = f"strict {self.format}: {len(self.strict)} of {total} tools"
        if not self.fallback:
            return line
        shown = "; ".join(f"{name} ({why})" for name, why in self.fallback[:_MAX_STRICT_SHOWN])
        more = f"; {len(self.fallback) - _MAX_STRICT_SHOWN} more" if len(self.fallback) > _MAX_STRICT_SHOWN else ""
        return f"{line}; sent non-strict: {shown}{more}"


@dataclass(frozen=True)
class Plan:
    """The mode a toolset runs in, and the figures it was chosen from."""

    mode: Mode
    requested: RequestedMode
    reason: str
    tools: int
    budget: Budget
    direct_tokens: int  # every tool with its full schema
    compact_tokens: int  # every tool by name and one line, plus get_tool_schema (measured)
    routed_tokens: int  # the meta-tools alone
    strict: tuple[StrictReport, ...] = ()  # per strict format: the tools it cannot send strict, and why
    format: FormatChoice | None = None  # the tool-call format (native, code, a text format), and why
    code_tokens: int | None = None  # run_code with every tool's stub (None: the package has no stubs)

    @property
    def code_lists_every_tool(self) -> bool:
        """Code mode's description holds every tool's stub (as direct mode would list them), not only found ones."""
        fits = self.code_tokens is not None and self.code_tokens <= self.budget.tokens
        return fits and self.tools <= self.budget.tool_limit

    @property
    def compact_counted(self) -> int:
        """What the rule counts for compact mode: the listing as measured, or tools x the caller's figure."""
        return _compact_rule(self.budget, self.tools, self.compact_tokens)[0]

    def __str__(self) -> str:
        b = self.budget
        per_tool = f"{self.compact_tokens / self.tools:.1f} a tool" if self.tools else "no tools"
        _, counted_as = _compact_rule(b, self.tools, self.compact_tokens)
        counted = "" if b.compact_tokens_per_tool is None else f"; counted as {counted_as}"
        rows = [
            f"mode: {self.mode} ({'chosen by auto' if self.requested == 'auto' else 'forced'}): {self.reason}",
            f"tools: {self.tools} (direct when at most {b.tool_limit})",
            f"budget: {b.tokens} tokens = context window {b.context_window} x {b.ratio:g}",
            f"direct:  {self.direct_tokens:>7} tokens (full schemas)",
            f"compact: {self.compact_tokens:>7} tokens measured ({per_tool}, with get_tool_schema){counted}",
            f"routed:  {self.routed_tokens:>7} tokens (meta-tools only, plus materialized tools)",
            *_code_row(self),
            *map(str, self.strict),
            *([str(self.format)] if self.format is not None else []),
        ]
        return "\n".join(rows)


def _code_row(plan: Plan) -> list[str]:
    if plan.code_tokens is None:
        return []
    found_only = plan.mode == "code" and not plan.code_lists_every_tool
    shown = "; too many to list, so it lists the tools found so far" if found_only else ""
    return [f"code:    {plan.code_tokens:>7} tokens (run_code with every tool's stub{shown})"]


def _compact_rule(budget: Budget, tools: int, measured: int) -> tuple[int, str]:
    """What auto counts for compact mode, and how to say it."""
    if budget.compact_tokens_per_tool is None:
        return measured, f"{measured} tokens measured"
    counted = tools * budget.compact_tokens_per_tool
    return counted, f"{tools} x {budget.compact_tokens_per_tool} = {counted} tokens (compact_tokens_per_tool)"


def choose(
    requested: RequestedMode,
    budget: Budget,
    tools: int,
    direct: int,
    compact: int,
    routed: int,
    *,
    code: int | None = None,
    allow_code: bool = False,
    code_available: bool = False,
) -> Plan:
    """Direct if the full schemas fit the budget and the count limit, compact if its listing fits, else routed.

    Code mode only when asked for, or allowed (`allow_code`) with the sandbox installed and stubs to show.
    """
    if requested not in MODES:
        raise ValueError(f"unknown mode {requested!r}; use one of {', '.join(MODES)}")
    if requested != "auto":
        return Plan(requested, requested, "set by the caller", tools, budget, direct, compact, routed, code_tokens=code)
    if allow_code and code_available and code is not None:
        plan = Plan("code", "auto", "", tools, budget, direct, compact, routed, code_tokens=code)
        listed = "every tool's stub" if plan.code_lists_every_tool else "the tools found so far (too many to list)"
        return replace(plan, reason=f"code allowed and its sandbox installed: run_code lists {listed}")
    counted, counted_as = _compact_rule(budget, tools, compact)
    if direct <= budget.tokens and tools <= budget.tool_limit:
        mode: Mode = "direct"
        reason = (
            f"full schemas ({direct} tokens) fit the budget ({budget.tokens}) and {tools} <= {budget.tool_limit} tools"
        )
    elif counted <= budget.tokens:
        mode = "compact"
        why = f"{tools} tools > limit {budget.tool_limit}" if tools > budget.tool_limit else "they exceed the budget"
        reason = f"full schemas do not fit ({why}); the compact listing does: {counted_as}"
    else:
        mode = "routed"
        reason = f"not even the compact listing fits: {counted_as} > budget {budget.tokens}"
    if allow_code:
        reason += " (code allowed, but " + ("no stubs" if code is None else "pydantic-monty is not installed") + ")"
    return Plan(mode, "auto", reason, tools, budget, direct, compact, routed, code_tokens=code)
