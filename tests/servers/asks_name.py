"""A server whose tools ask their client for input while they run, through resolvers: elicitation (`greet`),
sampling (`poem`) and roots (`places`).

On 2026-07-28 the SDK answers `tools/call` with `input_required` and finishes the call when the
client sends it again with the answers; on 2025-11-25 it sends each request mid-call. Run it
over stdio (`python asks_name.py`) or streamable HTTP (`python asks_name.py --http PORT`).
"""

from __future__ import annotations

import sys
from typing import Annotated

import mcp_types as types
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from pydantic import BaseModel, Field

server = MCPServer(name="asks-name", version="1.0.0")


class Person(BaseModel):
    name: str = Field(description="Your name.")


def ask() -> Elicit[Person]:
    return Elicit("What is your name?", Person)


@server.tool()
def greet(person: Annotated[ElicitationResult[Person], Resolve(ask)], greeting: str = "Hello") -> str:
    """Greet the user by the name they give when asked."""
    if isinstance(person, AcceptedElicitation):
        return f"{greeting}, {person.data.name}!"
    return f"{greeting}, stranger (the user answered {person.action})."


def ask_for_a_line(topic: str) -> Sample:
    prompt = types.TextContent(type="text", text=f"One line about {topic}.")
    return Sample([types.SamplingMessage(role="user", content=prompt)], max_tokens=50)


@server.tool()
def poem(line: Annotated[types.CreateMessageResult, Resolve(ask_for_a_line)], topic: str) -> str:
    """A line about a topic, written by the client's model."""
    written = line.content.text if isinstance(line.content, types.TextContent) else "(not text)"
    return f"{written} ({line.model})"


def ask_for_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def places(roots: Annotated[types.ListRootsResult, Resolve(ask_for_roots)]) -> str:
    """The client's roots, as it lists them."""
    return ", ".join(str(root.uri) for root in roots.roots) or "no roots"


@server.tool()
def era(ctx: Context) -> str:
    """The protocol version this call was made in."""
    return ctx.protocol_version or "unknown"


@server.tool()
def forecast(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """The weather of a region; over HTTP the region also travels in the Mcp-Param-Region header."""
    return f"sunny in {region}"


class Blob(BaseModel):
    data: str


@server.tool()
def blob(size: int) -> Blob:
    """A structured result of `size` characters (for result bounds)."""
    return Blob(data="x" * size)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
