"""`mcpvend serve` speaks each client's era: a 2026-07-28 server's tools, served to a 2025-11-25 client, are
listed and answered in shapes that client's protocol can hold (tests/servers/shapes.py's array result)."""

from __future__ import annotations

import json
import os
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from conftest import PY, SERVERS, mcpvend, write_config
from mcpvend.serve_eras import era_tools

pytestmark = pytest.mark.anyio
ARRAY = {"type": "array", "items": {"type": "string"}}
OBJECT = {"type": "object", "properties": {"letters": {"type": "integer"}}, "required": ["letters"]}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> StdioServerParameters:
    """tests/servers/shapes.py locked in its own era (2026-07-28) and generated, served over stdio."""
    root = tmp_path_factory.mktemp("shapes")
    write_config(root, {"shapes": {"command": PY, "args": [str(SERVERS / "shapes.py")]}})
    for command in ("lock", "generate"):
        run = mcpvend(command, cwd=root)
        assert run.code == 0, run.err
    assert json.loads((root / "lockfiles" / "shapes.lock.json").read_text())["protocolVersion"] == "2026-07-28"
    args = ["-m", "mcpvend", "serve", "--mode", "direct"]
    return StdioServerParameters(command=PY, args=args, cwd=str(root), env=dict(os.environ))


def schemas(listing: Any) -> dict[str, Any]:
    return {tool.name: tool.output_schema for tool in listing.tools}


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_a_2025_11_25_client_gets_the_tools_without_the_schemas_its_era_cannot_hold(
    shapes: StdioServerParameters,
) -> None:
    async with Client(shapes, mode="legacy") as client:
        assert client.session.protocol_version == "2025-11-25"
        assert schemas(await client.list_tools()) == {"shapes__letters": None, "shapes__count": OBJECT}
        letters = await client.call_tool("shapes__letters", {"word": "abc"})
        assert (letters.is_error, letters.structured_content) == (False, None)
        assert json.loads(text(letters)) == ["a", "b", "c"]  # the text still carries it
        count = await client.call_tool("shapes__count", {"word": "abc"})
        assert (count.is_error, count.structured_content) == (False, {"letters": 3})


async def test_a_2026_07_28_client_gets_the_reviewed_schemas_and_results_whole(shapes: StdioServerParameters) -> None:
    async with Client(shapes, mode="2026-07-28") as client:
        assert schemas(await client.list_tools()) == {"shapes__letters": ARRAY, "shapes__count": OBJECT}
        letters = await client.call_tool("shapes__letters", {"word": "abc"})
        assert (letters.is_error, letters.structured_content) == (False, ["a", "b", "c"])


def test_a_tool_its_era_cannot_hold_even_without_its_output_schema_is_left_out_with_a_note(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The lock's schema checks keep such a tool out of any lockfile; this is what serve would do all the same."""
    odd = types.Tool(name="odd", input_schema={"type": "object", "properties": {"a": "not a schema"}})
    plain = types.Tool(name="plain", input_schema={"type": "object"}, output_schema=ARRAY)
    assert era_tools([odd, plain], "2026-07-28") == [odd, plain]
    assert era_tools([odd, plain], "2025-11-25") == [types.Tool(name="plain", input_schema={"type": "object"})]
    assert "tool 'odd' left out of a 2025-11-25 client's listing" in caplog.text
