"""The audit trail (issue 19): tool-calls.jsonl as documented, against real servers, under load and on a full disk."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import stat
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import PY, REPO, demo, mcpvend, node_server, write_config

pytestmark = pytest.mark.anyio
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

BUNDLES = {"clock": ["time/*"], "trips": ["demo/*"]}
ROUTES = [{"role": "researcher", "bundles": ["clock"]}, {"intent": "trip|travel", "bundles": ["trips"]}]
HEADER = ["version", "event", "time", "run", "conversation", "step"]
NOW = "time__get_current_time"
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


@pytest.fixture(scope="module")
def generated() -> ModuleType:
    node_server("server-everything")
    return importlib.import_module("generated")


def records(directory: Path) -> list[dict[str, Any]]:
    lines = (directory / "tool-calls.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def documented_digest(value: Any) -> str:
    """The README's definition, computed here on its own."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


async def test_the_trail_records_the_plan_routes_searches_materializations_and_calls(
    generated: ModuleType, tmp_path: Path
) -> None:
    audit = tmp_path / "runs" / "2026-11-24"  # made on first use
    intent = "Plan my trip to Tokyo, my passport is X1234567"
    routing = generated.RoutingOptions(bundles=BUNDLES, routes=ROUTES)
    async with generated.toolset(
        ["time", "demo", "everything"], mode="routed", routing=routing, audit=generated.AuditOptions(audit)
    ) as ts:
        decision = ts.route_sync(role="planner", step="plan", intent=intent)
        await ts.call("search_tools", {"query": "convert a temperature", "limit": 2})
        converted = await ts.call("demo__convert_temperature", '{"value": 100, "to": "kelvin"}')
        await ts.call("call_tool", {"name": "demo__airports_find-by-code_b73eb4", "arguments": {"code": "ZZZ"}})
        await ts.call("demo__convert_temperature", {"value": "hot"})
        await ts.call(NOW, {"timezone": "UTC"})  # not in this step
        await ts.call("no_such_tool", {})
        ts.route_sync(role="researcher")
        ts.expose(None)  # the caller's own choice is a decision on record too
        image = await ts.call("everything__get-tiny-image", {})
        await ts.call("list_categories")
    assert converted.text == "373.15 kelvin" and not image.is_error
    assert stat.S_IMODE((audit / "tool-calls.jsonl").stat().st_mode) == 0o600  # arguments may be kept: private
    found = records(audit)
    assert [r["event"] for r in found] == [
        "plan", "route", "search", "materialize", "call", "call", "call", "call", "call", "call",
        "route", "route", "call", "call",
    ]  # fmt: skip
    plan, route, search, materialize, searched, *calls = found[:10]
    for record in found:
        assert list(record)[:6] == HEADER and record["version"] == 1 and TIME.match(record["time"]), record
        assert record["run"] == plan["run"] and re.fullmatch("[0-9a-f]{32}", record["run"])
        assert record["conversation"] == 0
    assert [r["step"] for r in found] == [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 3, 3]
    figures = ts.plan()
    assert (plan["mode"], plan["requested"], plan["tools"]) == ("routed", "routed", figures.tools)
    assert plan["budget"] == {
        "context_window": 128000, "ratio": 0.2, "tokens": 25600, "tool_limit": 40, "compact_tokens_per_tool": None,
    }  # fmt: skip
    assert (plan["direct_tokens"], plan["compact_tokens"]) == (figures.direct_tokens, figures.compact_tokens)
    assert route["inputs"] == {"role": "planner", "step": "plan", "intent_sha256": documented_digest(intent)}
    assert (route["bundles"], route["source"], route["rules"]) == (["trips"], "rules", ["routes[1]"])
    assert route["why"] == decision.why and route["tools"] == 4
    assert (search["query"], search["limit"], search["hits"]) == (
        "convert a temperature",
        2,
        ["demo__convert_temperature"],
    )
    assert materialize["tools"] == ["demo__convert_temperature"]
    assert (searched["tool"], searched["server"], searched["outcome"]) == ("search_tools", None, "ok")
    ok, tool_error, invalid, not_routed, unknown = calls
    assert ok == {
        **{key: ok[key] for key in HEADER},
        "tool": "demo__convert_temperature",
        "server": "demo",
        "arguments_sha256": documented_digest({"value": 100, "to": "kelvin"}),
        "duration_ms": ok["duration_ms"],
        "outcome": "ok",
        "retries": 0,
        "media": [],
    }
    assert isinstance(ok["duration_ms"], float) and 0 < ok["duration_ms"] < 60_000
    assert (tool_error["tool"], tool_error["via"], tool_error["outcome"]) == (
        "demo__airports_find-by-code_b73eb4", "call_tool", "tool_error",
    )  # fmt: skip
    assert "error" not in tool_error  # the tool's own error text is its result: never kept
    assert (invalid["outcome"], "error" in invalid) == ("invalid_arguments", False)  # it quotes the arguments
    assert (not_routed["tool"], not_routed["server"], not_routed["outcome"]) == (NOW, "time", "not_routed")
    assert not_routed["error"].endswith("the active bundles are: trips")
    assert (unknown["tool"], unknown["server"], unknown["outcome"]) == ("no_such_tool", None, "unknown_tool")
    assert [(r["bundles"], r["source"]) for r in found[10:12]] == [(["clock"], "rules"), (None, "caller")]
    media, listing = found[12:]
    (ref,) = image.media
    kept = ts.media.get(ref.sha256)
    assert kept is not None and kept.startswith(b"\x89PNG")
    assert media["media"] == [
        {"kind": "image", "mimeType": "image/png", "size": len(kept), "sha256": hashlib.sha256(kept).hexdigest(),
         "location": f"memory:{ref.sha256}"},
    ]  # fmt: skip
    assert (listing["tool"], listing["server"], listing["outcome"]) == ("list_categories", None, "ok")
    text = (audit / "tool-calls.jsonl").read_text(encoding="utf-8")
    assert "X1234567" not in text and '"hot"' not in text and "kelvin" not in text  # digests only


