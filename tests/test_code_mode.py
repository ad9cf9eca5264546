"""Code mode (issue 16): scripted model snippets run in the pydantic-monty sandbox against real servers.

Each snippet is what a model would write from `run_code`'s description; every tool call it makes
goes through `ToolSet.call` to a real server (time, demo, everything). Hostile snippets get an
error result and nothing else: no file, environment value or process of the host.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from conftest import PY, REPO, node_server

pytestmark = pytest.mark.anyio
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the committed golden package `generated`
SECRET = "MCPVEND_CODE_MODE_SECRET"  # the name of an environment variable
VALUE = "its-value-5f1c9d3e"  # and its value, which nothing may return


@pytest.fixture(scope="module")
def generated() -> ModuleType:
    node_server("server-everything")
    return importlib.import_module("generated")


def limits(generated: ModuleType, **values: Any) -> Any:
    return importlib.import_module("generated._runtime.code.sandbox").CodeLimits(**values)


async def run(ts: Any, code: str) -> Any:
    return await ts.call("run_code", {"code": code})


@pytest.fixture(scope="module")
async def snippets(generated: ModuleType) -> AsyncIterator[Any]:
    """One code-mode toolset over time, everything and demo for the scripted snippets: each server is
    started by the first snippet that calls it and serves the module's later snippets (none needs a fresh one)."""
    async with generated.toolset(
        ["time", "everything", "demo"], mode="code", connection=generated.ConnectionOptions(cwd=str(REPO))
    ) as ts:
        yield ts


# --- what the model sees ----------------------------------------------------------------------


async def test_one_tool_run_code_whose_description_is_rules_and_typed_stubs(generated: ModuleType) -> None:
    async with generated.toolset(
        ["time", "demo"], mode="code", connection=generated.ConnectionOptions(cwd=str(REPO))
    ) as ts:
        specs = ts.tool_specs("openai")
        again = generated.toolset(["time", "demo"], mode="code").tool_specs("openai")
        anthropic = ts.tool_specs("anthropic")
        plan = ts.plan()
    assert [s["function"]["name"] for s in specs] == ["run_code"]
    assert [s["name"] for s in anthropic] == ["run_code"]
    function = specs[0]["function"]
    assert function["parameters"]["required"] == ["code"]
    description = function["description"]
    assert description.startswith("Run Python (a sandboxed subset")
    assert "asyncio.gather" in description and "last expression" in description
    # The typed output of each tool, from its outputSchema, and the reviewed description as docstring.
    assert "class Time_GetCurrentTimeOutput(TypedDict):\n    timezone: str\n" in description
    assert "async def time__get_current_time(\n    *,\n    timezone: str," in description
    assert ') -> Time_GetCurrentTimeOutput:\n    """Get current time in a specific timezone"""' in description
    assert "async def demo__convert_temperature(" in description
    assert "search_tools" not in description  # every tool is listed: nothing to search for
    assert again == specs  # byte-stable: prompt caches keep hitting
    assert plan.mode == "code" and plan.code_tokens is not None
    assert f"code:    {plan.code_tokens:>7} tokens" in str(plan)


async def test_the_stubs_are_the_generated_files(generated: ModuleType) -> None:
    """What the model reads is the reviewed `stubs.pyi`, not text made at run time."""
    stubs = (REPO / "generated" / "time" / "stubs.pyi").read_text(encoding="utf-8")
    async with generated.toolset(["time"], mode="code") as ts:
        description = ts.tool_specs("openai")[0]["function"]["description"]
    for function in ("async def time__get_current_time(", "async def time__convert_time("):
        start = stubs.index(function)
        block = stubs[start : stubs.index('"""', stubs.index('"""', start) + 3) + 3]
        assert block in description


# --- scripted snippets against real servers -----------------------------------------------------


async def test_a_loop_over_results_with_printed_output(snippets: Any) -> None:
    code = (
        "total = 0\n"
        "for zone in ['Europe/Paris', 'Asia/Tokyo', 'UTC']:\n"
        "    now = await time__get_current_time(timezone=zone)\n"
        "    print(now['timezone'], now['day_of_week'] != '')\n"
        "    total += 1\n"
        "summed = await everything__get_sum(a=19, b=23)\n"
        "{'zones': total, 'sum': summed}"
    )
    result = await run(snippets, code)
    assert not result.is_error, result.text
    printed, value = result.text.rsplit("\n", 1)
    assert printed.splitlines() == ["Europe/Paris True", "Asia/Tokyo True", "UTC True"]
    assert result.structured["zones"] == 3 and "42" in result.structured["sum"]  # a text result: its text
    assert json.loads(value) == result.structured


