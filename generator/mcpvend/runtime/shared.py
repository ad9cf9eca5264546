"""What every conversation of a toolset shares: built once from the toolset's options, stopped once.

The servers, the catalog and its routing steps, the plan, the call path with its media store, code
mode's sandbox, the audit trail and the blocking callers' event loop belong to the toolset; what one
conversation found and the step it is in belong to that conversation (`core/conversation.py`).
`ToolSet` holds one of these and a conversation, and is the public face of both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import anyio

from .audit.trail import Audit, AuditOptions, AuditTrail
from .client.pool import Pool
from .code.api import CodeApi
from .code.mode import CodeMode, CodeOptions, require
from .code.sandbox import available
from .core.blocking import Blocking
from .core.budget import Budget, Plan, RequestedMode, choose
from .core.calls import CallPath
from .core.catalog import Ambiguous, Catalog
from .core.options import ResultOptions, SearchOptions
from .core.results import MediaStore
from .core.specs import GET_TOOL_SCHEMA, META_TOOLS, compact_spec, full_spec, tokens
from .core.steps import Steps
from .routing.rules import Routing, RoutingOptions
from .strict.rewrite import from_strict
from .textformats.choice import TextOptions, choose_format


@dataclass
class Shared:
    """What every conversation of a toolset shares."""

    steps: Steps
    routing: Routing
    calls: CallPath
    plan: Plan
    code: CodeMode | None
    observer: Audit
    max_materialized: int
    blocking: Blocking

    @classmethod
    def compose(
        cls,
        catalog: Catalog,
        *,
        pool: Pool | None,
        mode: RequestedMode,
        budget: Budget | None,
        search: SearchOptions | None,
        results: ResultOptions | None,
        routing: RoutingOptions | None,
        audit: AuditOptions | None,
        text: TextOptions | None,
        code: CodeOptions | None,
        stubs: CodeApi | None,
    ) -> Shared:
        """The core and the features composed for `ToolSet(...)`'s options: the mode chosen by measured tokens."""
        budget, search, results = budget or Budget(), search or SearchOptions(), results or ResultOptions()
        text, code = text or TextOptions(), code or CodeOptions()
        entries = catalog.entries
        runner = CodeMode(stubs, entries, code.limits) if stubs is not None else None
        if mode == "code":
            require(runner)
        plan = choose(
            mode,
            budget,
            len(entries),
            direct=tokens([full_spec(e) for e in entries]),
            compact=tokens([*(compact_spec(e) for e in entries), GET_TOOL_SCHEMA]),
            routed=tokens(META_TOOLS),
            code=None if runner is None else runner.full_tokens,
            allow_code=code.allow,
            code_available=code.allow and available(),
        )
        secrets = None if pool is None else pool.secret_values
        trail = None if audit is None else AuditTrail(audit.directory, arguments=audit.arguments, secrets=secrets)
        observer = Audit(trail)
        observer.plan(plan)
        call_format = choose_format(text.formats, text.primary, model_tool_calling=text.model_tool_calling)
        plan = replace(plan, format=call_format)
        runner = runner if plan.mode == "code" else None
        if runner is not None:
            runner.every_tool = plan.code_lists_every_tool
        calls = CallPath(pool, MediaStore(results.media_dir), results.max_chars, undo=from_strict, code=runner)
        return cls(
            Steps(catalog),
            Routing(catalog, routing),
            calls,
            plan,
            runner,
            observer,
            search.materialized_cap,
            Blocking(),
        )

    @property
    def call_format(self) -> str:
        """The tool-call format the model gets: native, code, or a text format."""
        return self.plan.format.format if self.plan.format is not None else "native"

    def names_a_tool(self, name: str) -> bool:
        """Does `name` stand for one of the toolset's tools (ambiguous or not offered at this step too)? No search."""
        try:
            return self.steps.catalog.resolve(name) is not None
        except Ambiguous:
            return True

    async def check(self, servers: Sequence[str] | None) -> None:
        """Start the servers now (all, or the named ones)."""
        if self.calls.pool is not None:
            await self.calls.pool.check(servers)

    async def close(self) -> None:
        """Stop the servers, the sandbox and the trail, in the loop the servers run in."""
        if self.blocking.active:  # the servers run in the toolset's own loop
            await anyio.to_thread.run_sync(self.blocking.close, self._stop)
        else:
            await self._stop()

    def close_sync(self) -> None:
        """`close` from code without an event loop."""
        self.blocking.close(self._stop)

    async def _stop(self) -> None:
        if self.calls.pool is not None:
            await self.calls.pool.aclose()
        if self.code is not None:
            await self.code.aclose()
        self.observer.close()
