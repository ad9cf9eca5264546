# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""OpenTelemetry spans for tool calls and route decisions, made only when the application traces.

mcp requires opentelemetry-api and imports it, yet a toolset must not pay for tracing nobody asked
for. So nothing here imports opentelemetry: a tracer provider is set through `opentelemetry.trace`
(by the application, or by the API itself from `OTEL_PYTHON_TRACER_PROVIDER` when mcp first asks
it for a tracer), so the module is looked up in `sys.modules`; not loaded, or with no provider (the
API's proxy, or the no-op one), no span is made, and that look-up is all it costs.

Spans follow the OpenTelemetry GenAI and MCP semantic conventions (development status): a call is
`execute_tool {gen_ai.tool.name}` (INTERNAL) with `gen_ai.operation.name` = `execute_tool`,
`mcp.method.name` = `tools/call`, and `error.type` when it fails (`tool_error` for a result with
`isError`, as the MCP conventions say); the SDK's own `tools/call` client span is its child.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

TRACER_NAME = "mcpvend"
AttributeValue = str | bool | int | float | Sequence[str]
_cached: list[tuple[Any, Any]] = []  # (provider, its tracer): the global provider is set once, so one is enough


def tracer() -> Any | None:
    """The configured provider's tracer, or None when there is no provider (then no span is made)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    try:
        provider = trace.get_tracer_provider()
    except Exception:  # noqa: BLE001 - a variable naming no provider: no spans, and the call goes on
        return None
    if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return None
    if not _cached or _cached[0][0] is not provider:
        _cached[:] = [(provider, provider.get_tracer(TRACER_NAME))]
    return _cached[0][1]


@contextmanager
def span(name: str, attributes: Mapping[str, AttributeValue]) -> Iterator[Any | None]:
    """An INTERNAL span, current for the block (so the SDK's client span nests in it), or None without tracing."""
    found = tracer()
    if found is None:
        yield None
        return
    kind = sys.modules["opentelemetry.trace"].SpanKind.INTERNAL
    with found.start_as_current_span(name, kind=kind, attributes=dict(attributes)) as current:
        yield current


def finish(
    current: Any | None,
    name: str,
    attributes: Mapping[str, AttributeValue | None],
    error: str | None,
    message: str | None,
) -> None:
    """Name the span for what it turned out to be, add what is known now, and mark a failure."""
    if current is None:
        return
    current.update_name(name)
    current.set_attributes({key: value for key, value in attributes.items() if value is not None})
    if error is not None:
        trace = sys.modules["opentelemetry.trace"]
        current.set_attribute("error.type", error)
        current.set_status(trace.Status(trace.StatusCode.ERROR, message))