async def test_asyncio_gather_of_ten_calls_keeps_their_order(snippets: Any) -> None:
    code = (
        "import asyncio\n"
        "sums = await asyncio.gather(*[everything__get_sum(a=i, b=100) for i in range(10)])\n"
        "zones = await asyncio.gather(time__get_current_time(timezone='Asia/Tokyo'),"
        " time__get_current_time(timezone='Europe/Paris'))\n"
        "[s.split()[-1] for s in sums], [z['timezone'] for z in zones]"
    )
    result = await run(snippets, code)
    assert not result.is_error, result.text
    sums, zones = result.structured
    assert [float(s.rstrip(".")) for s in sums] == [100.0 + i for i in range(10)]
    assert zones == ["Asia/Tokyo", "Europe/Paris"]


async def test_tool_errors_raise_runtime_error_the_snippet_can_catch(snippets: Any) -> None:
    code = (
        "caught = []\n"
        "for zone in ['Nowhere/Atlantis', 'UTC']:\n"
        "    try:\n"
        "        caught.append((await time__get_current_time(timezone=zone))['timezone'])\n"
        "    except RuntimeError as error:\n"
        "        caught.append('server: ' + str(error))\n"
        "try:\n"
        "    await demo__airports_find_by_code(code='cdg')\n"  # type-checks, fails the schema's pattern
        "except RuntimeError as error:\n"
        "    caught.append('schema: ' + str(error))\n"
        "caught"
    )
    result = await run(snippets, code)
    assert not result.is_error, result.text
    server, utc, schema = result.structured
    assert server.startswith("server: ") and "Nowhere/Atlantis" in server
    assert utc == "UTC"
    assert schema.startswith("schema: ") and "does not match '^[A-Z]{3}$'" in schema


async def test_an_uncaught_tool_error_is_the_result_with_the_output_before_it(snippets: Any) -> None:
    code = "print('before')\nawait time__get_current_time(timezone='Nowhere/Atlantis')\nprint('after')"
    result = await run(snippets, code)
    assert result.is_error
    assert result.text.startswith("before\n") and "after" not in result.text
    assert "RuntimeError" in result.text and "Nowhere/Atlantis" in result.text


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("await time__get_current_time(tz='Europe/Paris')", "Argument `tz` does not match any known parameter"),
        ("await everything__get_sum(a='1', b=2)", 'Expected `float`, found `Literal["1"]`'),
        ("(await time__get_current_time(timezone='UTC'))['zone']", 'Unknown key "zone" for TypedDict'),
        ("await time__now()", "Name `time__now` used when not defined"),
    ],
)
async def test_type_errors_come_back_with_the_line_before_any_tool_runs(
    generated: ModuleType, code: str, expected: str
) -> None:
    snippet = f"print('started')\nawait everything__echo(message='side effect')\n{code}"
    async with generated.toolset(["time", "everything"], mode="code") as ts:
        result = await run(ts, snippet)
        started = {name: conn._live is not None for name, conn in ts.pool.connections.items()}
    assert result.is_error
    assert result.text.startswith("the code was not run: it does not type-check against the tools' stubs")
    assert expected in result.text
    assert f"    3 | {code}" in result.text  # the offending line, numbered
    assert "started" not in result.text  # nothing ran: not the print, not a tool
    assert started == {"time": False, "everything": False}


async def test_calls_never_awaited_are_cancelled_when_the_snippet_ends(generated: ModuleType) -> None:
    code = "pending = everything__trigger_long_running_operation(duration=600, steps=2)\n'returned'"
    async with generated.toolset(["everything"], mode="code") as ts:
        with anyio.fail_after(60):  # not a speed bound: the call would take ten minutes
            result = await run(ts, code)
            echoed = await run(ts, "await everything__echo(message='still here')")
    assert (result.is_error, result.text) == (False, "returned")
    assert echoed.structured == "Echo: still here"


async def test_the_wall_clock_bound_cancels_a_snippet_waiting_on_a_tool(generated: ModuleType) -> None:
    code = "await everything__trigger_long_running_operation(duration=600, steps=2)"
    async with generated.toolset(
        ["everything"], mode="code", code=generated.CodeOptions(limits=limits(generated, wall_seconds=2))
    ) as ts:
        with anyio.fail_after(60):
            result = await run(ts, code)
    assert result.is_error
    assert result.text == "the code did not finish within 2 s; the calls still running were cancelled"


