"""The audit trail: `tool-calls.jsonl`, one JSON object a line for every plan, route decision, search and call.

Routing is a first-class artifact: what a step was given, and what the model did with
it, must be on record. Appends are one `write` of a whole line to a file opened with O_APPEND, so
concurrent calls (and several processes sharing a directory) never interleave lines. The trail
must never cost a call: a full disk or an unwritable directory is one warning, and the calls go
on. Arguments (and the user's intent) are recorded as a digest unless `arguments=True`: a model
copies into them whatever it read, secrets included. Whatever is written (arguments, search queries,
errors) has every value the runtime knows to be secret replaced by `***`, as in its messages; digests
are taken over the values as they were.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import os
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..client.disguises import redact
from ..core.specs import META_NAMES
from . import telemetry

if TYPE_CHECKING:
    from ..core.budget import Plan
    from ..core.results import ModelResult, Outcome
    from ..core.steps import Decision

FORMAT_VERSION = 1
FILE_NAME = "tool-calls.jsonl"
ERROR_CHARS = 500  # of an error message kept in a record
# The error text of these outcomes may quote the arguments: kept only with arguments=True. The text of
# a tool's own error (or of output that broke its schema) is its result, which the trail never keeps.
_QUOTES_ARGUMENTS = frozenset({"invalid_arguments", "error"})
_QUOTES_RESULT = frozenset({"tool_error", "invalid_output"})
_OWN = frozenset({"version", "event", "time", "run", "conversation", "step"})  # the trail's own fields


class AuditWarning(RuntimeWarning):
    """The audit trail could not be written; the calls went on without it."""


def _unknown(value: object) -> str:
    return f"<{type(value).__name__}>"


# Built once: json.dumps with options makes an encoder at every call, a noticeable share of a record.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_unknown)
_LINE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, default=_unknown)


def digest(value: Any) -> str:
    """`sha256:` + hex SHA-256 of the value as JSON: sorted keys, no whitespace, UTF-8 (not escaped to ASCII)."""
    text = _CANONICAL.encode(value)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class AuditOptions:
    """Keep `tool-calls.jsonl` in `directory`; `arguments`: with the arguments (and intents) themselves,
    not only their digests (a model copies into them whatever it read, secrets included)."""

    directory: str | os.PathLike[str]
    arguments: bool = False


class AuditTrail:
    """The file one toolset appends to, shared by its conversations."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        arguments: bool = False,
        secrets: Callable[[], frozenset[str]] | None = None,
    ) -> None:
        self.path = Path(directory) / FILE_NAME
        self.arguments = arguments
        self.secrets = secrets  # the values to keep out of the file, asked at each record (servers start later)
        self.run = uuid.uuid4().hex
        self.dropped = 0  # records lost to a full disk or an unwritable directory
        self._lock = threading.Lock()
        self._warned = False
        self._torn = False  # a write was cut short: the next record starts on a new line
        self._conversations = itertools.count()
        self._fd: int | None = None  # kept open: one write a record (O_APPEND: whole lines, whoever else appends)
        self._checked = 0.0  # when the open file was last checked to still be the one at `path`

    def conversation(self) -> int:
        return next(self._conversations)

    def append(self, record: Mapping[str, Any]) -> None:
        """Write one record as one line; never raises for the file's sake (see the module's docstring)."""
        secrets = frozenset() if self.secrets is None else self.secrets()
        data = _line(_redacted(record, secrets) if secrets else record)
        with self._lock:
            if self.dropped:
                data = _line({**_header(record), "event": "dropped", "records": self.dropped}) + data
            if self._torn:
                data = b"\n" + data
            try:
                self._write(data)
            except OSError as exc:
                self.dropped += 1
                self._warn(exc)
            else:
                self.dropped = 0

    def _write(self, data: bytes) -> None:
        fd = self._open()
        try:
            written = os.write(fd, data)
        except OSError:
            self._close()  # opened anew for the next record: the directory may be back
            raise
        self._torn = written < len(data)
        if self._torn:  # a disk (or file size limit) filling up mid-line; the rest would fail the same way
            raise OSError(0, f"a record was cut short: {written} of {len(data)} bytes written")

    def _open(self) -> int:
        """The file, kept open between records; opened anew once a second if it was moved or removed (rotated)."""
        now = time.monotonic()
        if self._fd is not None and now - self._checked >= 1.0:
            self._checked = now
            try:
                moved = os.stat(self.path).st_ino != os.fstat(self._fd).st_ino
            except OSError:
                moved = True
            if moved:
                self._close()
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            self._checked = now
        return self._fd

    def _close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def close(self) -> None:
        """Close the file (the toolset's `close` does); a later record opens it again."""
        with self._lock:
            self._close()

    def __del__(self) -> None:
        self._close()

    def _warn(self, exc: OSError) -> None:
        if not self._warned:
            self._warned = True
            cause = exc.strerror or type(exc).__name__
            warnings.warn(
                f"audit trail {self.path} cannot be written ({cause}); tool calls go on without it",
                AuditWarning,
                stacklevel=4,
            )


