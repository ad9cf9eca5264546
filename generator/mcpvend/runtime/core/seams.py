"""The seams where features plug into the core: what each feature is asked for, and what it gets.

The core (catalog, modes, the call path, a conversation's state) imports no feature. A feature
(audit and telemetry, code mode, the framework adapters, text formats, routing, strict specs) is
composed in by `toolset.py` / `package.py`, above both, and sees a toolset only as `ToolsetView`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .budget import Plan
    from .catalog import Catalog, Entry
    from .results import ModelResult, Outcome
    from .specs import Format, Mode, ToolSpec
    from .steps import Decision


class ToolsetView(Protocol):
    """One conversation's view of a toolset, as a feature uses it (`ToolSet` is one)."""

    @property
    def catalog(self) -> Catalog:
        """The catalog as the current step sees it."""
        ...

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every tool of the toolset, whatever the step (approval lists, say, must cover them all)."""
        ...

    @property
    def mode(self) -> Mode: ...

    @property
    def max_result_chars(self) -> int: ...

    @property
    def instructions(self) -> dict[str, str]:
        """Each server's instructions, as reviewed in its lockfile."""
        ...

    def listing(self, *, deferred: bool = False) -> list[ToolSpec]: ...

    def render(self, tools: Sequence[ToolSpec], format: Format, *, strict: bool = False) -> list[dict[str, Any]]: ...

    @property
    def materialized(self) -> tuple[str, ...]: ...

    def search(self, query: str, limit: int = 10) -> list[Entry]: ...

    def materialize(self, names: Sequence[str]) -> None: ...

    def resolve(self, name: str, arguments: Mapping[str, Any] | None = None) -> Entry | None: ...

    def lookup(self, name: str) -> tuple[Entry | None, str]: ...

    def session(self) -> ToolsetView: ...

    async def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ModelResult: ...

    def call_sync(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ModelResult: ...


class CallObservation(Protocol):
    def done(self, outcome: Outcome) -> None: ...


class RouteObservation(Protocol):
    def done(self, decision: Decision, tools: int) -> None: ...


class Observer(Protocol):
    """Told of what a conversation does (the audit trail and OpenTelemetry spans are one)."""

    def plan(self, plan: Plan) -> None: ...

    def route(self) -> AbstractContextManager[RouteObservation]: ...

    def search(self, query: str, limit: int, hits: list[str]) -> None: ...

    def materialize(self, tools: tuple[str, ...]) -> None: ...

    def call(self, name: str, arguments: Any) -> AbstractContextManager[CallObservation]: ...

    def conversation(self) -> Observer:
        """The same observer, for a new conversation."""
        ...


class CodeRunner(Protocol):
    """Code mode: `run_code` and the sandbox behind it."""

    every_tool: bool  # its description lists every tool's stub, not only the tools found so far

    @property
    def full_tokens(self) -> int: ...

    def listing(self, catalog: Catalog, materialized: Sequence[str]) -> ToolSpec: ...

    async def run(self, toolset: ToolsetView, arguments: Mapping[str, Any]) -> ModelResult: ...

    async def aclose(self) -> None: ...
