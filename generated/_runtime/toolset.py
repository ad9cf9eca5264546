# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.
"""`ToolSet`: the reviewed tools of one or more servers, handed to an LLM in direct, compact or routed mode.

The model only ever sees reviewed text (the manifest's descriptions and schemas); whatever it
calls, in whatever mode, comes back as a `ModelResult`, never as an exception: a wrong
argument returns the schema, an unknown name returns suggestions, a crashed server returns
what happened. The specs are built the same way every time, so provider prompt caches hit.
"""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any

import anyio
from pydantic import BaseModel, ValidationError

from . import validation
from .budget import MATERIALIZE_CAPS, Budget, Plan, RequestedMode, choose
from .catalog import Ambiguous, Catalog, Entry
from .code_api import CodeApi
from .code_mode import RUN_CODE, CodeMode, require
from .manifest import ConnectError
from .pinning import DriftError
from .pool import CallFailed, Pool
from .results import DEFAULT_MAX_CHARS, MediaStore, ModelResult, error_result, normalize
from .sandbox import CodeLimits, available
from .specs import (
    GET_TOOL_SCHEMA,
    META_NAMES,
    META_TOOLS,
    Format,
    Mode,
    ToolSpec,
    compact_spec,
    full_spec,
    tokens,
)
from .strict import drop_nulls, strict_reports, strict_specs
from .tools import from_wire