async def test_audit_arguments_keeps_the_arguments_and_the_intent(generated: ModuleType, tmp_path: Path) -> None:
    routing = generated.RoutingOptions(bundles=BUNDLES, routes=ROUTES)
    audit = generated.AuditOptions(tmp_path, arguments=True)
    async with generated.toolset(["demo"], routing=routing, audit=audit) as ts:
        ts.route_sync(intent="a trip to Tokyo")
        await ts.call("demo__convert_temperature", {"value": "hot"})
        await ts.call("demo__airports_find-by-code_b73eb4", {"code": "ZZZ"})
    route, invalid, tool_error = records(tmp_path)[1:]
    assert route["inputs"] == {"intent_sha256": documented_digest("a trip to Tokyo"), "intent": "a trip to Tokyo"}
    assert invalid["arguments"] == {"value": "hot"} and invalid["arguments_sha256"] == documented_digest(
        {"value": "hot"}
    )
    assert invalid["error"].startswith("invalid arguments for demo__convert_temperature: at $.value: 'hot' is not")
    assert tool_error["arguments"] == {"code": "ZZZ"} and "error" not in tool_error  # a result, even with arguments


async def test_retries_and_failures_are_recorded(crashy: ModuleType, tmp_path: Path) -> None:
    async with crashy.toolset(
        audit=crashy.AuditOptions(str(tmp_path)),
        connection=crashy.ConnectionOptions(env={"crashy": {"API_KEY": "quota-key-sentinel"}}),
    ) as ts:
        await ts.call("crashy__flaky_read", {"marker": str(tmp_path / "read")})
        await ts.call("crashy__flaky_write", {"marker": str(tmp_path / "write")})
        await ts.call("crashy__refuse", {})
    read, write, refused = records(tmp_path)[1:]
    assert (read["outcome"], read["retries"]) == ("ok", 1)  # died, restarted, sent again: read-only
    assert (write["outcome"], write["retries"]) == ("failed", 0)
    assert "the call was not repeated" in write["error"]
    assert refused["outcome"] == "failed" and refused["error"].endswith("quota exceeded for key ***")
    assert "quota-key-sentinel" not in (tmp_path / "tool-calls.jsonl").read_text(encoding="utf-8")


