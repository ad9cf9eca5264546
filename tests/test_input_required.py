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
from pydantic import FileUrl

from conftest import PY, SERVERS, locked_package, mcpvend, write_config

pytestmark = pytest.mark.anyio
ASKS = {"command": PY, "args": [str(SERVERS / "asks_name.py")], "capabilities": ["elicitation", "roots", "sampling"]}
SECRET = "acct-5Hq8w-relay-secret"


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


def serving(package: ModuleType) -> StdioServerParameters:
    """`mcpvend serve` of a generated package, in the project it was generated in."""
    command = ["-m", "mcpvend", "--output", package.__name__, "serve"]
    project = Path(package.__path__[0]).parent
    return StdioServerParameters(command=PY, args=command, cwd=str(project), env=dict(os.environ))


@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
async def test_serve_puts_the_question_to_its_own_client_or_declines(asks: ModuleType, era: str) -> None:
    served = serving(asks)
    async with Client(served, mode=era) as client:  # no elicitation handler: nothing is asked
        declined = await client.call_tool("modern__greet", {})
        assert (declined.is_error, text(declined)) == (False, "Hello, stranger (the user answered decline).")
    async with Client(served, mode=era, elicitation_callback=answer) as client:
        for server in ("modern", "legacy"):
            answered = await client.call_tool(f"{server}__greet", {"greeting": "Hi"})
            expected = "Hi, Ada!" if server == "modern" else "Hi, stranger (the user answered decline)."
            assert (answered.is_error, text(answered)) == (False, expected)  # a legacy upstream asks off-call


async def write(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    """serve's client's model: it writes a line about what it is asked."""
    (prompt,) = params.messages
    assert isinstance(prompt.content, types.TextContent)
    line = types.TextContent(type="text", text=f"Written on: {prompt.content.text}")
    return types.CreateMessageResult(role="assistant", content=line, model="pen-1")


async def roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(
        roots=[types.Root(uri=FileUrl(f"file:///work/{name}")) for name in ("ledger", "notes")]
    )


@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
async def test_serve_relays_sampling_and_roots_to_its_own_client_or_refuses(asks: ModuleType, era: str) -> None:
    """As elicitation: the answer of serve's client when it declared the capability, else the package's defaults
    (sampling refused, no roots); a legacy upstream asks off-call, and gets those defaults."""
    served = serving(asks)
    async with Client(served, mode=era) as client:  # it declares neither capability: it is not asked
        refused = await client.call_tool("modern__poem", {"topic": "tea"})
        assert refused.is_error and "this client does not sample" in text(refused), text(refused)
        assert text(await client.call_tool("modern__places", {})) == "no roots"
    async with Client(served, mode=era, sampling_callback=write, list_roots_callback=roots) as client:
        written = await client.call_tool("modern__poem", {"topic": "tea"})
        assert (written.is_error, text(written)) == (False, "Written on: One line about tea. (pen-1)")
        listed = await client.call_tool("modern__places", {})
        assert (listed.is_error, text(listed)) == (False, "file:///work/ledger, file:///work/notes")
        off_call = await client.call_tool("legacy__poem", {"topic": "tea"})
        assert off_call.is_error and "this client does not sample" in text(off_call), text(off_call)
        assert text(await client.call_tool("legacy__places", {})) == "no roots"


@pytest.fixture(scope="module")
def careless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """tests/servers/asks_secret.py given SECRET as its credential (its config's default), locked (it may sample) and generated."""
    root = tmp_path_factory.mktemp("careless")
    secret = {"command": PY, "args": [str(SERVERS / "asks_secret.py")], "capabilities": ["sampling"]}
    write_config(root, {"secret": {**secret, "env": {"ACCOUNT_TOKEN": f"${{RELAY_TOKEN:-{SECRET}}}"}}})
    with locked_package(root, "careless_pkg") as package:
        yield package


@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
async def test_a_request_to_sample_quoting_a_secret_reaches_the_client_masked(careless: ModuleType, era: str) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def record(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked.append(params)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="ok"), model="m")

    async with Client(serving(careless), mode=era, sampling_callback=record) as client:
        result = await client.call_tool("secret__summarize", {})
    assert (result.is_error, text(result)) == (False, "summary: ok")  # the answer still reaches the upstream
    (question,) = asked
    assert SECRET not in question.model_dump_json()
    assert question.system_prompt == "You keep the books of ***."
    assert question.messages[0].content == types.TextContent(type="text", text="Summarize the account ***.")


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
