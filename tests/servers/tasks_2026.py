"""A FastMCP server whose tools run as tasks through the `io.modelcontextprotocol/tasks` extension (SEP-2663).

On MCP 2026-07-28 (over stdio), with fastmcp-tasks' in-memory Docket backend and worker in this
process. What the tests need a server to show, it says or leaves on disk in its working directory
(files, not timing): whether a call ran as a task (`where_ran`), that a task saw its cancellation
(`slow`), and when the caller has seen progress (`steps` waits for that before it finishes, so no test
races a poll); `add_up` has an output schema, `greet` asks for input. Run it: `python tests/servers/tasks_2026.py`.
"""

from __future__ import annotations

import asyncio
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import mcp_types as types
from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from fastmcp_tasks.context import get_task_context
from pydantic import BaseModel, Field

WORK = Path.cwd()
POLL = timedelta(milliseconds=100)  # the pollInterval it suggests: tests need not wait its default 5 s
server = FastMCP("mcpvend-tasks")
server.add_extension(TasksExtension(url="memory://"))


class Total(BaseModel):
    total: int = Field(description="The sum of the numbers.")
    count: int = Field(description="How many numbers were summed.")


@server.tool(task=TaskConfig(mode="required", poll_interval=POLL))
async def add_up(numbers: list[int]) -> Total:
    """Sum numbers, as a background task only."""
    return Total(total=sum(numbers), count=len(numbers))


@server.tool(task=TaskConfig(mode="optional", poll_interval=POLL))
async def where_ran(label: str) -> str:
    """Say whether this call ran as a task or inline."""
    return f"{label}: {'task' if get_task_context() is not None else 'inline'}"


def leave(name: str, text: str) -> None:
    """Write a file the tests read, whole or not at all: a test polling for it never reads it half-written."""
    partial = WORK / f".{name}.partial"
    partial.write_text(text, encoding="utf-8")
    partial.replace(WORK / name)


@server.tool(task=TaskConfig(mode="required", poll_interval=POLL))
async def slow(label: str, seconds: float = 30.0) -> str:
    """Sleep, leaving `LABEL-started` (this process's id) and `LABEL-ended` ("cancelled" or "finished")."""
    leave(f"{label}-started", str(os.getpid()))
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        leave(f"{label}-ended", "cancelled")
        raise
    leave(f"{label}-ended", "finished")
    return "slept"


@server.tool(task=TaskConfig(mode="required", poll_interval=POLL))
async def steps(label: str, ctx: Context) -> str:
    """Report progress, then wait until the caller has seen it (the caller leaves `LABEL-seen`)."""
    await ctx.report_progress(1, 2, message="halfway there")
    while not (WORK / f"{label}-seen").exists():
        await asyncio.sleep(0.05)
    return "done"


@server.tool(task=TaskConfig(mode="required", poll_interval=POLL), output_schema=None)
async def greet(ctx: Context) -> Any:
    """Ask the caller for a name (SEP-2663: the task waits in `input_required`), then greet it."""
    answer = (ctx.input_responses or {}).get("name")
    if not isinstance(answer, types.ElicitResult) or answer.content is None:
        schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        ask = types.ElicitRequest(params=types.ElicitRequestFormParams(message="Your name?", requested_schema=schema))
        return types.InputRequiredResult(input_requests={"name": ask})
    return f"Hello, {answer.content['name']}!"


if __name__ == "__main__":
    server.run(show_banner=False)