async def test_each_conversation_has_its_own_number_and_steps(generated: ModuleType, tmp_path: Path) -> None:
    ts = generated.toolset(
        ["time"],
        routing=generated.RoutingOptions(bundles=BUNDLES, routes=ROUTES),
        audit=generated.AuditOptions(str(tmp_path)),
    )
    one, two = ts.session(), ts.session()
    one.route_sync(role="researcher")
    one.route_sync(role="researcher")
    await two.call("time__get_current_time", {"timezone": "UTC"})
    await ts.close()
    found = records(tmp_path)
    assert [(r["event"], r["conversation"], r["step"]) for r in found] == [
        ("plan", 0, 0), ("route", 1, 1), ("route", 1, 2), ("call", 2, 0),
    ]  # fmt: skip


# --- concurrency -------------------------------------------------------------------------------------

CONCURRENT = """
import anyio, sys
sys.path.insert(0, {repo!r})
import generated

async def main() -> None:
    audit = generated.AuditOptions({audit!r}, arguments=True)
    async with generated.toolset(["everything"], audit=audit) as ts:
        async def one(i: int) -> None:
            result = await ts.call("everything__echo", {{"message": {tag!r} + str(i) + "-" + "x" * 70_000}})
            assert not result.is_error, result.text
        async with anyio.create_task_group() as group:
            for i in range(100):
                group.start_soon(one, i)

anyio.run(main)
"""


async def test_a_hundred_concurrent_calls_from_two_processes_append_whole_lines(tmp_path: Path) -> None:
    """Each record is larger than a pipe or page buffer (70 KB of arguments), so a split write would show."""
    node_server("server-everything")
    children = [
        subprocess.Popen([PY, "-c", CONCURRENT.format(repo=str(REPO), audit=str(tmp_path), tag=tag)])
        for tag in ("a", "b")
    ]
    for child in children:
        assert await anyio.to_thread.run_sync(lambda child=child: child.wait(timeout=150)) == 0
    found = records(tmp_path)  # every line is one whole JSON object, or this fails
    calls = [r for r in found if r["event"] == "call"]
    assert len(found) == 202 and len(calls) == 200 and len({r["run"] for r in found}) == 2
    messages = sorted(r["arguments"]["message"].split("-")[0] for r in calls)
    assert messages == sorted(f"{tag}{i}" for tag in "ab" for i in range(100))
    for record in calls:
        assert record["outcome"] == "ok" and record["arguments_sha256"] == documented_digest(record["arguments"])


# --- a trail that cannot be written -------------------------------------------------------------------


async def test_a_full_disk_is_one_warning_and_the_calls_go_on(generated: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "tool-calls.jsonl").symlink_to("/dev/full")  # every write: ENOSPC, as on a full disk
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with generated.toolset(["demo"], audit=generated.AuditOptions(str(tmp_path))) as ts:
            results = [await ts.call("demo__convert_temperature", {"value": i}) for i in range(5)]
            assert [r.text for r in results] == [f"{i}.00 celsius" for i in range(5)]
            assert ts._shared.observer.trail.dropped == 6  # the plan and five calls (ts.audit is no more)
            (tmp_path / "tool-calls.jsonl").unlink()  # room again
            await ts.call("demo__convert_temperature", {"value": 9})
    assert [(w.category.__name__, str(w.message)) for w in caught] == [
        ("AuditWarning", f"audit trail {tmp_path / 'tool-calls.jsonl'} cannot be written (No space left on "
         "device); tool calls go on without it"),
    ]  # fmt: skip
    dropped, call = records(tmp_path)
    assert (dropped["event"], dropped["records"], call["event"]) == ("dropped", 6, "call")
    assert dropped["run"] == call["run"] and call["arguments_sha256"] == documented_digest({"value": 9})