async def test_the_result_is_cut_at_max_result_chars(generated: ModuleType) -> None:
    async with generated.toolset(["time"], mode="code", results=generated.ResultOptions(max_chars=500)) as ts:
        result = await run(ts, "for i in range(200):\n    print('line', i)\n'end'")
    assert not result.is_error
    printed = "".join(f"line {i}\n" for i in range(200)) + "end"
    assert result.text == f"{printed[:500]}\n[truncated by mcpvend: showing 500 of {len(printed)} characters]"


@pytest.mark.parametrize(
    ("code", "printed"), [("10 ** 5000", ""), ("print('before')\n[1, {'n': -(10 ** 5000)}]", "before\n")]
)
async def test_a_result_with_no_text_form_is_an_error_result(generated: ModuleType, code: str, printed: str) -> None:
    """Python converts no int of more than 4300 digits to text: the model is told, the toolset goes on."""
    async with generated.toolset(["time"], mode="code") as ts:
        result = await run(ts, code)
        after = await run(ts, "10 ** 100")
    limit = sys.get_int_max_str_digits()
    reason = f"Exceeds the limit ({limit} digits) for integer string conversion"
    assert (result.is_error, result.text) == (True, f"{printed}the result cannot be shown: {reason}")
    assert (after.is_error, after.text) == (False, str(10**100))


@pytest.mark.parametrize("arguments", [{}, {"code": 1}, {"code": "1", "extra": True}])
async def test_run_code_takes_one_string_argument(generated: ModuleType, arguments: dict[str, Any]) -> None:
    async with generated.toolset(["time"], mode="code") as ts:
        result = await ts.call("run_code", arguments)
    assert result.is_error and result.text == 'run_code takes one argument, {"code": "<Python source>"}'


# --- hostile snippets -------------------------------------------------------------------------

HOSTILE = {
    "open a file": ("open('{file}').read()", "Name `open` used when not defined"),
    "read a file (pathlib)": ("from pathlib import Path\nPath('{file}').read_text()", "PermissionError"),
    "read a file (eval)": ("eval(\"open('{file}').read()\")", "PermissionError"),
    "write a file": ("from pathlib import Path\nPath('{file}.new').write_text('x')", "PermissionError"),
    "os.environ": (f"import os\nos.environ['{SECRET}']", "'os.environ' is not supported"),
    "os.getenv": (f"import os\nos.getenv('{SECRET}')", "'os.getenv' is not supported"),
    "os (exec)": (f"exec(\"import os\\nprint(os.environ['{SECRET}'])\")", "'os.environ' is not supported"),
    "os.system": ("import os\nos.system('id')", "Module `os` has no member `system`"),
    "subprocess": ("import subprocess\nsubprocess.run(['id'])", "Cannot resolve imported module `subprocess`"),
    "socket": ("import socket\nsocket.create_connection(('127.0.0.1', 80))", "Cannot resolve imported module"),
    "__import__": ("__import__('os')", "Name `__import__` used when not defined"),
    "__import__ (eval)": ("eval(\"__import__('os').environ\")", "NameError: name '__import__' is not defined"),
    "subclasses (eval)": ("eval('().__class__.__mro__[-1].__subclasses__()')", "has no attribute '__class__'"),
    "function globals": ("f = time__get_current_time\nf.__globals__", "has no attribute '__globals__'"),
    "infinite loop": ("while True:\n    pass", "TimeoutError: feed time limit exceeded"),
    "memory bomb": ("x = 'a' * (10 ** 9)\nlen(x)", "MemoryError: memory limit exceeded"),
    "growing memory": ("x = []\nwhile True:\n    x.append([0] * 100000)", "MemoryError: memory limit exceeded"),
    "deep recursion": ("def f(n: int) -> int:\n    return f(n + 1)\nf(0)", "RecursionError"),
    "a million calls": (
        "for i in range(1000000):\n    await time__get_current_time(timezone='UTC')",
        "the code called tools more than 20 times (the limit): it was stopped",
    ),
    "a million gathered calls": (
        "import asyncio\nawait asyncio.gather(*[time__get_current_time(timezone='UTC') for i in range(1000000)])",
        "the code called tools more than 20 times (the limit): it was stopped",
    ),
    "sleep": ("import time\ntime.sleep(10 ** 6)", "is not supported in this environment"),
}


@pytest.fixture(scope="module")
async def bounded(generated: ModuleType) -> AsyncIterator[Any]:
    """One toolset, tightly bounded, that every hostile snippet is run in: each must leave it working for
    the next (the time server it starts serves them all)."""
    options = generated.CodeOptions(limits=limits(generated, cpu_seconds=1, tool_calls=20))
    async with generated.toolset(["time"], mode="code", code=options) as ts:
        yield ts


