"""The baseline for bench/lock.py: the least an SDK user writes to initialize and list tools."""

from __future__ import annotations

import sys

import anyio
from mcp import Client, StdioServerParameters


async def main() -> None:
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with Client(params, cache=None) as client:
        cursor, count = None, 0
        while True:
            page = await client.list_tools(cursor=cursor)
            count += len(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
    print(count)


anyio.run(main)
