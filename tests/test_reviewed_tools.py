"""The public catalog (issue 15, item 6): each server's `TOOLS`, and the names users import from the package root.

`TOOLS` ties every reviewed tool to the code generated for it, so adapters and scripts work over
tools without reading `manifest.json` or importing `_runtime`; the checks run on the golden package
and call real servers through the records.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from conftest import PY, REPO, lock_documents, mcpvend
from mcpvend.codegen import naming

SERVERS = ("demo", "everything", "filesystem", "time")


def lockfile_tools(server: str) -> list[dict[str, Any]]:
    return [entry["tool"] for entry in json.loads((REPO / "lockfiles" / f"{server}.lock.json").read_text())["tools"]]


@pytest.mark.parametrize("server", SERVERS)
def test_tools_lists_each_reviewed_tool_with_its_names_schemas_models_and_method(server: str) -> None:
    import generated

    sub = importlib.import_module(f"generated.{server}")
    reviewed = lockfile_tools(server)
    assert [t.name for t in sub.TOOLS] == [t["name"] for t in reviewed]
    providers = {(e.server, e.name): e.provider for e in generated.toolset().catalog.entries}  # every server
    for entry, tool in zip(sub.TOOLS, reviewed, strict=True):
        assert entry.server == server
        assert entry.provider == providers[(server, tool["name"])]
        assert entry.definition == tool
        assert entry.input_schema == tool["inputSchema"]
        assert entry.output_schema == tool.get("outputSchema")
        assert entry.annotations == tool.get("annotations")
        assert (entry.title, entry.description) == (tool.get("title"), tool.get("description"))
        assert entry.input_model is getattr(sub.models, entry.input_model.__name__)
        assert issubclass(entry.input_model, BaseModel)
        assert (entry.output_model is None) == ("outputSchema" not in tool)
        method = getattr(sub.Tools, entry.method)
        assert inspect.iscoroutinefunction(method) and method.__doc__ == tool.get("description")


def test_a_record_is_frozen_and_hands_out_copies_of_what_was_reviewed() -> None:
    from generated import demo

    entry = next(t for t in demo.TOOLS if t.name == "cancel_booking")
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.description = "Delete everything."  # type: ignore[misc]
    schema = entry.input_schema
    schema["properties"].clear()
    hints = entry.annotations
    assert hints is not None
    hints["destructiveHint"] = False
    assert entry.input_schema["properties"] and entry.annotations == {
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert len(set(demo.TOOLS)) == len(demo.TOOLS) == 4  # hashable, and equal only to itself
    assert list(entry.definition) == list(lockfile_tools("demo")[1])  # the keys in the order served
    assert "definition_json" not in repr(entry) and "cancel_booking" in repr(entry)


def test_each_record_calls_its_tool_on_a_real_server() -> None:
    from generated import demo, time

    arguments = {
        "airports.find-by-code": {"code": "CDG"},
        "cancel_booking": {"reference": "ABC123", "notify": False},
        "convert_temperature": {"value": 100, "to": "kelvin"},
        "price_itinerary": {
            "travelers": [{"name": "Ada", "age": 36}],
            "legs": [{"from": "CDG", "to": "NRT"}],
        },
        "get_current_time": {"timezone": "UTC"},
        "convert_time": {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
    }

    async def main() -> list[str]:
        results = []
        for server in (demo, time):
            async with server.connect(cwd=str(REPO)) as tools:
                for entry in server.TOOLS:
                    model = entry.input_model.model_validate(arguments[entry.name], by_alias=True, by_name=False)
                    result = await getattr(tools, entry.method)(model)
                    assert entry.output_model is not None and isinstance(result, entry.output_model)
                    results.append(type(result).__name__)
        return results

    assert anyio.run(main) == [
        "AirportsFindByCodeOutput",
        "CancelBookingOutput",
        "ConvertTemperatureOutput",
        "PriceItineraryOutput",
        "ConvertTimeOutput",
        "GetCurrentTimeOutput",
    ]


def test_the_package_root_exports_what_users_need_and_imports_no_sdk_until_asked() -> None:
    script = """
import sys
import generated
print(sorted(m for m in ("mcp", "mcp_types", "pydantic", "anyio") if m in sys.modules))
from generated import ConnectError, DriftError, ReviewedTool, ToolError, ToolResult, from_wire, hybrid
from generated._runtime.client import manifest, pinning
from generated._runtime.semantic import hybrid as semantic
from generated._runtime.core import reviewed
from generated._runtime.wrappers import tools
print(ConnectError is manifest.ConnectError, DriftError is pinning.DriftError, ReviewedTool is reviewed.ReviewedTool)
print(ToolError is tools.ToolError, ToolResult is tools.ToolResult, from_wire is tools.from_wire)
print(hybrid is semantic.hybrid, "mcpvend_minilm" in sys.modules or "numpy" in sys.modules)
print(set(generated.__all__) <= set(dir(generated)))
try:
    generated.ToolErrors
except AttributeError as exc:
    print(exc)
"""
    run = subprocess.run([PY, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == [
        "[]",
        "True True True",
        "True True True",
        "True False",
        "True",
        "module 'generated' has no attribute 'ToolErrors'",
    ]


def test_a_server_named_like_a_package_export_does_not_replace_it(tmp_path: Path) -> None:
    tool = {"name": "ping", "inputSchema": {"type": "object"}}
    lock_documents(tmp_path, {"toolset": [tool], "from_wire": [tool], "hybrid": [tool]})
    assert mcpvend("generate", cwd=tmp_path).code == 0
    script = """
import generated
from generated import from_wire_, hybrid_, toolset_
print(generated.SERVERS, [t.name for t in toolset_.TOOLS], callable(generated.from_wire), callable(generated.hybrid))
print(type(generated.toolset).__name__)
"""
    run = subprocess.run([PY, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["('from_wire_', 'hybrid_', 'toolset_') ['ping'] True True", "PackageToolsets"]


def test_the_subpackage_names_kept_free_are_the_lower_case_names_the_root_exports() -> None:
    """naming.PACKAGE_NAMES is written by hand beside the template: this keeps the two equal."""
    import generated

    assert {name for name in generated.__all__ if name.islower()} == naming.PACKAGE_NAMES
