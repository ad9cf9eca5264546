"""A server whose tools answer with structured results of 2026-07-28 shapes: `letters` (an array, under an array
output schema, which 2025-11-25 cannot describe) and `count` (an object, which both eras can).

The SDK's low-level server, so that the schemas are listed as written. Run it over stdio: `python shapes.py`.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

WORD = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
TOOLS = [
    types.Tool(
        name="letters",
        description="The letters of a word, in order.",
        input_schema=WORD,
        output_schema={"type": "array", "items": {"type": "string"}},
    ),
    types.Tool(
        name="count",
        description="How many letters a word has.",
        input_schema=WORD,
        output_schema={"type": "object", "properties": {"letters": {"type": "integer"}}, "required": ["letters"]},
    ),
]


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    word = str((params.arguments or {}).get("word", ""))
    value: Any = list(word) if params.name == "letters" else {"letters": len(word)}
    text = types.TextContent(type="text", text=json.dumps(value))
    return types.CallToolResult(content=[text], structured_content=value)


async def main() -> None:
    server = Server[Any]("shapes", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
