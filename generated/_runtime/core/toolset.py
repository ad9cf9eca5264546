# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""`ToolSet`: the reviewed tools of one or more servers, handed to an LLM in direct, compact or routed mode.

The model only ever sees reviewed text (the manifest's descriptions and schemas); whatever it
calls, in whatever mode, comes back as a `ModelResult`, never as an exception: a wrong
argument returns the schema, an unknown name returns suggestions, a crashed server returns
what happened. The specs are built the same way every time, so provider prompt caches hit.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import EllipsisType, TracebackType
from typing import Any, Unpack

import anyio

from ..audit.trail import Audit, AuditTrail, CallRecord, RouteRecord
from ..client.pinning import DriftError
from ..client.pool import CallFailed, Pool
from ..code.api import CodeApi
from ..code.mode import RUN_CODE, CodeMode, require
from ..code.sandbox import CodeLimits, available
from ..frameworks import adapters
from ..routing.rules import Decision, RouteInputs, Routing, StepInputs
from ..strict.rewrite import from_strict, strict_reports, strict_specs
from ..textformats.choice import FormatChoice, choose_format
from ..textformats import prompting
from ..textformats.prompting import Prepared
from . import checks, meta_tools
from .blocking import Blocking
from .budget import MATERIALIZE_CAPS, Budget, Plan, RequestedMode, choose
from .catalog import Ambiguous, Catalog, Entry
from .results import DEFAULT_MAX_CHARS, MediaStore, ModelResult, error_result, normalize
from .specs import GET_TOOL_SCHEMA, META_NAMES, META_TOOLS, Format, Mode, ToolSpec, compact_spec, full_spec, tokens

_META = {spec.name: spec for spec in META_TOOLS}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class ToolSet:
    """Tools for a model: `plan()`, `tool_specs(format)`, and `await call(name, arguments)`.

    Use it as `async with` (or `await aclose()`) so that the servers it started are stopped.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        pool: Pool | None = None,
        mode: RequestedMode = "auto",
        budget: Budget | None = None,
        max_materialized: int = MATERIALIZE_CAPS["medium"],
        max_result_chars: int = DEFAULT_MAX_CHARS,
        media: MediaStore | None = None,
        routing: Routing | None = None,
        audit: AuditTrail | None = None,
        call_format: FormatChoice | None = None,
        code_api: CodeApi | None = None,
        code_limits: CodeLimits | None = None,
        allow_code: bool = False,
    ) -> None:
        self.catalog = catalog  # as the current step sees it: `route()` narrows it (`routing.catalog` is all)
        self.pool = pool
        self.max_materialized = max_materialized
        self.max_result_chars = max_result_chars
        self.media = media or MediaStore()
        self._recent: list[str] = []  # materialized provider names, most recently found first
        self._owns_pool = True  # a session view shares its toolset's servers and leaves them running
        self._blocking = Blocking()  # shared by the views, like the servers it runs
        entries = catalog.entries
        code = CodeMode(code_api, entries, code_limits) if code_api is not None else None
        if mode == "code":
            require(code)
        self._plan = choose(
            mode,
            budget or Budget(),
            len(entries),
            direct=tokens([full_spec(e) for e in entries]),
            compact=tokens([*(compact_spec(e) for e in entries), GET_TOOL_SCHEMA]),
            routed=tokens(META_TOOLS),
            code=None if code is None else code.full_tokens,
            allow_code=allow_code,
            code_available=allow_code and available(),
        )
        self.routing = routing or Routing(catalog)
        self.decision: Decision | None = None  # the current step's, once routed
        self.audit = Audit(audit)
        self.audit.plan(self._plan)
        self._plan = replace(self._plan, format=call_format or choose_format())
        self._code = code if self._plan.mode == "code" else None  # the sandbox: shared by every session view
        if self._code is not None:
            self._code.every_tool = self._plan.code_lists_every_tool

    # --- what the model sees ---------------------------------------------------------------

    def plan(self) -> Plan:
        """The mode, the token figures it was chosen from, and which tools each strict format cannot make strict."""
        return replace(self._plan, strict=strict_reports(self.specs()))

    @property
    def mode(self) -> Mode:
        return self._plan.mode

    @property
    def materialized(self) -> tuple[str, ...]:
        """The tools found by search that routed mode offers directly, in spec order."""
        found = [name for name in self._recent if name in self.catalog.by_provider]  # in this step's bundles
        return tuple(sorted(found[: self.max_materialized]))

    def specs(self) -> list[ToolSpec]:
        if self._code is not None:
            return [self._code.listing(self.catalog, self.materialized)]
        if self.mode == "direct":
            return [full_spec(e) for e in self.catalog.entries]
        if self.mode == "compact":
            return [*(compact_spec(e) for e in self.catalog.entries), GET_TOOL_SCHEMA]
        return [*META_TOOLS, *(full_spec(self.catalog.by_provider[n]) for n in self.materialized)]

    def tool_specs(
        self, format: Format = "openai", *, strict: bool = False, bundles: Sequence[str] | EllipsisType | None = ...
    ) -> list[dict[str, Any]]:
        """The tools to hand the model, as plain dicts in the provider's format.

        `strict=True` ("openai", "openai-responses", "anthropic"): each tool in the provider's strict
        form where it has one, the others as usual (`plan()` names them); `call` maps the nulls back.
        `bundles`: these bundles' tools only (None: every tool), from now on, as `expose` does;
        left out, the current step's (see `route`).
        """
        if not isinstance(bundles, EllipsisType):
            self.expose(bundles)
        if strict:
            return strict_specs(self.specs(), format)[0]
        return [spec.render(format) for spec in self.specs()]

    def search(self, query: str, limit: int = 10) -> list[Entry]:
        """Search the tools and materialize the hits (seed 003: run it on the user's message first)."""
        hits = self.catalog.search(query, limit)
        self.audit.search(query, limit, [e.provider for e in hits])
        self._promote([e.provider for e in hits])
        return hits

    def materialize(self, names: Sequence[str]) -> None:
        """Offer these tools directly in routed mode (within the cap), as if search had found them."""
        self._promote([self._entry(name).provider for name in names])

    def _promote(self, found: list[str]) -> None:
        offered = self.materialized
        self._recent = found + [name for name in self._recent if name not in found]
        if self.mode == "routed" and self.materialized != offered:
            self.audit.materialize(self.materialized)

    def reset(self) -> None:
        """Forget materialized tools (say, when a new user message starts a new task)."""
        self._recent = []

    # --- the routing phase (seed 002) --------------------------------------------------------

    def route(self, **inputs: Unpack[StepInputs]) -> Decision:
        """Choose the next step's bundles by the rules (or `default_bundles`) and expose only their tools.

        With a model router configured, use `await aroute(...)`: what no rule decides goes to it.
        """
        with self.audit.route() as record:
            return self._step(self.routing.decide(RouteInputs(**inputs)), record)

    async def aroute(self, **inputs: Unpack[StepInputs]) -> Decision:
        """`route`, and the model router decides what no rule does (its answer is checked; if unusable: the default)."""
        with self.audit.route() as record:
            return self._step(await self.routing.adecide(RouteInputs(**inputs)), record)

    def expose(self, bundles: Sequence[str] | None) -> None:
        """Offer only these bundles' tools from now on (None: every tool), as a route decision does."""
        chosen = self.routing.chosen(bundles)
        if chosen.bundles != (None if self.decision is None else self.decision.bundles):
            with self.audit.route() as record:
                self._step(chosen, record)

    def _step(self, decision: Decision, record: RouteRecord) -> Decision:
        self.decision, self.catalog = decision, self.routing.view(decision)
        record.done(decision, len(self.catalog.entries))
        return decision

    # --- what the model does ----------------------------------------------------------------

    async def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ModelResult:
        """Run one tool call the model made, in any mode: a meta-tool, a provider name or a real tool name.

        `arguments` may be the JSON string a provider sends. Problems become error results.
        """
        with self.audit.call(name, arguments) as record:  # its record in the audit trail, and its span
            return record.end(await self._call(name, arguments, record))

    async def _call(self, name: str, arguments: Mapping[str, Any] | str | None, record: CallRecord) -> ModelResult:
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                error = self._error(f"the arguments of '{name}' are not valid JSON: {exc}", retry=True)
                return record.end(error, "invalid_arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            error = self._error(
                f"the arguments of '{name}' must be a JSON object, not {type(arguments).__name__}", retry=True
            )
            return record.end(error, "invalid_arguments")
        if name == RUN_CODE and self._code is not None:
            return record.end(await self._code.run(self, arguments))
        if name in META_NAMES:
            return await self._meta(name, arguments, record)
        return await self._call_tool(name, arguments, record)

    async def _meta(self, name: str, arguments: Mapping[str, Any], record: CallRecord) -> ModelResult:
        spec = _META[name]
        arguments = from_strict(spec.input_schema, arguments)
        problem = checks.schema_problem(spec.input_schema, arguments)
        if problem:
            error = f"invalid arguments for {name}: {problem}\nIts input schema: {_json(spec.input_schema)}"
            return record.end(self._error(error, retry=True), "invalid_arguments")
        if name != "call_tool":
            try:
                value = meta_tools.answer(name, arguments, self.catalog, search=self.search, lookup=self.lookup)
            except meta_tools.Wrong as exc:
                return self._error(str(exc), retry=True)
            return ModelResult(text=_json(value), structured=value)
        target = arguments["name"]
        if target in META_NAMES:
            return self._error(f"'{target}' is a meta-tool: call it directly, not through call_tool", retry=True)
        return await self._call_tool(target, arguments.get("arguments") or {}, record)

    async def _call_tool(self, name: str, arguments: Mapping[str, Any], record: CallRecord) -> ModelResult:
        entry, problem = self.lookup(name)
        if entry is None:
            record.target(hidden := self.routing.hidden(name, self.decision), arguments)  # of another step, or None
            return record.end(self._error(problem, retry=True), "unknown_tool" if hidden is None else "not_routed")
        record.target(entry, arguments)
        arguments = from_strict(entry.input_schema, arguments)  # a strict call's placeholder nulls
        problem = checks.problem(entry, arguments)
        if problem:
            error = self._error(
                f"invalid arguments for {entry.provider}: {problem}\n"
                f"Its input schema: {_json(entry.input_schema)}\nCall it again with arguments that match.",
                retry=True,
            )
            return record.end(error, "invalid_arguments")
        if self.pool is None:
            error = self._error(f"tool '{entry.provider}' cannot be called: this toolset has no server connections")
            return record.end(error, "failed")
        try:
            result = await self.pool.call(entry, arguments, on_retry=record.retried)
        except (CallFailed, DriftError) as exc:
            return record.end(self._error(str(exc)), "refused" if isinstance(exc, DriftError) else "failed")
        try:
            normalized = normalize(
                result, output_schema=entry.output_schema, store=self.media, max_chars=self.max_result_chars
            )
        except OSError as exc:  # the media directory is full or unwritable
            error = self._error(f"the result of '{entry.provider}' could not be kept: {exc.strerror or exc}")
            return record.end(error, "failed")
        if not normalized.is_error:
            return record.end(normalized, "ok")
        return record.end(normalized, "tool_error" if getattr(result, "is_error", False) else "invalid_output")

    def target(self, name: str, arguments: Mapping[str, Any] | None = None) -> Entry | None:
        """The reviewed tool a call would run, through `call_tool` too; None for other meta-tools, unknown names."""
        if name == "call_tool":
            target = (arguments or {}).get("name")
            name = target if isinstance(target, str) else ""
        if not name or name in META_NAMES:
            return None
        try:
            return self.catalog.resolve(name)
        except Ambiguous:
            return None

    def lookup(self, name: str) -> tuple[Entry | None, str]:
        """The tool a name the model wrote stands for, or why there is none (said for the model to act on)."""
        try:
            entry = self.catalog.resolve(name)
        except Ambiguous as exc:
            return None, str(exc)
        if entry is not None:
            return entry, ""
        if (hidden := self.routing.hidden(name, self.decision)) is not None:  # a tool this step was not given
            return None, self.routing.denial(hidden, self.decision)
        close = [e.provider for e in self.catalog.search(name, 3)]
        hint = f"; did you mean {', '.join(close)}?" if close else "; use search_tools or list_categories"
        return None, f"there is no tool named {name!r}{hint}"

    def _entry(self, name: str) -> Entry:
        entry, problem = self.lookup(name)
        if entry is None:
            raise KeyError(problem)
        return entry

    def _error(self, message: str, *, retry: bool = False) -> ModelResult:
        return error_result(message, max_chars=self.max_result_chars, retry=retry)

    # --- text tool-call formats, for models without native tool calling -----------------------

    @property
    def call_format(self) -> str:
        """The tool-call format the model gets: native, code, or a text format (`plan()` says why)."""
        return self._plan.format.format if self._plan.format is not None else "native"

    text_prompt = prompting.text_prompt
    parse_calls = prompting.parse_calls
    text_calls = prompting.text_calls
    text_result = prompting.text_result

    def prepare(self, user_message: str, *, spec_format: Format = "openai", strict: bool = False) -> Prepared:
        """Turn one (seed 003): search the tools with the user's message, materialize the hits up to the
        model-size cap, and return what the first request needs: specs, or prompt text for a text format.
        The model can still call `search_tools` later."""
        found = tuple(e.provider for e in self.search(user_message, self.max_materialized))
        if self._plan.format is not None and self._plan.format.is_text:
            return Prepared(self.call_format, found, prompt=prompting.text_prompt(self))
        return Prepared(self.call_format, found, specs=self.tool_specs(spec_format, strict=strict))

    # --- lifetime ---------------------------------------------------------------------------

    def session(self) -> ToolSet:
        """A view for one conversation: `async with ts.session() as conversation: ...`.

        It shares the catalog, the plan, the media store and the running servers, and has its own
        materialized tools (its own searches) and route decisions (none yet: every tool), so one
        toolset serves many conversations at once without one's searches or steps changing
        another's tool list. Closing it stops nothing.
        """
        view = copy.copy(self)
        view._recent = []
        view._owns_pool = False
        view.catalog, view.decision = self.routing.catalog, None  # no step routed yet
        view.audit = self.audit.session()
        return view

    async def check(self, servers: Sequence[str] | None = None) -> None:
        """Start every server of the toolset now (or the named ones), for those who would rather fail fast.

        Raises `ConnectError` naming each server that cannot start and why (a missing variable,
        a command not found, a timeout); the servers that could start stay started.
        """
        if self.pool is not None:
            await self.pool.check(servers)

    def call_sync(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ModelResult:
        """`call` for code without an event loop; the servers then run on a thread of the toolset's own
        (a toolset's servers serve one event loop: use its async calls or its blocking ones, not both)."""
        return self._blocking.run(self.call, name, arguments)

    # --- into agent frameworks (adapters.py: each imports its framework only when called) -------

    for_pydantic_ai = adapters.for_pydantic_ai
    for_openai_agents = adapters.for_openai_agents
    for_langchain = adapters.for_langchain
    for_langchain_agent = adapters.for_langchain_agent

    # --- lifetime ---------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Stop every server this toolset started, and its sandbox (a session view leaves them to its toolset)."""
        if not self._owns_pool:
            return
        if self._blocking.active:  # the servers run in the toolset's own loop
            await anyio.to_thread.run_sync(self._blocking.close, self._stop)
        else:
            await self._stop()

    def close(self) -> None:
        """`aclose` for code without an event loop (after `call_sync`, LangChain's `invoke`)."""
        if self._owns_pool:
            self._blocking.close(self._stop)

    async def _stop(self) -> None:
        if self.pool is not None:
            await self.pool.aclose()
        if self._code is not None:
            await self._code.aclose()

    def __enter__(self) -> ToolSet:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self) -> ToolSet:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
