"""The code-mode stubs `mcpvend generate` writes (`stubs.pyi`): typed, byte-stable, and closed to hostile text."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from mcpvend.codegen.stubs import code_api, server_stubs
from mcpvend.runtime.code.api import load
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.toolset import ToolSet

HOSTILE = 'Ends here."""\nimport os\nos.system("id")  # \u202e\x00'
TOOLS: list[dict[str, Any]] = [
    {
        "name": "find-flights",
        "description": f"Find flights. {HOSTILE}",
        "inputSchema": {
            "type": "object",
            "properties": {
                "from": {"type": "string", "description": HOSTILE},
                "max-results": {"type": "integer", "default": 10},
                "when": {"type": "string", "format": "date"},
            },
            "required": ["from", "when"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "flights": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"number": {"type": "string"}, "price": {"type": "number"}},
                        "required": ["number"],
                    },
                }
            },
            "required": ["flights"],
        },
    },
    {"name": "ping", "inputSchema": {"type": "object"}},
]


def stubs() -> str:
    methods = {"find-flights": "find_flights", "ping": "ping"}
    stems = {"find-flights": "FindFlights", "ping": "Ping"}
    return server_stubs("# header\n", "air", "air", TOOLS, methods, stems)


def test_each_tool_is_a_keyword_only_async_function_returning_its_output_typed_dict() -> None:
    text = stubs()
    assert "async def air__find_flights(\n    *,\n    from_: str,  # Ends here." in text
    assert "    when: str,\n    max_results: int = ...,  # (default: 10)\n) -> Air_FindFlightsOutput:" in text
    assert "class Air_FindFlightsOutput(TypedDict):\n    flights: list[Air_FindFlightsOutputFlight]\n" in text
    assert "    number: str\n    price: NotRequired[float]\n" in text
    assert text.endswith("\nasync def air__ping() -> str: ...\n")  # no description, no output schema


def test_hostile_descriptions_stay_a_docstring_and_a_comment() -> None:
    tree = ast.parse(stubs())
    kinds = [type(node).__name__ for node in tree.body]
    assert kinds == ["Expr", "ImportFrom", "ClassDef", "ClassDef", "AsyncFunctionDef", "AsyncFunctionDef"]
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
    assert [i.module for i in imports] == ["typing"]  # no `import os` got out of a description
    function = next(n for n in tree.body if isinstance(n, ast.AsyncFunctionDef) and n.name == "air__find_flights")
    assert ast.get_docstring(function, clean=False) == f"Find flights. {HOSTILE}"  # character for character
    comment = next(line for line in stubs().splitlines() if line.startswith("    from_: str,"))
    assert comment.endswith('# Ends here.""" import os os.system("id") # \\u202e\\x00')


def test_the_same_lockfile_gives_the_same_bytes() -> None:
    assert stubs() == stubs()


def test_the_runtime_maps_keywords_back_to_wire_names() -> None:
    api = code_api({"air": TOOLS})
    tool = TOOLS[0]
    entry = Entry("air", tool, "air__find-flights")
    assert api.function(entry) == "air__find_flights"
    sent = api.arguments(entry, {"from_": "CDG", "max_results": 3, "when": "2026-01-01"})
    assert sent == {"from": "CDG", "max-results": 3, "when": "2026-01-01"}
    rendered = api.render([entry])
    assert rendered.startswith("from typing import NotRequired, TypedDict\nclass Air_FindFlightsOutputFlight(")
    assert "async def air__ping" not in rendered  # only the tools asked for


def test_a_package_generated_before_code_mode_offers_no_code_mode_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subpackage without `stubs.pyi`: the other modes work as before; asking for code mode says what to do."""
    (tmp_path / "oldpkg" / "time").mkdir(parents=True)
    (tmp_path / "oldpkg" / "__init__.py").write_text("")
    (tmp_path / "oldpkg" / "time" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load("oldpkg", [("time", "time", [])]) is None
    entries = [Entry("time", {"name": "now", "inputSchema": {"type": "object"}})]
    assert ToolSet(Catalog(entries), mode="direct").mode == "direct"
    with pytest.raises(ValueError, match=r"code mode needs the stubs `mcpvend generate` writes \(stubs.pyi\)"):
        ToolSet(Catalog(entries), mode="code")
