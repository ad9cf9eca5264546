# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""`ToolSet`: the reviewed tools of one or more servers, handed to an LLM in direct, compact, routed or code mode.

The model only ever sees reviewed text (the manifest's descriptions and schemas); whatever it calls,
in whatever mode, comes back as a `ModelResult`, never as an exception. The specs are built the same
way every time, so provider prompt caches hit.

A `ToolSet` is one conversation's view of what its toolset shares (`shared.py`: servers, catalog, plan,
media store, sandbox, audit trail): `session()` gives another conversation a view of its own. `shared.py`
composes the core with the features (routing, audit, strict specs, text formats, code mode); this module
is their public face; its `for_*` methods come from `frameworks/adapters.py`. The core knows none of them. Names
follow one rule: a method that waits on a server is async (`call`, `route`, `check`, `close`), its
blocking twin ends in `_sync`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, Unpack

from .audit.trail import Audit, AuditOptions
from .client.pool import Pool
from .code.api import CodeApi
from .code.mode import CodeOptions
from .core.budget import Budget, Plan, RequestedMode
from .core.catalog import Ambiguous, Catalog, Entry
from .core.conversation import Conversation
from .core.options import ResultOptions, SearchOptions
from .core.results import MediaStore, ModelResult
from .core.specs import (
    GET_TOOL_SCHEMA,
    META_NAMES,
    META_TOOLS,
    Format,
    Mode,
    ToolSpec,
    compact_spec,
    full_spec,
    with_tool_search,
)
from .core.steps import Decision, RouteInputs, StepInputs
from .frameworks.adapters import FrameworkAdapters
from .routing.rules import RoutingOptions
from .shared import Shared
from .strict.rewrite import strict_reports, strict_specs
from .textformats import prompting
from .textformats.calls import MAX_CALLS, CallError, ParsedCall, ParsedCalls
from .textformats.choice import TextOptions, text_format
from .textformats.prompting import Prepared


