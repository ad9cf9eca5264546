"""MCP 2026-07-28 tool calls that ask for input (`input_required`), answered by the default handlers
(declined) or the user's, through the typed wrappers and the ToolSet; and the protocol era a server
was reviewed in is the one the package speaks."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from conftest import PY, SERVERS, locked_package, mcpvend, write_config

pytestmark = pytest.mark.anyio
ASKS = {"command": PY, "args": [str(SERVERS / "asks_name.py")], "capabilities": ["elicitation"]}


@pytest.fixture(scope="module")
def asks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The asking server locked twice: in its own era (2026-07-28) and pinned to the legacy one."""
    root = tmp_path_factory.mktemp("asks")
    write_config(root, {"modern": ASKS, "legacy": {**ASKS, "protocol": "legacy"}})
    with locked_package(root, "asks_pkg") as package:
        yield package


async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    assert params.message == "What is your name?"
    return types.ElicitResult(action="accept", content={"name": "Ada"})


@pytest.mark.parametrize("server", ["modern", "legacy"])
async def test_the_wrappers_decline_by_default_and_a_handler_answers(asks: ModuleType, server: str) -> None:
    wrappers = importlib.import_module(f"asks_pkg.{server}")
    async with wrappers.connect() as tools:
        assert (await tools.greet()).result == "Hello, stranger (the user answered decline)."
    async with wrappers.connect(elicitation=answer) as tools:
        assert (await tools.greet(greeting="Hi")).result == "Hi, Ada!"


async def test_the_toolset_decline_by_default_and_a_handler_answers(asks: ModuleType) -> None:
    async with asks.toolset(["modern"], mode="direct") as ts:
        declined = await ts.call("modern__greet", {})
        assert (declined.is_error, declined.text) == (False, "Hello, stranger (the user answered decline).")
    options = asks.ConnectionOptions(elicitation=answer)
    async with asks.toolset(["modern", "legacy"], mode="direct", connection=options) as ts:
        for server in ("modern", "legacy"):
            answered = await ts.call(f"{server}__greet", {"greeting": "Hi"})
            assert (answered.is_error, answered.text) == (False, "Hi, Ada!")


async def test_the_package_speaks_the_era_each_server_was_reviewed_in(asks: ModuleType) -> None:
    modern_tools, legacy_tools = (importlib.import_module(f"asks_pkg.{s}") for s in ("modern", "legacy"))
    async with modern_tools.connect() as modern, legacy_tools.connect() as legacy:
        assert (await modern.era()).result == "2026-07-28"
        assert (await legacy.era()).result == "2025-11-25"  # the server speaks both: the lockfile decides


def test_lock_notes_that_2026_deprecates_sampling_and_roots(tmp_path: Path) -> None:
    write_config(tmp_path, {"asks": {**ASKS, "capabilities": ["elicitation", "roots", "sampling"]}})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert "server 'asks': protocol 2026-07-28 deprecates the client capabilities roots, sampling" in run.err
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    write_config(legacy, {"asks": {**ASKS, "capabilities": ["sampling"], "protocol": "legacy"}})
    assert "deprecates" not in mcpvend("lock", cwd=legacy).err  # 2025-11-25 still has them


@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
async def test_serve_puts_the_question_to_its_own_client_or_declines(asks: ModuleType, era: str) -> None:
    root = Path(asks.__file__).parents[1]
    command = ["-m", "mcpvend", "--output", "asks_pkg", "serve"]
    served = StdioServerParameters(command=PY, args=command, cwd=str(root), env=dict(os.environ))
    async with Client(served, mode=era) as client:  # no elicitation handler: nothing is asked
        declined = await client.call_tool("modern__greet", {})
        assert (declined.is_error, text(declined)) == (False, "Hello, stranger (the user answered decline).")
    async with Client(served, mode=era, elicitation_callback=answer) as client:
        for server in ("modern", "legacy"):
            answered = await client.call_tool(f"{server}__greet", {"greeting": "Hi"})
            expected = "Hi, Ada!" if server == "modern" else "Hi, stranger (the user answered decline)."
            assert (answered.is_error, text(answered)) == (False, expected)  # a legacy upstream asks off-call


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_a_capability_the_lockfile_lacks_is_one_line_saying_what_to_add(tmp_path: Path) -> None:
    write_config(tmp_path, {"bare": {"command": PY, "args": [str(SERVERS / "asks_name.py")]}})
    with locked_package(tmp_path, "bare_pkg") as package:
        async with package.toolset(["bare"], mode="direct") as ts:
            refused = await ts.call("bare__greet", {})
    assert refused.is_error
    assert "requires the client capabilities elicitation (error -32021)" in refused.text
    assert 'add capabilities = ["elicitation"] to its config, then lock again' in refused.text
