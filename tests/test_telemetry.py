"""OpenTelemetry spans of calls and route decisions (issue 19), checked with the SDK's in-memory exporter.

A tracer provider is process-wide and set once, so each case runs in a child process of its own,
with the golden package and the real demo server.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from conftest import PY, REPO

FLOW = """
import anyio, json, sys
sys.path.insert(0, REPO)

async def main() -> None:
    import generated

    async def router(request):
        return ["nope"]

    bundles = {"trips": ["demo/*"], "clock": ["time/*"]}
    routes = [{"role": "planner", "bundles": ["trips"]}]
    routing = generated.RoutingOptions(bundles=bundles, routes=routes, router=router)
    async with generated.toolset(["demo", "time"], routing=routing) as ts:
        await ts.route(role="planner", step="plan", intent="a trip")
        await ts.call("demo__convert_temperature", {"value": 1})
        await ts.call("call_tool", {"name": "demo__airports_find-by-code_b73eb4", "arguments": {"code": "ZZZ"}})
        await ts.call("demo__convert_temperature", {"value": "hot"})
        await ts.call("time__get_current_time", {"timezone": "UTC"})
        await ts.route(role="nobody")
"""

TRACED = (
    """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
"""
    + FLOW
    + """
anyio.run(main)
spans = [
    {
        "name": s.name,
        "kind": s.kind.name,
        "attributes": dict(s.attributes),
        "status": s.status.status_code.name,
        "description": s.status.description,
        "id": s.context.span_id,
        "parent": s.parent.span_id if s.parent else None,
    }
    for s in exporter.get_finished_spans()
]
print(json.dumps(spans))
"""
)


def run(script: str, **env: str) -> str:
    """Run a script in a child process (REPO is where the golden package is); its stdout."""
    source = f"REPO = {str(REPO)!r}\n{script}"
    done = subprocess.run(
        [PY, "-c", source], capture_output=True, text=True, timeout=120, cwd=REPO, env={**os.environ, **env}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_calls_and_route_decisions_are_spans_by_the_genai_and_mcp_conventions() -> None:
    spans: list[dict[str, Any]] = json.loads(run(TRACED))
    ours = [s for s in spans if s["name"].startswith(("execute_tool", "mcpvend."))]
    assert [(s["name"], s["kind"], s["status"]) for s in ours] == [
        ("mcpvend.route", "INTERNAL", "UNSET"),
        ("execute_tool demo__convert_temperature", "INTERNAL", "UNSET"),
        ("execute_tool demo__airports_find-by-code_b73eb4", "INTERNAL", "ERROR"),
        ("execute_tool demo__convert_temperature", "INTERNAL", "ERROR"),
        ("execute_tool time__get_current_time", "INTERNAL", "ERROR"),
        ("mcpvend.route", "INTERNAL", "ERROR"),
    ]
    route, ok, tool_error, invalid, hidden, router_error = ours
    assert route["attributes"] == {
        "mcpvend.route.role": "planner",
        "mcpvend.route.step": "plan",
        "mcpvend.route.source": "rules",
        "mcpvend.route.rules": ["routes[0]"],
        "mcpvend.route.bundles": ["trips"],
    }  # the intent is the user's text: not on a span
    assert ok["attributes"] == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "demo__convert_temperature",
        "gen_ai.tool.type": "extension",
        "mcp.method.name": "tools/call",
        "mcpvend.server": "demo",
        "mcpvend.tool": "convert_temperature",
        "mcpvend.outcome": "ok",
        "mcpvend.retries": 0,
    }
    # The SDK's own client span of the request is a child of the call's span (with the server's start: this call's).
    sent = [s["name"] for s in spans if s["kind"] == "CLIENT" and s["parent"] == ok["id"]]
    assert "MCP send tools/call convert_temperature" in sent and "MCP send tools/list" in sent, sent
    (forwarded,) = [s["name"] for s in spans if s["parent"] == tool_error["id"]]
    assert forwarded == "MCP send tools/call airports.find-by-code"
    assert tool_error["attributes"]["error.type"] == "tool_error"  # as the MCP conventions say for isError
    assert tool_error["attributes"]["mcpvend.tool"] == "airports.find-by-code"
    assert tool_error["description"] is None  # the tool's error text is its result: kept by no span, as by no record
    assert invalid["attributes"]["error.type"] == "invalid_arguments"
    assert invalid["description"] is None  # its message quotes the arguments
    assert not [s for s in spans if s["parent"] == invalid["id"]]  # nothing was sent
    assert hidden["attributes"]["error.type"] == "not_routed"
    assert hidden["description"].endswith("the active bundles are: trips")
    assert router_error["attributes"]["error.type"] == "router_error"
    assert router_error["attributes"]["mcpvend.route.source"] == "default"
    assert router_error["description"].startswith("its answer: unknown bundle 'nope'")


WATCHED = (
    """
import builtins, json, sys

imports = []
real_import = builtins.__import__

def watched(name, globals=None, locals=None, fromlist=(), level=0):
    if name.startswith("opentelemetry"):  # every import statement, of a module loaded already or not
        imports.append([name, (globals or {}).get("__name__", "")])
    return real_import(name, globals, locals, fromlist, level)

builtins.__import__ = watched
"""
    + FLOW
    + """
anyio.run(main)
from generated._runtime.audit import telemetry
print(json.dumps({"imports": imports, "tracer": telemetry.tracer() is not None, "sdk": "opentelemetry.sdk" in sys.modules}))
"""
)


def test_without_a_tracer_provider_nothing_of_opentelemetry_is_imported() -> None:
    """mcp imports the API for its own spans; the runtime imports nothing of it, and makes no span."""
    control = 'exec("import opentelemetry.trace", {"__name__": "generated._runtime.control"})'
    seen = json.loads(run(WATCHED.replace("anyio.run(main)", f"anyio.run(main)\n{control}")))
    importers = [importer for _, importer in seen["imports"]]
    assert any(importer.startswith("mcp.") for importer in importers)  # the watch sees mcp's imports...
    assert [i for i in importers if i.startswith("generated")] == ["generated._runtime.control"]  # ...and ours
    assert (seen["tracer"], seen["sdk"]) == (False, False)


def test_a_provider_named_by_the_variable_traces_without_an_import_either() -> None:
    """OTEL_PYTHON_TRACER_PROVIDER makes the API load a provider when mcp first asks it for a tracer."""
    seen = json.loads(run(WATCHED, OTEL_PYTHON_TRACER_PROVIDER="sdk_tracer_provider"))
    assert not [importer for _, importer in seen["imports"] if importer.startswith("generated")]
    assert (seen["tracer"], seen["sdk"]) == (True, True)