@pytest.mark.parametrize("case", list(HOSTILE))
async def test_hostile_code_gets_an_error_result_and_nothing_else(
    bounded: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.setenv(SECRET, VALUE)
    target = tmp_path / "host.txt"
    target.write_text(f"host file {VALUE}", encoding="utf-8")
    code, expected = HOSTILE[case]
    with anyio.fail_after(60):  # none may hang the toolset
        result = await run(bounded, code.replace("{file}", str(target)))
        after = await run(bounded, "(await time__get_current_time(timezone='UTC'))['timezone']")
    assert result.is_error, result.text
    assert expected in result.text
    assert VALUE not in result.text and "host file" not in result.text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["host.txt"]
    assert os.environ[SECRET] == VALUE
    assert (after.is_error, after.text) == (False, "UTC")  # the toolset still works


# --- large catalogs, sessions, auto ------------------------------------------------------------


async def test_with_many_tools_it_lists_the_found_ones_and_a_snippet_searches_and_calls(
    generated: ModuleType,
) -> None:
    code = (
        "found = await search_tools(query='current time in a timezone', limit=2)\n"
        "print(found)\n"
        "(await time__get_current_time(timezone='Asia/Tokyo'))['timezone']"
    )
    servers = ["time", "everything", "demo"]
    async with generated.toolset(
        servers,
        mode="code",
        budget=generated.Budget(context_window=2_000),
        connection=generated.ConnectionOptions(cwd=str(REPO)),
    ) as ts:
        before = ts.tool_specs("openai")[0]["function"]["description"]
        result = await run(ts, code)
        after = ts.tool_specs("openai")[0]["function"]["description"]
        async with ts.session() as conversation:
            fresh = conversation.tool_specs("openai")[0]["function"]["description"]
    assert "Only the tools found so far are listed" in before
    assert "async def search_tools(query: str, limit: int = 5) -> str:" in before
    assert "async def time__get_current_time(" not in before
    assert not result.is_error, result.text
    assert result.text.startswith("from typing import TypedDict\nclass Time_GetCurrentTimeOutput(TypedDict):")
    assert result.text.endswith("\nAsia/Tokyo")
    assert "async def time__get_current_time(" in after  # found: listed from the next turn
    assert fresh == before  # another conversation's listing is its own


async def test_auto_picks_code_only_when_allowed(generated: ModuleType) -> None:
    servers = ["time", "everything"]
    allowed = generated.toolset(servers, code=generated.CodeOptions(allow=True)).plan()
    default = generated.toolset(servers).plan()
    assert (allowed.mode, allowed.requested) == ("code", "auto")
    assert "code allowed and its sandbox installed" in allowed.reason
    assert default.mode == "direct" and default.code_tokens == allowed.code_tokens
    assert allowed.code_tokens is not None and allowed.code_tokens < default.direct_tokens


def children() -> set[int]:
    """This process's child processes (the sandbox's workers among them)."""
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):  # a thread that has just ended
            found |= {int(pid) for pid in (task / "children").read_text().split()}
    return found


async def test_closing_a_toolset_stops_its_sandbox_workers(generated: ModuleType) -> None:
    before = children()
    async with generated.toolset(["time"], mode="code") as ts:
        assert (await ts.call("run_code", {"code": "1 + 1"})).text.endswith("2")
        workers = children() - before
        assert workers  # no tool was called, so these are the sandbox's
    assert not workers & children()


def test_a_blocking_toolset_stops_its_sandbox_workers_on_close(generated: ModuleType) -> None:
    before = children()
    with generated.toolset(["time"], mode="code") as ts:
        assert ts.call_sync("run_code", {"code": "1 + 1"}).text.endswith("2")
        workers = children() - before
        assert workers
    assert not workers & children()


# --- mcpvend serve --mode code -----------------------------------------------------------------


async def test_serve_in_code_mode_lists_run_code_and_runs_snippets(generated: ModuleType) -> None:
    expected = generated.toolset(["time", "everything"], mode="code").tool_specs("mcp")
    command = StdioServerParameters(
        command=PY, args=["-m", "mcpvend", "serve", "time", "everything", "--mode", "code"], cwd=str(REPO)
    )
    async with Client(command) as client:
        tools = await client.list_tools()
        result = await client.call_tool(
            "run_code", {"code": "import asyncio\nawait asyncio.gather(everything__get_sum(a=1, b=2))"}
        )
        wrong = await client.call_tool("run_code", {"code": "await everything__get_sum(a=1)"})
    assert [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools.tools] == expected
    assert not result.is_error and "3" in result.content[0].text  # type: ignore[union-attr]
    assert wrong.is_error and "missing-argument" in wrong.content[0].text  # type: ignore[union-attr]