def _line(record: Mapping[str, Any]) -> bytes:
    """One record, one line of ASCII: no character a reader could take for a line break, no lone surrogate."""
    return (_LINE.encode(record) + "\n").encode("ascii")


def _redacted(value: Any, secrets: frozenset[str]) -> Any:
    """`value` with every secret replaced by `***` in its strings (and keys), but in the trail's own fields
    and digests, which hold none and must stay as computed."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, Mapping):
        return {
            redact(str(k), secrets): v if k in _OWN or str(k).endswith("sha256") else _redacted(v, secrets)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_redacted(item, secrets) for item in value]
    return value


def _header(record: Mapping[str, Any]) -> dict[str, Any]:
    return {key: record[key] for key in ("version", "event", "time", "run", "conversation", "step") if key in record}


def _parsed(arguments: Any) -> Any:
    """The arguments as the call used them: the JSON a provider sent, parsed (as sent if it is not JSON)."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return arguments
    return {} if arguments is None else arguments


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


class Audit:
    """What one conversation records (a toolset, or a session view of it); spans are made even without a trail."""

    def __init__(self, trail: AuditTrail | None) -> None:
        self.trail = trail
        self.number = trail.conversation() if trail is not None else 0  # this conversation's, in the trail
        self.step = 0  # route decisions so far in this conversation

    def conversation(self) -> Audit:
        """The same trail, for a new conversation."""
        return Audit(self.trail)

    def close(self) -> None:
        if self.trail is not None:
            self.trail.close()

    def record(self, event: str, **fields: Any) -> None:
        if self.trail is None:
            return
        head = {"version": FORMAT_VERSION, "event": event, "time": _now(), "run": self.trail.run}
        self.trail.append({**head, "conversation": self.number, "step": self.step, **fields})

    def _private(self, name: str, value: Any) -> dict[str, Any]:
        """A digest of what a model or user wrote, and the value itself when the trail keeps arguments."""
        if value is None or self.trail is None:
            return {}
        kept = {name: value} if self.trail.arguments else {}
        return {f"{name}_sha256": digest(value), **kept}

    def plan(self, plan: Plan) -> None:
        budget = plan.budget
        self.record(
            "plan",
            mode=plan.mode,
            requested=plan.requested,
            reason=plan.reason,
            tools=plan.tools,
            budget={
                "context_window": budget.context_window,
                "ratio": budget.ratio,
                "tokens": budget.tokens,
                "tool_limit": budget.tool_limit,
                "compact_tokens_per_tool": budget.compact_tokens_per_tool,
            },
            direct_tokens=plan.direct_tokens,
            compact_tokens=plan.compact_tokens,
            routed_tokens=plan.routed_tokens,
        )

    @contextmanager
    def route(self) -> Iterator[RouteRecord]:
        """Around one route decision: its span (so a model router's own spans nest in it), then its record."""
        found = RouteRecord()
        with telemetry.span("mcpvend.route", {}) as current:
            yield found
            decision = found.decision
            if decision is None:  # the block raised (a router needed, bad inputs): nothing was decided
                return
            self.step += 1
            inputs = decision.inputs
            said = {key: getattr(inputs, key) for key in ("workflow", "role", "step") if getattr(inputs, key)}
            fields: dict[str, Any] = {"inputs": {**said, **self._private("intent", inputs.intent)}}
            fields.update(bundles=decision.bundles, source=decision.source, rules=decision.rules, why=decision.why)
            error = None if decision.error is None else decision.error[:ERROR_CHARS]
            if error is not None:
                fields["error"] = error
            self.record("route", **fields, tools=found.tools)
            attributes = {f"mcpvend.route.{key}": value for key, value in said.items()}
            attributes |= {"mcpvend.route.source": decision.source, "mcpvend.route.rules": list(decision.rules)}
            if decision.bundles is not None:
                attributes["mcpvend.route.bundles"] = list(decision.bundles)
            telemetry.finish(current, "mcpvend.route", attributes, None if error is None else "router_error", error)

    def search(self, query: str, limit: int, hits: list[str]) -> None:
        self.record("search", query=query, limit=limit, hits=hits)

    def materialize(self, tools: tuple[str, ...]) -> None:
        self.record("materialize", tools=list(tools))

    @contextmanager
    def call(self, name: str, arguments: Any) -> Iterator[CallRecord]:
        """Around one call the model made: its span, then its record with duration and outcome."""
        found = CallRecord(name)
        traced = telemetry.tracer() is not None
        if self.trail is None and not traced:  # nothing to record: the call alone
            yield found
            return
        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name[:200]}
        started = time.perf_counter()
        with telemetry.span("execute_tool", attributes) if traced else nullcontext() as current:
            try:
                yield found
            except BaseException as exc:
                found.outcome = "cancelled" if isinstance(exc, asyncio.CancelledError) else "exception"
                found.message = type(exc).__name__
                raise
            finally:
                duration = round((time.perf_counter() - started) * 1000, 3)
                outcome = found.final_outcome()
                if current is not None:
                    failed = None if outcome == "ok" else outcome
                    said = found.error(outcome, arguments_kept=False)  # a span never has the arguments
                    telemetry.finish(current, found.span_name(), found.span_attributes(outcome), failed, said)
                if self.trail is not None:
                    sent = _parsed(arguments) if found.arguments is None else found.arguments
                    kept = self._private("arguments", sent)
                    self.record("call", **found.fields(kept, duration, outcome))