async def test_an_unwritable_directory_is_one_warning_and_the_calls_go_on(
    generated: ModuleType, tmp_path: Path
) -> None:
    in_the_way = tmp_path / "audit"
    in_the_way.write_text("a file, not a directory", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with generated.toolset(["demo"], audit=generated.AuditOptions(str(in_the_way))) as ts:
            assert (await ts.call("demo__convert_temperature", {"value": 1})).text == "1.00 celsius"
            assert (await ts.call("demo__convert_temperature", {"value": 2})).text == "2.00 celsius"
    (warning,) = caught
    assert "cannot be written (File exists); tool calls go on without it" in str(warning.message)
    assert in_the_way.read_text(encoding="utf-8") == "a file, not a directory"


TORN = """
import resource, signal, sys, warnings
sys.path.insert(0, {repo!r})
from generated._runtime.audit.trail import Audit, AuditTrail

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit, write() returns short, then fails with EFBIG
audit = Audit(AuditTrail({audit!r}))
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for i in range(10):
        audit.record("search", query="q" * 300, limit=i, hits=[])
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
audit.record("search", query="after", limit=0, hits=[])
print(len(caught), audit.trail.dropped, caught[0].message)
"""


def test_a_record_cut_short_does_not_swallow_the_next(tmp_path: Path) -> None:
    """A file size limit cuts a write short for real (as a disk filling up does): the torn line stays a line of its own."""
    run = subprocess.run([PY, "-c", TORN.format(repo=str(REPO), audit=str(tmp_path))], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("1 0 audit trail "), run.stdout  # one warning; nothing dropped once written again
    assert "a record was cut short:" in run.stdout
    lines = (tmp_path / "tool-calls.jsonl").read_text(encoding="utf-8").splitlines()
    assert os.path.getsize(tmp_path / "tool-calls.jsonl") > 1000
    whole = [json.loads(line) for line in lines[:-3]]
    assert [r["limit"] for r in whole] == list(range(len(whole))) and len(whole) >= 2
    with pytest.raises(json.JSONDecodeError):
        json.loads(lines[-3])  # the record the limit cut in two
    dropped, after = json.loads(lines[-2]), json.loads(lines[-1])
    assert (dropped["event"], dropped["records"], after["query"]) == ("dropped", 10 - len(whole), "after")


def test_hostile_text_stays_one_line_of_json(generated: ModuleType, tmp_path: Path) -> None:
    trail = generated._runtime.audit.trail.AuditTrail(tmp_path, arguments=True)
    audit = generated._runtime.audit.trail.Audit(trail)
    hostile = "line\nbreak\u2028sep\x85nel \ud800 lone surrogate \x00 nul \u202e rtl"
    audit.record("search", query=hostile, limit=1, hits=[])
    data = (tmp_path / "tool-calls.jsonl").read_bytes()
    assert data.isascii() and data.count(b"\n") == 1 and data.endswith(b"\n")
    (line,) = data.decode().splitlines()  # no character Python takes for a line break either
    assert json.loads(line)["query"] == hostile


# --- as documented --------------------------------------------------------------------------------

PAGE = (REPO / "docs" / "how-to" / "routing.md").read_text(encoding="utf-8")  # where the docs describe the trail


def readme_records() -> list[dict[str, Any]]:
    (block,) = re.findall(r"^```jsonl\n(.*?)^```", PAGE, flags=re.DOTALL | re.MULTILINE)
    return [json.loads(line) for line in block.splitlines()]


def readme_fields() -> dict[str, set[str]]:
    """The docs' table: each event's fields, as the backquoted names of its second column."""
    table = PAGE.split("## The audit trail")[1].split("\n\n```")[0]
    rows = re.findall(r"^\| `(\w+)` \| (.*) \|$", table, flags=re.MULTILINE)
    return {event: set(re.findall(r"`(\w+)`", fields)) for event, fields in rows}


async def test_the_readme_example_and_table_are_what_a_toolset_writes(generated: ModuleType, tmp_path: Path) -> None:
    routes = [
        {"role": "researcher", "bundles": ["clock"]},
        {"name": "travel", "intent": "trip|flight|book", "bundles": ["trips"]},
    ]
    async with generated.toolset(
        ["time", "demo"],
        mode="routed",
        routing=generated.RoutingOptions(bundles=BUNDLES, routes=routes),
        audit=generated.AuditOptions(str(tmp_path)),
    ) as ts:
        ts.route_sync(role="assistant", step="plan", intent="Book me a trip to Tokyo")
        hits = ts.search("temperature")  # returns the hits only...
        ts.materialize([e.provider for e in hits])  # ...offering them is a step of its own
        await ts.call("demo__convert_temperature", {"value": 20, "to": "kelvin"})
        await ts.call(NOW, {"timezone": "Asia/Tokyo"})
    found = records(tmp_path)
    shown = readme_records()
    assert [r["event"] for r in found] == ["plan", "route", "search", "materialize", "call", "call"]
    for example, real in zip(shown, [found[1], found[4], found[5]], strict=True):
        assert list(example) == list(real)  # the same fields in the same order
        varying = {"time", "run", "duration_ms"}
        assert {k: v for k, v in example.items() if k not in varying} == {
            k: v for k, v in real.items() if k not in varying
        }  # the digests included: the README's are real
    documented = readme_fields()
    assert set(documented) == {"plan", "route", "search", "materialize", "call", "dropped"}
    for record in found:
        assert set(record) - set(HEADER) <= documented[record["event"]], record["event"]
    assert documented["call"] >= {"via", "error"} and documented["route"] >= {"error"}


# --- mcpvend serve --audit-dir --------------------------------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user project serving the demo server, with a bundle in its [routing] table."""
    root = tmp_path_factory.mktemp("project")
    config = write_config(root, {"demo": demo()})
    bundle = '\n[routing.bundles]\ntrips = { tools = ["demo/*"], description = "Plan trips" }\n'
    config.write_text(config.read_text(encoding="utf-8") + bundle, encoding="utf-8")
    for command in ("lock", "generate"):
        run = mcpvend(command, cwd=root)
        assert run.code == 0, run.err
    return root


def serve(project: Path, audit: Path) -> StdioServerParameters:
    args = ["-m", "mcpvend", "serve", "--mode", "routed", "--audit-dir", str(audit)]
    return StdioServerParameters(command=PY, args=args, cwd=str(project), env=dict(os.environ))


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_serve_keeps_the_trail_of_its_client_and_lists_the_config_bundles(project: Path, tmp_path: Path) -> None:
    audit = tmp_path / "audit"
    with (tmp_path / "stderr").open("w") as errlog:
        async with Client(stdio_client(serve(project, audit), errlog=errlog)) as client:
            categories = json.loads(text(await client.call_tool("list_categories", {})))["categories"]
            arguments = {"name": "demo__convert_temperature", "arguments": {"value": 0, "to": "kelvin"}}
            converted = await client.call_tool("call_tool", arguments)
    assert text(converted) == "273.15 kelvin"
    assert categories == [
        {"name": "demo", "kind": "server", "tools": 4},
        {"name": "trips", "kind": "bundle", "tools": 4},
    ]
    found = records(audit)
    assert [(r["event"], r["conversation"], r.get("tool"), r.get("outcome")) for r in found] == [
        ("plan", 0, None, None),  # the served toolset's
        ("call", 1, "list_categories", "ok"),  # the client's conversation
        ("call", 1, "demo__convert_temperature", "ok"),
    ]
    assert found[2]["via"] == "call_tool" and found[2]["arguments_sha256"] == documented_digest(arguments["arguments"])
    assert "warning" not in (tmp_path / "stderr").read_text(encoding="utf-8")


async def test_serve_with_an_unwritable_trail_warns_in_one_line_and_serves(project: Path, tmp_path: Path) -> None:
    in_the_way = tmp_path / "audit"
    in_the_way.write_text("a file, not a directory", encoding="utf-8")
    with (tmp_path / "stderr").open("w") as errlog:
        async with Client(stdio_client(serve(project, in_the_way), errlog=errlog)) as client:
            for value in (1, 2):
                result = await client.call_tool("demo__convert_temperature", {"value": value})
                assert text(result) == f"{value}.00 celsius"
    stderr = (tmp_path / "stderr").read_text(encoding="utf-8")
    assert [line for line in stderr.splitlines() if "audit" in line] == [
        f"warning: audit trail {in_the_way / 'tool-calls.jsonl'} cannot be written (File exists); "
        "tool calls go on without it"
    ], stderr
    assert "AuditWarning" not in stderr and "Traceback" not in stderr
