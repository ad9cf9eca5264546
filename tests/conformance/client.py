"""mcpvend's runtime MCP client as a client command of the official conformance suite.

The suite (`conformance client --command "<python> tests/conformance/client.py" --scenario S`)
starts a mock streamable-HTTP server, appends its URL as the last argument and names the
scenario in MCP_CONFORMANCE_SCENARIO. Exit 0 when the scenario's steps ran, 1 otherwise; the
suite's own checks decide whether they were right.

Options (before the URL): `--protocol auto|legacy|2026-07-28` (default: auto, the runtime's default);
for the negative tests, `--skip-call` (connect and list, call no tool: `tools_call` must fail) and
`--no-connect` (exit 0 at once: the suite then records no check at all).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import get_args

from pydantic import BaseModel

# Runs as a script under the venv's Python: make the repo's `generator` importable from any cwd.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcpvend.runtime.client.connection import open_client
from mcpvend.runtime.client.methods import list_tools_raw
from mcpvend.runtime.client.streams import WireTap
from mcpvend.runtime.client.targets import HttpTarget, Protocol
from mcpvend.runtime.wrappers.tools import ToolsBase

SCENARIOS = ("initialize", "tools_call")


class AddNumbersInput(BaseModel):
    """The input of the mock server's `add_numbers`, as a generated wrapper would type it."""

    a: float
    b: float


async def run(url: str, scenario: str, protocol: Protocol, *, skip_call: bool = False) -> None:
    tap = WireTap()
    async with open_client(HttpTarget(url=url), protocol=protocol, tap=tap) as client:
        print(f"connected: protocol {client.protocol_version}")
        if scenario != "tools_call":
            return
        tools, _ = await list_tools_raw(client, tap)
        names = [tool.get("name") for tool in tools if isinstance(tool, dict)]
        print(f"tools: {names}")
        if "add_numbers" not in names:
            raise LookupError("the server does not list add_numbers")
        if skip_call:
            return
        # The path generated wrappers take: validate the input, call, raise on isError.
        result = await ToolsBase(client, timeout=30.0)._call_content(
            "add_numbers", AddNumbersInput, None, {"a": 2, "b": 3}
        )
        print(f"add_numbers(2, 3): {result.text}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--protocol", choices=get_args(Protocol), default="auto")
    parser.add_argument("--skip-call", action="store_true")
    parser.add_argument("--no-connect", action="store_true")
    parser.add_argument("url")
    args = parser.parse_args(argv)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if scenario not in SCENARIOS:
        print(f"unsupported scenario {scenario!r} (MCP_CONFORMANCE_SCENARIO); this client runs {SCENARIOS}")
        return 2
    if args.no_connect:
        return 0
    try:
        asyncio.run(run(args.url, scenario, args.protocol, skip_call=args.skip_call))
    except Exception as exc:  # noqa: BLE001 - any failure is a failed scenario; say which
        cause: BaseException = exc
        while isinstance(cause, BaseExceptionGroup) and cause.exceptions:  # task groups wrap the real error
            cause = cause.exceptions[0]
        print(f"{scenario} failed: {type(cause).__name__}: {cause}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