class RouteRecord:
    """Filled in by the routing step: the decision, and how many tools it leaves the step."""

    decision: Decision | None = None
    tools: int = 0

    def done(self, decision: Decision, tools: int) -> None:
        self.decision, self.tools = decision, tools


class CallRecord:
    """How one call ended, given once (`done`) by the call path."""

    def __init__(self, name: str) -> None:
        self.tool = name  # as the model wrote it, until it is known
        self.server: str | None = None
        self.wire: str | None = None
        self.via: str | None = None  # "call_tool" when the model went through the meta-tool
        self.outcome: str | None = None
        self.message = ""
        self.retries = 0
        self.result: ModelResult | None = None
        self.arguments: Mapping[str, Any] | None = None  # the tool's, when they came inside `call_tool`'s

    def done(self, outcome: Outcome) -> None:
        """Keep the result, the tool it reached, and how it ended (when the call path says more than `is_error`)."""
        self.result, self.outcome, self.retries = outcome.result, outcome.kind, outcome.retries
        if outcome.result.is_error:
            self.message = outcome.result.text
        entry = outcome.entry
        if entry is not None:
            if outcome.via is not None or self.tool in META_NAMES:
                self.via, self.arguments = outcome.via or self.tool, outcome.arguments
            self.tool, self.server, self.wire = entry.provider, entry.server, entry.name

    def final_outcome(self) -> str:
        if self.outcome is not None:
            return self.outcome
        if self.result is None:
            return "exception"
        return "error" if self.result.is_error else "ok"

    def span_name(self) -> str:
        known = self.server is not None or self.tool in META_NAMES
        return f"execute_tool {self.tool}" if known else "execute_tool"

    def span_attributes(self, outcome: str) -> dict[str, telemetry.AttributeValue | None]:
        return {
            "gen_ai.tool.name": self.tool[:200],
            "gen_ai.tool.type": "extension" if self.server is not None else "function",
            "mcp.method.name": "tools/call" if self.server is not None else None,
            "mcpvend.server": self.server,
            "mcpvend.tool": self.wire,
            "mcpvend.outcome": outcome,
            "mcpvend.retries": self.retries,
        }

    def fields(self, arguments: dict[str, Any], duration: float, outcome: str) -> dict[str, Any]:
        fields: dict[str, Any] = {"tool": self.tool, "server": self.server}
        if self.via is not None:
            fields["via"] = self.via
        fields.update(arguments, duration_ms=duration, outcome=outcome, retries=self.retries)
        media = self.result.media if self.result is not None else ()
        fields["media"] = [
            {"kind": m.kind, "mimeType": m.mime_type, "size": m.size, "sha256": m.sha256, "location": m.location}
            for m in media
        ]
        if (error := self.error(outcome, arguments_kept="arguments" in arguments)) is not None:
            fields["error"] = error
        return fields

    def error(self, outcome: str, *, arguments_kept: bool) -> str | None:
        """The error message a record or span may keep: never a result's text, the arguments' only where kept."""
        quoting = outcome in _QUOTES_RESULT or (outcome in _QUOTES_ARGUMENTS and not arguments_kept)
        return None if outcome == "ok" or quoting else self.message[:ERROR_CHARS]
