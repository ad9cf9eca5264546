"""The ToolSet against real servers: every mode, validation, results, concurrency, timeouts, crashes."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from conftest import REPO, locked_package, mcpvend, node_server, replay, write_config, write_tools
from mcpvend.runtime.textformats.calls import ParsedCall

pytestmark = pytest.mark.anyio
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the committed golden package `generated`


@pytest.fixture(scope="module")
def generated() -> ModuleType:
    node_server("server-everything")
    node_server("server-filesystem")
    return importlib.import_module("generated")


def text_of(result: Any) -> Any:
    return json.loads(result.text)


# --- every mode against real servers --------------------------------------------------------


@pytest.mark.parametrize("mode", ["direct", "compact", "routed"])
async def test_every_mode_calls_real_tools_by_name_and_through_call_tool(generated: ModuleType, mode: str) -> None:
    async with generated.toolset(
        ["time", "everything", "demo"], mode=mode, connection=generated.ConnectionOptions(cwd=str(REPO))
    ) as ts:
        names = [s["function"]["name"] for s in ts.tool_specs("openai")]
        if mode == "direct":
            assert "time__get_current_time" in names and "get_tool_schema" not in names
        elif mode == "compact":
            assert "time__get_current_time" in names and names[-1] == "get_tool_schema"
        else:
            assert names == ["search_tools", "list_categories", "browse_category", "get_tool_schema", "call_tool"]
        now = await ts.call("time__get_current_time", {"timezone": "Europe/Paris"})
        assert not now.is_error, now.text
        assert now.structured["timezone"] == "Europe/Paris"
        echoed = await ts.call("call_tool", {"name": "everything__echo", "arguments": {"message": "hi there"}})
        assert not echoed.is_error and "hi there" in echoed.text
        converted = await ts.call("demo.convert_temperature", '{"value": 100, "to": "fahrenheit"}')
        assert converted.text == "212.00 fahrenheit"


async def test_the_issue_example_auto_plan_specs_call(generated: ModuleType) -> None:
    ts = generated.toolset(servers=["time", "everything"], mode="auto", budget=generated.Budget(context_window=128_000))
    try:
        plan = ts.plan()
        assert plan.mode == "direct" and plan.tools == 15
        assert "chosen by auto" in str(plan)
        for fmt in ("openai", "anthropic", "mcp"):
            assert len(ts.tool_specs(format=fmt)) == 15
        result = await ts.call("everything__get-sum", {"a": 2, "b": 40})
        assert "42" in result.text and not result.is_error
    finally:
        await ts.close()
    small = generated.toolset(servers=["time", "everything"], budget=generated.Budget(context_window=8_000))
    assert small.mode == "compact"  # 15 tools' full schemas exceed 1,600 tokens; their compact listing (673) does not


async def test_routed_meta_tools(generated: ModuleType) -> None:
    bundles = {"clock": ["time/*", "everything/get-sum"]}
    async with generated.toolset(
        ["time", "everything", "filesystem"], mode="routed", routing=generated.RoutingOptions(bundles=bundles)
    ) as ts:
        categories = text_of(await ts.call("list_categories"))["categories"]
        assert categories == [
            {"name": "everything", "kind": "server", "tools": 13},
            {"name": "filesystem", "kind": "server", "tools": 14},
            {"name": "time", "kind": "server", "tools": 2},
            {"name": "clock", "kind": "bundle", "tools": 3},
        ]
        page = text_of(await ts.call("browse_category", {"category": "clock"}))
        assert page["pages"] == 1 and [t["name"] for t in page["tools"]] == [
            "everything__get-sum",
            "time__convert_time",
            "time__get_current_time",
        ]
        assert (await ts.call("browse_category", {"category": "filesystem", "page": 2})).is_error
        unknown = await ts.call("browse_category", {"category": "nope"})
        assert unknown.is_error and "everything, filesystem, time, clock" in unknown.text
        found = text_of(await ts.call("search_tools", {"query": "read the contents of a text file", "limit": 3}))
        assert "filesystem__read_text_file" in [t["name"] for t in found["tools"]]
        assert set(ts.materialized) == {t["name"] for t in found["tools"]}
        specs = ts.tool_specs("openai")
        assert len(specs) == 5 + 3 and specs[5]["function"]["parameters"]["type"] == "object"
        schema = text_of(await ts.call("get_tool_schema", {"name": "time__convert_time"}))
        assert schema["inputSchema"]["required"] == ["source_timezone", "time", "target_timezone"]
        assert schema["annotations"]["readOnlyHint"] is True
        bad = await ts.call("search_tools", {"limit": 3})
        assert bad.is_error and "'query' is a required property" in bad.text and '"query"' in bad.text


# --- validation and errors -------------------------------------------------------------------


async def test_invalid_arguments_return_the_error_and_the_schema(generated: ModuleType) -> None:
    async with generated.toolset(["time", "demo"], mode="compact") as ts:
        missing = await ts.call("time__convert_time", {"time": "10:00"})
        assert missing.is_error
        assert "'source_timezone' is a required property" in missing.text
        assert json.dumps(ts.catalog.by_provider["time__convert_time"].tool["inputSchema"], separators=(",", ":"))[
            :60
        ] in (missing.text)
        wrong_type = await ts.call("demo__convert_temperature", {"value": "hot"})
        assert wrong_type.is_error and "at $.value: 'hot' is not of type 'number'" in wrong_type.text
        assert (await ts.call("demo__convert_temperature", {"value": 1, "to": "rankine"})).is_error
        assert "not valid JSON" in (await ts.call("time__get_current_time", "{nope")).text
        assert "must be a JSON object" in (await ts.call("time__get_current_time", [1])).text  # type: ignore[arg-type]
        unknown = await ts.call("get_time_now", {})
        assert unknown.is_error and "there is no tool named 'get_time_now'; did you mean" in unknown.text
        meta = await ts.call("call_tool", {"name": "search_tools", "arguments": {"query": "x"}})
        assert meta.is_error and "is a meta-tool" in meta.text


async def test_a_number_json_cannot_carry_is_refused_and_never_reaches_the_server(tmp_path: Path) -> None:
    """`1e999` reads as an infinity, which a schema's "number" accepts and the SDK sends as null: the server would
    act on no value at all. Refused before any server, whether the model sent JSON text, a dict or a text format."""
    tools = [{"name": "limit", "inputSchema": {"type": "object", "properties": {"n": {"type": ["number", "null"]}}}}]
    calls = tmp_path / "calls.jsonl"
    write_config(tmp_path, {"rec": replay(write_tools(tmp_path / "t.json", tools), "--record", str(calls))})
    with locked_package(tmp_path, "recording_package") as package:
        async with package.toolset(mode="direct") as ts:
            for arguments in (
                '{"n": 1e999}',
                '{"n": -1E400}',
                '{"n": NaN}',
                {"n": float("inf")},
                {"n": [float("nan")]},
            ):
                refused = await ts.call("rec__limit", arguments)
                assert refused.is_error and "rec__limit" in refused.text, arguments
            assert "a number JSON cannot carry (inf) at $.n" in (await ts.call("rec__limit", {"n": float("inf")})).text
            for fmt in ("hermes", "json", "mistral"):
                text = ts.text_calls([ParsedCall("rec__limit", {"n": 1.5}, "abcdefghi")], format=fmt)
                parsed = ts.parse_calls(text.replace("1.5", "1e999"), format=fmt)
                assert parsed.calls == () and "beyond what a JSON number can carry" in parsed.errors[0].message, fmt
            assert not calls.exists()  # nothing reached the server
            assert not (await ts.call("rec__limit", '{"n": 1e300}')).is_error
    assert [json.loads(line)["arguments"] for line in calls.read_text().splitlines()] == [{"n": 1e300}]


async def test_pydantic_model_validation_runs_too(crashy: ModuleType) -> None:
    """jsonschema does not check `format`; the generated model (a `date` field) does, so both must run."""
    async with crashy.toolset() as ts:
        entry = ts.catalog.by_provider["crashy__weekday"]
        assert entry.input_class == "WeekdayInput" and entry.models == f"{crashy.__name__}.crashy.models"
        assert (await ts.call("crashy__weekday", {"day": "2026-11-22"})).text == "Sunday"
        bad = await ts.call("crashy__weekday", {"day": "the 22nd"})
        assert (
            bad.is_error
            and "invalid arguments for crashy__weekday: at $.day:" in bad.text
            and '"format":"date"' in bad.text
        )


async def test_tool_errors_and_media_results(generated: ModuleType, tmp_path: Path) -> None:
    async with generated.toolset(
        ["everything"], mode="direct", results=generated.ResultOptions(media_dir=str(tmp_path))
    ) as ts:
        image = await ts.call("everything__get-tiny-image", {})
        assert not image.is_error and image.media and image.media[0].mime_type == "image/png"
        assert image.media[0].sha256 in image.text and "base64" not in image.text
        assert Path(image.media[0].location).read_bytes() == ts.media.get(image.media[0].sha256)
        structured = await ts.call("everything__get-structured-content", {"location": "New York"})
        assert not structured.is_error and isinstance(structured.structured["temperature"], int | float)


async def test_long_results_are_truncated(generated: ModuleType) -> None:
    async with generated.toolset(["everything"], results=generated.ResultOptions(max_chars=40)) as ts:
        result = await ts.call("everything__echo", {"message": "x" * 500})
        assert result.text.startswith("Echo: xxx") and "truncated" in result.text and len(result.text) < 200


async def test_pinning_refuses_a_drifted_tool_with_an_error_result(crashy: ModuleType, tmp_path: Path) -> None:
    """A manifest whose reviewed description differs from what the live server serves."""
    root = tmp_path
    locked = Path(crashy.__file__).parents[1]  # the module's crashy project: its config and lockfile
    shutil.copy(locked / "mcpvend.toml", root / "mcpvend.toml")
    shutil.copytree(locked / "lockfiles", root / "lockfiles")
    lock = json.loads((root / "lockfiles" / "crashy.lock.json").read_text())
    assert mcpvend("--output", "driftpkg", "generate", cwd=root).code == 0
    manifest = root / "driftpkg" / "crashy" / "manifest.json"
    data = json.loads(manifest.read_text())
    (echo,) = [t for t in data["tools"] if t["tool"]["name"] == "echo"]
    echo["tool"]["_meta"] = {"reviewed": "another version"}  # as if the server changed `echo`
    manifest.write_text(json.dumps(data))
    assert [t["tool"]["name"] for t in data["tools"]] == [t["tool"]["name"] for t in lock["tools"]]
    sys.path.insert(0, str(root))
    try:
        package = importlib.import_module("driftpkg")
        async with package.toolset(["crashy"]) as ts:
            refused = await ts.call("crashy__echo", {"text": "x"})
            assert refused.is_error and "refused" in refused.text
            assert (await ts.call("crashy__pid", {})).text.isdigit()
        async with package.toolset(["crashy"], connection=package.ConnectionOptions(pinning="off")) as ts:
            assert (await ts.call("crashy__echo", {"text": "x"})).text == "x"
    finally:
        sys.path.remove(str(root))


# --- concurrency, timeouts, crashes ----------------------------------------------------------


async def test_a_hundred_concurrent_calls_each_get_their_own_result(generated: ModuleType) -> None:
    results: dict[int, Any] = {}
    async with generated.toolset(["everything"], mode="routed") as ts:

        async def one(i: int) -> None:
            results[i] = await ts.call("everything__echo", {"message": f"call-{i}-end"})

        async with anyio.create_task_group() as group:
            for i in range(100):
                group.start_soon(one, i)
        assert ts.pool is not None and ts.pool.connections["everything"].restarts == 0
    assert all(results[i].text == f"Echo: call-{i}-end" for i in range(100)), [results[i].text for i in range(3)]


SLOW_START = {"crashy": {"CRASHY_START_DELAY": "2.5"}}


async def test_starting_a_server_and_calling_a_tool_have_separate_bounds(crashy: ModuleType) -> None:
    """A 1.5 s call timeout does not fail a server that takes 2.5 s to start (starting has the lockfile's, 30 s)."""
    async with crashy.toolset(connection=crashy.ConnectionOptions(timeout=1.5, env=SLOW_START)) as ts:
        assert (await ts.call("crashy__echo", {"text": "started"})).text == "started"
        slow = await ts.call("crashy__sleep", {"seconds": 5})
        assert slow.is_error and slow.text == "tool 'crashy__sleep' timed out after 1.5 s"
    async with crashy.toolset(connection=crashy.ConnectionOptions(start_timeout=1, env=SLOW_START)) as ts:
        late = await ts.call("crashy__echo", {"text": "x"})
        assert late.is_error and late.text == "server 'crashy' did not start within 1 s"


async def test_the_typed_wrappers_bound_starting_and_calls_separately(crashy: ModuleType) -> None:
    async with crashy.crashy.connect(timeout=1.5, env=SLOW_START["crashy"]) as tools:
        assert (await tools.echo(text="started")).result == "started"
    with pytest.raises(crashy.ConnectError, match=r"^server 'crashy' did not start within 1 s$"):
        async with crashy.crashy.connect(start_timeout=1, env=SLOW_START["crashy"]):
            pass


async def test_per_call_timeout(crashy: ModuleType) -> None:
    async with crashy.toolset(connection=crashy.ConnectionOptions(timeout=1.0)) as ts:
        slow = await ts.call("crashy__sleep", {"seconds": 5})
        assert slow.is_error and "timed out after 1 s" in slow.text
        assert (await ts.call("crashy__echo", {"text": "still here"})).text == "still here"


async def test_a_crashed_server_is_restarted_and_read_only_calls_are_retried(
    crashy: ModuleType, tmp_path: Path
) -> None:
    async with crashy.toolset() as ts:
        first = int((await ts.call("crashy__pid", {})).text)
        read = await ts.call("crashy__flaky_read", {"marker": str(tmp_path / "read")})
        assert not read.is_error, read.text
        assert (tmp_path / "read").exists() and read.text != f"answered by {first}"  # a new process answered
        write = await ts.call("crashy__flaky_write", {"marker": str(tmp_path / "write")})
        assert write.is_error and "was not repeated" in write.text and "not annotated read-only" in write.text
        after = int((await ts.call("crashy__pid", {})).text)
        assert after != first
        assert ts.pool is not None and ts.pool.connections["crashy"].restarts == 2


async def test_concurrent_calls_survive_a_crash(crashy: ModuleType, tmp_path: Path) -> None:
    """Calls in flight when the server dies: read-only ones are retried, all get a correct answer."""
    async with crashy.toolset() as ts:
        results: dict[int, Any] = {}

        async def one(i: int) -> None:
            results[i] = await ts.call("crashy__sleep", {"seconds": 0.5, "text": f"r{i}"})

        async with anyio.create_task_group() as group:
            for i in range(20):
                group.start_soon(one, i)
            await anyio.sleep(0.2)
            group.start_soon(ts.call, "crashy__flaky_read", {"marker": str(tmp_path / "m")})
        assert [results[i].text for i in range(20)] == [f"r{i}" for i in range(20)]


async def test_a_server_that_cannot_start_gives_an_error_result(crashy: ModuleType) -> None:
    ts = crashy.toolset(connection=crashy.ConnectionOptions(env={"crashy": {"SECRET_TOKEN": "hunter2-sentinel"}}))
    connection = ts.pool.connections["crashy"]
    locked = connection.resolve()  # the package's own (vendored) target class
    connection.resolve = lambda: type(locked)(command="/nonexistent/server", env=locked.env)
    async with ts:
        failed = await ts.call("crashy__echo", {"text": "x"})
        assert failed.is_error
        assert (
            "server 'crashy' could not be started: cannot start the command: No such file or directory" in failed.text
        )
        assert "hunter2-sentinel" not in failed.text


def test_unknown_server_is_named(generated: ModuleType) -> None:
    with pytest.raises(KeyError, match="no server named 'nope' in generated"):
        generated.toolset(["nope"])


async def test_a_toolset_over_streamable_http(everything_http: str, tmp_path: Path) -> None:
    """server-everything over streamable HTTP, locked and generated, then called in routed mode."""
    write_config(tmp_path, {"remote": {"url": everything_http}})
    for args in (("lock",), ("--output", "httppkg", "generate")):
        run = mcpvend(*args, cwd=tmp_path)
        assert run.code == 0, run.err
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module("httppkg")
        async with package.toolset(mode="routed") as ts:
            results = [await ts.call("call_tool", {"name": "remote__echo", "arguments": {"message": m}}) for m in "ab"]
            assert [r.text for r in results] == ["Echo: a", "Echo: b"]
            image = await ts.call("remote__get-tiny-image", {})
            assert image.media and image.media[0].location.startswith("memory:")
    finally:
        sys.path.remove(str(tmp_path))


async def test_a_read_only_call_whose_retry_dies_too_gives_up(crashy: ModuleType) -> None:
    async with crashy.toolset() as ts:
        result = await ts.call("crashy__always_die", {})
        assert result.is_error and "stopped during the call twice; giving up" in result.text
        assert ts.pool is not None and ts.pool.connections["crashy"].restarts == 2
        assert (await ts.call("crashy__echo", {"text": "back"})).text == "back"


async def test_a_server_that_crashes_in_a_loop_is_paused_not_restarted_on_every_call(
    crashy: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two failures in a row are restarted at once; the third pauses starts, doubling; a call in the
    pause is an error at once (no process started), and the first call after it starts the server."""
    pool = importlib.import_module(f"{crashy.__name__}._runtime.client.pool")
    now = [1_000.0]
    monkeypatch.setattr(pool, "clock", lambda: now[0])
    async with crashy.toolset() as ts:
        connection = ts.pool.connections["crashy"]
        first = await ts.call("crashy__always_die", {})
        assert "stopped during the call twice; giving up" in first.text and connection.failures == 2
        paused = await ts.call("crashy__always_die", {})  # dies once more: its retry finds the server paused
        assert paused.is_error and paused.text.endswith(
            "server 'crashy' failed 3 times in a row (the last: it stopped during a call); "
            "it is not started again for 1 s"
        )
        restarts = connection.restarts
        now[0] += 0.5
        still = await ts.call("crashy__echo", {"text": "x"})
        assert "it is not started again for 1 s" in still.text and connection.restarts == restarts
        now[0] += 0.6
        assert "for 2 s" in (await ts.call("crashy__always_die", {})).text  # started, died: paused twice as long
        now[0] += 2.1
        assert (await ts.call("crashy__echo", {"text": "back"})).text == "back"
        assert connection.failures == 0  # an answer ends the loop: the next crash is restarted at once again


async def test_a_json_rpc_error_is_an_error_result_without_secrets(crashy: ModuleType) -> None:
    async with crashy.toolset(
        connection=crashy.ConnectionOptions(env={"crashy": {"API_KEY": "sk-sentinel-9f3e"}})
    ) as ts:
        result = await ts.call("crashy__refuse", {})
        assert result.is_error
        assert result.text == "the call failed: the server answered with error -32050: quota exceeded for key ***"


async def test_an_unusable_input_schema_is_an_error_result() -> None:
    """A reviewed schema with a `$ref` that resolves nowhere: every call is refused with a reason, none raises."""
    from mcpvend.runtime.core.catalog import Catalog, Entry
    from mcpvend.runtime.toolset import ToolSet

    broken = {"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}}}
    ts = ToolSet(Catalog([Entry("s", broken)]), mode="direct")
    result = await ts.call("s__t", {"a": 1})
    assert result.is_error and "its reviewed input schema cannot be used (" in result.text and "Missing" in result.text


async def test_a_server_that_hangs_at_start_times_out(crashy: ModuleType) -> None:
    ts = crashy.toolset(connection=crashy.ConnectionOptions(start_timeout=1.0))
    connection = ts.pool.connections["crashy"]
    vendored = type(connection.resolve())
    connection.resolve = lambda: vendored(command="sleep", args=("30",))
    async with ts:
        result = await ts.call("crashy__echo", {"text": "x"})
        assert result.is_error and result.text == "server 'crashy' did not start within 1 s"


async def test_a_caller_cancelled_while_its_server_starts_leaves_no_server_running(crashy: ModuleType) -> None:
    """The server (a `sleep` that never answers) is stopped, not left to exit by itself an hour later."""
    ts = crashy.toolset()
    connection = ts.pool.connections["crashy"]
    vendored = type(connection.resolve())
    connection.resolve = lambda: vendored(command="sleep", args=("3600.25",))
    async with ts:
        with anyio.fail_after(20):  # far below the server's own life: it was stopped
            with anyio.move_on_after(1.0) as scope:
                await ts.call("crashy__echo", {"text": "x"})
            assert scope.cancelled_caught
            while running(b"sleep\x003600.25\x00"):
                await anyio.sleep(0.05)


def running(cmdline: bytes) -> bool:
    """Whether a process with exactly this command line runs (read from /proc: no procps needed)."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == cmdline:
                return True
        except OSError:  # it exited while we looked
            continue
    return False


async def test_typed_connect_lets_what_its_block_raised_out_unwrapped(crashy: ModuleType) -> None:
    """The SDK's task groups wrap exceptions in groups; `except MCPError` (or ToolError) must still catch them."""
    from mcp import MCPError

    typed = importlib.import_module(f"{crashy.__name__}.crashy")
    with pytest.raises(MCPError, match="quota exceeded"):
        async with typed.connect(timeout=10) as tools:
            await tools.refuse()
    with pytest.raises(KeyError, match="the caller's own"):
        async with typed.connect(timeout=10) as tools:
            assert await tools.echo(text="x")
            raise KeyError("the caller's own")


async def test_media_that_cannot_be_kept_is_an_error_result(generated: ModuleType, tmp_path: Path) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("", encoding="utf-8")
    async with generated.toolset(["everything"], results=generated.ResultOptions(media_dir=str(not_a_directory))) as ts:
        result = await ts.call("everything__get-tiny-image", {})
        assert result.is_error and "the result of 'everything__get-tiny-image' could not be kept:" in result.text


async def test_session_views_share_the_servers_and_keep_their_own_found_tools(generated: ModuleType) -> None:
    async with generated.toolset(["time", "demo"], mode="routed") as ts:
        async with ts.session() as one, ts.session() as two:
            await one.call("search_tools", {"query": "convert a temperature"})
            assert one.materialized and not two.materialized and not ts.materialized
            assert len(one.tool_specs()) > len(two.tool_specs()) == 5
            assert not (await one.call("time__get_current_time", {"timezone": "UTC"})).is_error
            started = ts.pool.connections["time"]._live
        assert started is not None and not started.holder.done()  # closing the views stopped nothing
        assert not (await two.call("time__get_current_time", {"timezone": "UTC"})).is_error
