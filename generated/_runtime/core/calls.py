# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The one path every call takes: resolve the name, check the arguments, dispatch, normalize the result.

A call the model made comes back as an `Outcome` (a `ModelResult` and how it ended), never as an
exception: a wrong argument returns the schema, an unknown name returns suggestions, a crashed
server returns what happened. The caller records the outcome once (see `toolset.ToolSet.call`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..client.pinning import DriftError
from ..client.pool import CallFailed, Pool
from . import checks, meta_tools
from .conversation import Conversation
from .results import MediaStore, ModelResult, Outcome, error_result, normalize
from .seams import CodeRunner, ToolsetView
from .specs import META_NAMES, META_TOOLS

RUN_CODE = "run_code"
_META = {spec.name: spec for spec in META_TOOLS}
# What a strict call sent in place of what the reviewed schema takes (its nulls, JSON text), read back.
Undo = Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any]]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _as_is(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    return arguments


@dataclass
class CallPath:
    """What every call of a toolset shares: the servers, the media store, the sandbox, how strict calls are undone."""

    pool: Pool | None
    media: MediaStore
    max_chars: int
    undo: Undo = _as_is
    code: CodeRunner | None = None

    async def run(
        self, view: ToolsetView, conversation: Conversation, name: str, arguments: Mapping[str, Any] | str | None
    ) -> Outcome:
        """One call the model made, in any mode: a meta-tool, `run_code`, a provider name or a real tool name."""
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                return self._wrong(f"the arguments of '{name}' are not valid JSON: {exc}", "invalid_arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            kind = type(arguments).__name__
            return self._wrong(f"the arguments of '{name}' must be a JSON object, not {kind}", "invalid_arguments")
        if (what := checks.unencodable(arguments)) is not None:  # it would break the connection, or arrive as null
            return self._wrong(f"the arguments of '{name}' hold {what}", "invalid_arguments")
        if name == RUN_CODE and self.code is not None:
            return Outcome(await self.code.run(view, arguments))
        if name in META_NAMES:
            return await self._meta(conversation, name, arguments)
        return await self._tool(conversation, name, arguments)

    async def _meta(self, conversation: Conversation, name: str, arguments: Mapping[str, Any]) -> Outcome:
        spec = _META[name]
        arguments = self.undo(spec.input_schema, arguments)
        problem = checks.schema_problem(spec.input_schema, arguments)
        if problem:
            error = f"invalid arguments for {name}: {problem}\nIts input schema: {_json(spec.input_schema)}"
            return self._wrong(error, "invalid_arguments")
        if name != "call_tool":
            try:
                value = meta_tools.answer(
                    name, arguments, conversation.catalog, search=self._finder(conversation), lookup=conversation.lookup
                )
            except meta_tools.Wrong as exc:
                return self._wrong(str(exc))
            return Outcome(ModelResult(text=_json(value), structured=value))
        target = arguments["name"]
        if target in META_NAMES:
            return self._wrong(f"'{target}' is a meta-tool: call it directly, not through call_tool")
        outcome = await self._tool(conversation, target, arguments.get("arguments") or {})
        return Outcome(outcome.result, outcome.kind, outcome.entry, name, outcome.arguments, outcome.retries)

    @staticmethod
    def _finder(conversation: Conversation) -> Callable[[str, int], list[Any]]:
        """`search_tools`: a search whose hits routed mode then offers by name."""

        def find(query: str, limit: int) -> list[Any]:
            hits = conversation.search(query, limit)
            conversation.materialize([e.provider for e in hits])
            return hits

        return find

    async def _tool(self, conversation: Conversation, name: str, arguments: Mapping[str, Any]) -> Outcome:
        entry, problem = conversation.lookup(name)
        if entry is None:
            hidden = conversation.hidden(name)
            wrong = self._wrong(problem, "unknown_tool" if hidden is None else "not_routed")
            return Outcome(wrong.result, wrong.kind, hidden, arguments=arguments)
        if problem := checks.problem(entry, arguments):  # a strict call's placeholder nulls, its JSON text:
            undone = self.undo(entry.input_schema, arguments)  # read back only where they break the schema
            if undone is not arguments:
                arguments, problem = undone, checks.problem(entry, undone)
        if problem:
            error = (
                f"invalid arguments for {entry.provider}: {problem}\n"
                f"Its input schema: {_json(entry.input_schema)}\nCall it again with arguments that match."
            )
            return Outcome(self._error(error, retry=True), "invalid_arguments", entry, arguments=arguments)
        if self.pool is None:
            error = f"tool '{entry.provider}' cannot be called: this toolset has no server connections"
            return Outcome(self._error(error), "failed", entry, arguments=arguments)
        retries = 0

        def retried() -> None:
            nonlocal retries
            retries += 1

        try:
            result = await self.pool.call(
                entry.server, entry.name, arguments, label=entry.provider, retry_safe=entry.retry_safe, on_retry=retried
            )
        except (CallFailed, DriftError) as exc:
            kind = "refused" if isinstance(exc, DriftError) else "failed"
            failed = self._error(str(exc), failed=kind == "failed")
            return Outcome(failed, kind, entry, arguments=arguments, retries=retries)
        try:
            normalized = normalize(
                result, output_schema=entry.output_schema, store=self.media, max_chars=self.max_chars
            )
        except OSError as exc:  # the media directory is full or unwritable
            error = f"the result of '{entry.provider}' could not be kept: {exc.strerror or exc}"
            return Outcome(self._error(error), "failed", entry, arguments=arguments, retries=retries)
        kind = "ok" if not normalized.is_error else "tool_error" if result.is_error else "invalid_output"
        return Outcome(normalized, kind, entry, arguments=arguments, retries=retries)

    def _wrong(self, message: str, kind: str | None = None) -> Outcome:
        """A call the model can correct (a name, the arguments): it is told so, and may call again."""
        return Outcome(self._error(message, retry=True), kind)

    def _error(self, message: str, *, retry: bool = False, failed: bool = False) -> ModelResult:
        return error_result(message, max_chars=self.max_chars, retry=retry, failed=failed)
