"""A server that echoes its environment: what `lock`, `serve` and a generated package started it with.

`python tests/servers/env_echo.py [NAME ...]`: its instructions give each NAME's value as the server
was started (so a lockfile shows what `lock` passed); `search_environment` answers any variable's
value at run time, and the interpreter that runs the server.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

NAMES = sys.argv[1:]
server = MCPServer(
    name="mcpvend-env-echo",
    version="1.0.0",
    instructions="Started with: " + ", ".join(f"{name}={os.environ.get(name)!r}" for name in NAMES),
)


class Variable(BaseModel):
    value: str | None = Field(description="The variable's value; null when it is not set.")
    python: str = Field(description="The interpreter that runs this server.")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False))
def search_environment(name: str) -> Variable:
    """Look up one environment variable of this server's process."""
    return Variable(value=os.environ.get(name), python=sys.executable)


if __name__ == "__main__":
    server.run("stdio")