class ToolSet(FrameworkAdapters):
    """Tools for a model: `plan()`, `tool_specs(format)`, and `await call(name, arguments)`.

    Use it as `async with` (or `with`, or `await close()`) so that the servers it started are stopped.
    Made by the generated package's `toolset(...)`; `catalog` alone gives a toolset that lists tools
    and calls none (`pool`: the servers). `search.ranker` applies where the catalog is built.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        pool: Pool | None = None,
        mode: RequestedMode = "auto",
        budget: Budget | None = None,
        search: SearchOptions | None = None,
        results: ResultOptions | None = None,
        routing: RoutingOptions | None = None,
        audit: AuditOptions | None = None,
        text: TextOptions | None = None,
        code: CodeOptions | None = None,
        stubs: CodeApi | None = None,
    ) -> None:
        shared = Shared.compose(
            catalog,
            pool=pool,
            mode=mode,
            budget=budget,
            search=search,
            results=results,
            routing=routing,
            audit=audit,
            text=text,
            code=code,
            stubs=stubs,
        )
        self._attach(shared, shared.observer, owner=True)

    def _attach(self, shared: Shared, observer: Audit, *, owner: bool) -> None:
        self._shared = shared
        self._owner = owner  # only the toolset itself stops the servers and the sandbox, never a session view
        routed = shared.plan.mode == "routed"
        self._conversation = Conversation(
            shared.steps, observer, max_materialized=shared.max_materialized, routed=routed
        )

    # --- what the model sees -----------------------------------------------------------------

    def plan(self) -> Plan:
        """The mode, the token figures it was chosen from, and which tools each strict format cannot make strict."""
        return replace(self._shared.plan, strict=strict_reports(self.listing()))

    @property
    def mode(self) -> Mode:
        return self._shared.plan.mode

    @property
    def catalog(self) -> Catalog:
        """The tools as the current step sees them (every tool, until a route decides otherwise)."""
        return self._conversation.catalog

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every tool of the toolset, whatever the current step."""
        return self._shared.steps.catalog.entries

    @property
    def decision(self) -> Decision | None:
        """The current step's routing decision (None: none was made; every tool)."""
        return self._conversation.decision

    @property
    def max_result_chars(self) -> int:
        return self._shared.calls.max_chars

    @property
    def pool(self) -> Pool | None:
        """The server connections (how often each was restarted, say); None for a toolset that calls nothing."""
        return self._shared.calls.pool

    @property
    def instructions(self) -> dict[str, str]:
        """Each server's instructions, as reviewed in its lockfile, by server (those that send some)."""
        pool = self._shared.calls.pool
        connections = pool.connections.items() if pool is not None else ()
        return {server: c.manifest.instructions for server, c in sorted(connections) if c.manifest.instructions}

    @property
    def media(self) -> MediaStore:
        """Where images and audio of results are kept, by digest."""
        return self._shared.calls.media

    @property
    def materialized(self) -> tuple[str, ...]:
        """The tools found by search that routed (and code) mode offers directly, in spec order."""
        return self._conversation.materialized

    def listing(self, *, deferred: bool = False) -> list[ToolSpec]:
        """The tools of the current mode, as specs: what `tool_specs` renders for each provider.

        `deferred=True`: every tool of the current step in full, for a tool search to load on demand.
        """
        code, catalog = self._shared.code, self._conversation.catalog
        if deferred:
            if code is not None:
                raise ValueError("code mode offers run_code, not tools a tool search could load")
            return [full_spec(e) for e in catalog.entries]
        if code is not None:
            return [code.listing(catalog, self.materialized)]
        if self.mode == "direct":
            return [full_spec(e) for e in catalog.entries]
        if self.mode == "compact":
            return [*(compact_spec(e) for e in catalog.entries), GET_TOOL_SCHEMA]
        return [*META_TOOLS, *(full_spec(catalog.by_provider[n]) for n in self.materialized)]

    def tool_specs(
        self, format: Format = "openai", *, strict: bool = False, deferred: bool = False
    ) -> list[dict[str, Any]]:
        """The tools to hand the model, as plain dicts in the provider's format.

        `strict=True` ("openai", "openai-responses", "anthropic"): each tool in the provider's strict
        form where it has one, the others as usual (`plan()` names them); `call` maps the nulls back.
        `deferred=True` ("anthropic", "openai-responses"): the provider's tool search, then every tool of
        the step with `defer_loading`, so the model loads what it searches for; `call` takes their names.
        """
        rendered = self.render(self.listing(deferred=deferred), format, strict=strict)
        return with_tool_search(rendered, format) if deferred else rendered

    def render(self, tools: Sequence[ToolSpec], format: Format, *, strict: bool = False) -> list[dict[str, Any]]:
        """Specs in a provider's format (strict: each in its strict form where it has one)."""
        return strict_specs(tools, format)[0] if strict else [spec.render(format) for spec in tools]

    def search(self, query: str, limit: int = 10) -> list[Entry]:
        """The tools of the current step that best match `query` (nothing is offered: see `materialize`)."""
        return self._conversation.search(query, limit)

    def materialize(self, names: Sequence[str]) -> None:
        """Offer these tools directly in routed mode (within the cap), as if search had found them."""
        providers = []
        for name in names:
            entry, problem = self.lookup(name)
            if entry is None:
                raise KeyError(problem)
            providers.append(entry.provider)
        self._conversation.materialize(providers)

    def reset(self) -> None:
        """Forget materialized tools (say, when a new user message starts a new task)."""
        self._conversation.reset()

    def resolve(self, name: str, arguments: Mapping[str, Any] | None = None) -> Entry | None:
        """The reviewed tool a call would run (through `call_tool` too); None for other meta-tools and unknown names."""
        if name == "call_tool":
            target = (arguments or {}).get("name")
            name = target if isinstance(target, str) else ""
        if not name or name in META_NAMES:
            return None
        try:
            return self._conversation.catalog.resolve(name)
        except Ambiguous:
            return None

    def lookup(self, name: str) -> tuple[Entry | None, str]:
        """The tool a name the model wrote stands for, or why there is none (said for the model to act on)."""
        return self._conversation.lookup(name)

    # --- routing: which bundles a step may use --------------------------------------------------

    async def route(self, **inputs: Unpack[StepInputs]) -> Decision:
        """Choose the next step's bundles by the rules (a model router decides what no rule does; its answer
        is checked, and if unusable the default applies) and expose only their tools."""
        with self._conversation.observer.route() as record:
            return self._conversation.step(await self._shared.routing.decide(RouteInputs(**inputs)), record)

    def route_sync(self, **inputs: Unpack[StepInputs]) -> Decision:
        """`route` by the rules alone (a toolset with a model router must `await route(...)`)."""
        with self._conversation.observer.route() as record:
            return self._conversation.step(self._shared.routing.decide_sync(RouteInputs(**inputs)), record)

    def expose(self, bundles: Sequence[str] | None) -> None:
        """Offer only these bundles' tools from now on (None: every tool), as a route decision does."""
        chosen = self._shared.steps.chosen(bundles)
        current = None if self.decision is None else self.decision.bundles
        if chosen.bundles != current:
            with self._conversation.observer.route() as record:
                self._conversation.step(chosen, record)

    # --- what the model does ---------------------------------------------------------------------

    async def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ModelResult:
        """Run one tool call the model made, in any mode: a meta-tool, a provider name or a real tool name.

        `arguments` may be the JSON string a provider sends. Problems become error results.
        """
        with self._conversation.observer.call(name, arguments) as record:  # its record in the trail, and its span
            outcome = await self._shared.calls.run(self, self._conversation, name, arguments)
            record.done(outcome)
            return outcome.result

    def call_sync(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ModelResult:
        """`call` for code without an event loop; the servers then run on a thread of the toolset's own
        (a toolset's servers serve one event loop: use its async calls or its blocking ones, not both)."""
        return self._shared.blocking.run(self.call, name, arguments)

    # --- text tool-call formats, for models without native tool calling -------------------------

    @property
    def call_format(self) -> str:
        """The tool-call format the model gets: native, code, or a text format (`plan()` says why)."""
        return self._shared.call_format

    def text_prompt(self, format: str | None = None) -> str:
        """This mode's tools as system-prompt text in a text format (default: the one chosen)."""
        return text_format(format or self.call_format).prompt(self.listing())

    def parse_calls(self, text: str, format: str | None = None, *, max_calls: int = MAX_CALLS) -> ParsedCalls:
        """The tool calls in a model's text, named as this toolset knows them; never raises on model text.

        A call in a slightly wrong shape that names a tool (Hermes JSON without its tags, say) is read, or
        is a `CallError` showing the format's form; past `max_calls`, one `CallError` says the rest were not read.
        """
        fmt = text_format(format or self.call_format)
        names = self._conversation.catalog.by_provider
        return prompting.parse(fmt, text, self.lookup, names, resolves=self._shared.names_a_tool, limit=max_calls)

    def text_calls(self, calls: Sequence[ParsedCall], format: str | None = None) -> str:
        """Calls written as the model writes them in a text format (for history or few-shot examples)."""
        return text_format(format or self.call_format).render_calls(calls)

    def text_result(
        self, call: ParsedCall | CallError, result: ModelResult, *, format: str | None = None, role: str | None = None
    ) -> dict[str, str]:
        """The message that gives the model one call's result (or a `CallError`'s), in the format's own role."""
        return prompting.result_message(text_format(format or self.call_format), call, result, role)

    def prepare(self, user_message: str, *, spec_format: Format = "openai", strict: bool = False) -> Prepared:
        """Turn one: search the tools with the user's message, offer the hits (up to the model-size cap), and
        return what the first request needs: specs, or prompt text for a text format. The model can still
        call `search_tools` later."""
        found = self.search(user_message, self._shared.max_materialized)
        self._conversation.materialize([e.provider for e in found])
        names = tuple(e.provider for e in found)
        chosen = self._shared.plan.format
        if chosen is not None and chosen.is_text:
            return Prepared(self.call_format, names, prompt=self.text_prompt())
        return Prepared(self.call_format, names, specs=self.tool_specs(spec_format, strict=strict))

    # --- conversations -------------------------------------------------------------------------

    def session(self) -> ToolSet:
        """A view for one conversation: `async with ts.session() as conversation: ...`.

        It shares the catalog, the plan, the media store and the running servers, and has its own found
        tools and routing step (none yet: every tool), so one toolset serves many conversations at once
        without one's searches or steps changing another's tool list. Closing it stops nothing.
        """
        view = object.__new__(ToolSet)
        view._attach(self._shared, self._shared.observer.conversation(), owner=False)
        return view

    # --- lifetime ------------------------------------------------------------------------------

    async def check(self, servers: Sequence[str] | None = None) -> None:
        """Start every server of the toolset now (or the named ones), for those who would rather fail fast.

        Raises `ConnectError` naming each server that cannot start and why (a missing variable,
        a command not found, a timeout); the servers that could start stay started.
        """
        await self._shared.check(servers)

    def check_sync(self, servers: Sequence[str] | None = None) -> None:
        """`check` for code without an event loop."""
        self._shared.blocking.run(self.check, servers)

    async def close(self) -> None:
        """Stop every server this toolset started, and its sandbox (a session view leaves them to its toolset)."""
        if self._owner:
            await self._shared.close()

    def close_sync(self) -> None:
        """`close` for code without an event loop (after `call_sync`, LangChain's `invoke`)."""
        if self._owner:
            self._shared.close_sync()

    def __enter__(self) -> ToolSet:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close_sync()

    async def __aenter__(self) -> ToolSet:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