PAGE_SIZE = 20
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
        code_api: CodeApi | None = None,
        code_limits: CodeLimits | None = None,
        allow_code: bool = False,
    ) -> None:
        self.catalog = catalog
        self.pool = pool
        self.max_materialized = max_materialized
        self.max_result_chars = max_result_chars
        self.media = media or MediaStore()
        self._recent: list[str] = (
            []
        )  # materialized provider names, most recently found first
        self._owns_pool = (
            True  # a session view shares its toolset's servers and leaves them running
        )
        entries = catalog.entries
        code = (
            CodeMode(code_api, entries, code_limits) if code_api is not None else None
        )
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
        self._code = (
            code if self._plan.mode == "code" else None
        )  # the sandbox: shared by every session view
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
        return tuple(sorted(self._recent[: self.max_materialized]))

    def specs(self) -> list[ToolSpec]:
        if self._code is not None:
            return [self._code.listing(self.catalog, self.materialized)]
        if self.mode == "direct":
            return [full_spec(e) for e in self.catalog.entries]
        if self.mode == "compact":
            return [*(compact_spec(e) for e in self.catalog.entries), GET_TOOL_SCHEMA]
        return [
            *META_TOOLS,
            *(full_spec(self.catalog.by_provider[n]) for n in self.materialized),
        ]

    def tool_specs(
        self, format: Format = "openai", *, strict: bool = False
    ) -> list[dict[str, Any]]:
        """The tools to hand the model, as plain dicts in the provider's format.

        `strict=True` ("openai", "openai-responses", "anthropic"): each tool in the provider's strict
        form where it has one, the others as usual (`plan()` names them); `call` maps the nulls back.
        """
        if strict:
            return strict_specs(self.specs(), format)[0]
        return [spec.render(format) for spec in self.specs()]

    def search(self, query: str, limit: int = 10) -> list[Entry]:
        """Search the tools and materialize the hits (seed 003: run it on the user's message first)."""
        hits = self.catalog.search(query, limit)
        self._promote([e.provider for e in hits])
        return hits

    def materialize(self, names: Sequence[str]) -> None:
        """Offer these tools directly in routed mode (within the cap), as if search had found them."""
        self._promote([self._entry(name).provider for name in names])

    def _promote(self, found: list[str]) -> None:
        self._recent = found + [name for name in self._recent if name not in found]

    def reset(self) -> None:
        """Forget materialized tools (say, when a new user message starts a new task)."""
        self._recent = []

    # --- what the model does ----------------------------------------------------------------

    async def call(
        self, name: str, arguments: Mapping[str, Any] | str | None = None
    ) -> ModelResult:
        """Run one tool call the model made, in any mode: a meta-tool, a provider name or a real tool name.

        `arguments` may be the JSON string a provider sends. Problems become error results.
        """
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                return self._error(
                    f"the arguments of '{name}' are not valid JSON: {exc}"
                )
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            return self._error(
                f"the arguments of '{name}' must be a JSON object, not {type(arguments).__name__}"
            )
        if name == RUN_CODE and self._code is not None:
            return await self._code.run(self, arguments)
        if name in META_NAMES:
            return await self._meta(name, arguments)
        return await self._call_tool(name, arguments)

    async def _meta(self, name: str, arguments: Mapping[str, Any]) -> ModelResult:
        spec = _META[name]
        arguments = drop_nulls(spec.input_schema, arguments)
        problem = self._invalid(spec.input_schema, arguments)
        if problem:
            return self._error(
                f"invalid arguments for {name}: {problem}\nIts input schema: {_json(spec.input_schema)}"
            )
        if name == "search_tools":
            hits = self.search(arguments["query"], arguments.get("limit", 10))
            listing = [self._listing(e) for e in hits]
            found: dict[str, Any] = {"tools": listing}
            if not listing:
                found["hint"] = (
                    "no tool matched: try other words, or list_categories and browse_category"
                )
            return self._ok(found)
        if name == "list_categories":
            categories = [
                {"name": c.name, "kind": c.kind, "tools": len(c.providers)}
                for c in self.catalog.categories.values()
            ]
            return self._ok({"categories": categories})
        if name == "browse_category":
            return self._browse(arguments["category"], arguments.get("page", 1))
        if name == "get_tool_schema":
            return self._schema(arguments["name"])
        target = arguments["name"]
        if target in META_NAMES:
            return self._error(
                f"'{target}' is a meta-tool: call it directly, not through call_tool"
            )
        return await self._call_tool(target, arguments.get("arguments") or {})

    def _listing(self, entry: Entry) -> dict[str, str]:
        return {"name": entry.provider, "description": entry.summary}

    def _browse(self, category: str, page: int) -> ModelResult:
        found = self.catalog.categories.get(category)
        if found is None:
            known = ", ".join(self.catalog.categories)
            return self._error(
                f"unknown category {category!r}; the categories are: {known}"
            )
        pages = max(1, -(-len(found.providers) // PAGE_SIZE))
        if page > pages:
            return self._error(
                f"category {category!r} has {pages} page(s); page {page} does not exist"
            )
        names = found.providers[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        tools = [self._listing(self.catalog.by_provider[n]) for n in names]
        return self._ok(
            {"category": category, "page": page, "pages": pages, "tools": tools}
        )

    def _schema(self, name: str) -> ModelResult:
        entry, problem = self._lookup(name)
        if entry is None:
            return self._error(problem)
        schema: dict[str, Any] = {
            "name": entry.provider,
            "description": entry.description,
        }
        schema["inputSchema"] = entry.input_schema
        if entry.output_schema is not None:
            schema["outputSchema"] = entry.output_schema
        if isinstance(entry.tool.get("annotations"), Mapping):
            schema["annotations"] = entry.tool["annotations"]
        return self._ok(schema)

    async def _call_tool(self, name: str, arguments: Mapping[str, Any]) -> ModelResult:
        entry, problem = self._lookup(name)
        if entry is None:
            return self._error(problem)
        arguments = drop_nulls(
            entry.input_schema, arguments
        )  # a strict call's placeholder nulls
        problem = self._invalid(entry.input_schema, arguments) or self._model_problem(
            entry, arguments
        )
        if problem:
            return self._error(
                f"invalid arguments for {entry.provider}: {problem}\n"
                f"Its input schema: {_json(entry.input_schema)}\nCall it again with arguments that match."
            )
        if self.pool is None:
            return self._error(
                f"tool '{entry.provider}' cannot be called: this toolset has no server connections"
            )
        try:
            result = await self.pool.call(entry, arguments)
        except (CallFailed, DriftError) as exc:
            return self._error(str(exc))
        try:
            return normalize(
                result,
                output_schema=entry.output_schema,
                store=self.media,
                max_chars=self.max_result_chars,
            )
        except OSError as exc:  # the media directory is full or unwritable
            return self._error(
                f"the result of '{entry.provider}' could not be kept: {exc.strerror or exc}"
            )

    def _lookup(self, name: str) -> tuple[Entry | None, str]:
        try:
            entry = self.catalog.resolve(name)
        except Ambiguous as exc:
            return None, str(exc)
        if entry is not None:
            return entry, ""
        close = [e.provider for e in self.catalog.search(name, 3)]
        hint = (
            f"; did you mean {', '.join(close)}?"
            if close
            else "; use search_tools or list_categories"
        )
        return None, f"there is no tool named {name!r}{hint}"

    def _entry(self, name: str) -> Entry:
        entry, problem = self._lookup(name)
        if entry is None:
            raise KeyError(problem)
        return entry

    def _invalid(self, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str:
        """The first reason `arguments` break `schema`, or ""."""
        try:
            return validation.problem(schema, dict(arguments)) or ""
        except validation.SchemaUnusable as exc:
            return f"its reviewed input schema cannot be used ({exc}), so no call can be checked"

    def _model_problem(self, entry: Entry, arguments: Mapping[str, Any]) -> str:
        """The generated input model must accept the arguments too (it is what typed callers use)."""
        if entry.models is None or entry.input_class is None:
            return ""
        model = getattr(importlib.import_module(entry.models), entry.input_class, None)
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return ""
        try:
            from_wire(model, dict(arguments))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = "".join(
                f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]
            )
            return f"at ${where}: {first['msg']}"
        return ""

    def _ok(self, value: Any) -> ModelResult:
        return ModelResult(text=_json(value), structured=value)

    def _error(self, message: str) -> ModelResult:
        return error_result(message, max_chars=self.max_result_chars)

    # --- lifetime ---------------------------------------------------------------------------

    def session(self) -> ToolSet:
        """A view for one conversation: `async with ts.session() as conversation: ...`.

        It shares the catalog, the plan, the media store and the running servers, and has its own
        materialized tools (its own searches), so one toolset serves many conversations at once
        without one's searches changing another's tool list. Closing it stops nothing.
        """
        view = copy.copy(self)
        view._recent = []
        view._owns_pool = False
        return view

    async def check(self, servers: Sequence[str] | None = None) -> None:
        """Start every server of the toolset now (or the named ones), for those who would rather fail fast.

        Raises `ConnectError` naming each server that cannot start and why (a missing variable,
        a command not found, a timeout); the servers that could start stay started.
        """
        pool = self.pool
        if pool is None:
            return
        names = list(pool.connections) if servers is None else list(servers)
        unknown = [n for n in names if n not in pool.connections]
        if unknown:
            raise KeyError(f"no server named {unknown[0]!r} in this toolset")
        failed: dict[str, str] = {}

        async def start(name: str) -> None:
            try:
                await pool.connections[name].acquire()
            except CallFailed as exc:
                failed[name] = str(exc)

        async with anyio.create_task_group() as group:
            for name in names:
                group.start_soon(start, name)
        if failed:
            raise ConnectError(
                "\n".join(failed[name] for name in names if name in failed)
            )

    async def aclose(self) -> None:
        """Stop every server this toolset started (a session view leaves them to its toolset)."""
        if self.pool is not None and self._owns_pool:
            await self.pool.aclose()
        if self._code is not None and self._owns_pool:
            await self._code.aclose()

    async def __aenter__(self) -> ToolSet:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
