"""Seed 002's routing phase (issue 19): rules, a scripted model router, and per-step exposure in every mode.

Every toolset here is the golden package's, over the real demo and time servers: a decision must
hold where the model meets it, in specs, search, categories and calls, not only in a data structure.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from conftest import REPO, demo, mcpvend, write_config
from mcpvend.config import load_config

pytestmark = pytest.mark.anyio
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

BUNDLES = {"clock": ["time/*"], "trips": ["demo/*"]}
ROUTES: list[dict[str, Any]] = [
    {"role": "researcher", "bundles": ["clock"]},
    {"name": "notes", "intent": "remember|note down", "bundles": ["trips", "clock"]},
    {"workflow": "travel", "step": "plan", "bundles": ["trips"]},
]
META = ["search_tools", "list_categories", "browse_category", "get_tool_schema", "call_tool"]
TIME_TOOLS = ["time__convert_time", "time__get_current_time"]
NOW = ("time__get_current_time", {"timezone": "UTC"})
CONVERT = ("demo__convert_temperature", {"value": 100, "to": "kelvin"})


@pytest.fixture(scope="module")
def generated() -> ModuleType:
    return importlib.import_module("generated")


def names(specs: list[dict[str, Any]]) -> list[str]:
    return [spec["function"]["name"] for spec in specs]


def text_of(result: Any) -> Any:
    return json.loads(result.text)


# --- rules -----------------------------------------------------------------------------------------


def test_rules_choose_the_bundles_of_every_match_in_rule_order(generated: ModuleType) -> None:
    ts = generated.toolset(
        ["time", "demo"], routing=generated.RoutingOptions(bundles=BUNDLES, routes=ROUTES, default_bundles=["trips"])
    )
    decision = ts.route_sync(role="researcher", step="plan", intent="Please NOTE DOWN my flight number")
    assert decision.bundles == ("clock", "trips")  # clock, then notes' trips and clock again: once each
    assert decision.rules == ("routes[0]", "notes") and decision.source == "rules"
    assert decision.why == "matched routes[0] (role='researcher'); notes (intent=/remember|note down/)"
    travel = ts.route_sync(workflow="travel", step="plan")
    assert (travel.bundles, travel.why) == (("trips",), "matched routes[2] (workflow='travel', step='plan')")
    assert ts.route_sync(step="plan").source == "default"  # every condition of a rule must hold: no workflow here
    assert ts.route_sync(role="Researcher").source == "default"  # workflow, role and step are exact
    assert ts.route_sync(intent="can you REMEMBER this").rules == ("notes",)  # intent: a case-insensitive search
    fallback = ts.route_sync(role="writer", intent="what time is it")
    assert (fallback.bundles, fallback.source, fallback.rules) == (("trips",), "default", ())
    assert fallback.why == "no rule matched; default_bundles"


def test_without_default_bundles_no_match_means_every_tool(generated: ModuleType) -> None:
    ts = generated.toolset(
        ["time", "demo"], mode="direct", routing=generated.RoutingOptions(bundles=BUNDLES, routes=ROUTES)
    )
    ts.route_sync(role="researcher")
    assert names(ts.tool_specs()) == TIME_TOOLS
    decision = ts.route_sync(role="writer")
    assert decision.bundles is None and decision.why == "no rule matched; every tool (no default_bundles)"
    ts.expose(decision.bundles)
    assert len(ts.tool_specs()) == 6


def test_a_rule_may_name_a_server_as_its_bundle(generated: ModuleType) -> None:
    ts = generated.toolset(
        ["time", "demo"], mode="direct", routing=generated.RoutingOptions(routes=[{"role": "r", "bundles": ["time"]}])
    )
    ts.expose(ts.route_sync(role="r").bundles)
    assert names(ts.tool_specs()) == TIME_TOOLS


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"routes": [{"role": "r", "bundles": ["clock", "memry"]}]},
            "routes[0]: unknown bundle 'memry' (known: clock, demo, time, trips)",
        ),
        (
            {"routes": [*ROUTES, {"name": "memory", "intent": "x", "bundles": ["mem"]}]},
            "routes[3] (memory): unknown bundle 'mem'",
        ),
        (
            {"routes": [{"intent": "(unclosed", "bundles": ["clock"]}]},
            "routes[0]: 'intent' is not a regular expression: missing )",
        ),
        (
            {"routes": [{"roles": "r", "bundles": ["clock"]}]},
            "routes[0]: unknown key 'roles' (expected name, workflow,",
        ),
        ({"routes": [{"bundles": ["clock"]}]}, "routes[0]: a rule names at least one of workflow, role, step, intent"),
        ({"routes": [{"role": "r", "bundles": "clock"}]}, "routes[0]: bundles must be a list of bundle names"),
        ({"routes": [{"role": "r"}]}, "routes[0]: a rule needs 'bundles'"),
        ({"routes": [{"role": 3, "bundles": ["clock"]}]}, "routes[0]: 'role' must be a non-empty string"),
        ({"routes": [{"name": "", "role": "r", "bundles": ["clock"]}]}, "routes[0]: 'name' must be a non-empty string"),
        ({"routes": {"role": "r", "bundles": ["clock"]}}, "routes must be a list of rules"),
        ({"routes": ["role=r"]}, "routes[0]: a rule must be a table of name, workflow, role, step, intent, bundles"),
        ({"default_bundles": ["clock", "nope"]}, "default_bundles: unknown bundle 'nope'"),
        ({"descriptions": {"nope": "x"}}, "descriptions: unknown bundle 'nope'"),
        ({"router": "not callable"}, "router must be an async callable taking a RouteRequest"),
    ],
)
def test_bad_routing_is_a_configuration_error_naming_the_rule(
    generated: ModuleType, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        generated.toolset(["time", "demo"], routing=generated.RoutingOptions(bundles=BUNDLES, **options))
    assert str(raised.value).startswith(message), str(raised.value)


def test_route_inputs_are_strings(generated: ModuleType) -> None:
    ts = generated.toolset(["time"], routing=generated.RoutingOptions(routes=[{"role": "r", "bundles": ["time"]}]))
    with pytest.raises(TypeError, match="route\\(\\): role must be a string or None, not int"):
        ts.route_sync(role=3)
    assert ts.decision is None  # nothing was decided, nothing narrowed


# --- every mode honours the step --------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["direct", "compact", "routed"])
async def test_a_step_offers_searches_lists_and_runs_only_its_bundles(generated: ModuleType, mode: str) -> None:
    async with generated.toolset(
        ["time", "demo"], mode=mode, routing=generated.RoutingOptions(bundles=BUNDLES, routes=ROUTES)
    ) as ts:
        decision = ts.route_sync(role="researcher", step="plan", intent="what time is it in Tokyo?")
        ts.expose(decision.bundles)
        specs = names(ts.tool_specs(format="openai"))
        assert specs == {"direct": TIME_TOOLS, "compact": [*TIME_TOOLS, "get_tool_schema"], "routed": META}[mode]
        found = [
            hit["name"] for hit in text_of(await ts.call("search_tools", {"query": "convert a temperature"}))["tools"]
        ]
        assert found == ["time__convert_time"]  # the demo tool that matches best is not in this step
        assert [e.provider for e in ts.search("airport temperature booking itinerary")] == []
        categories = text_of(await ts.call("list_categories"))["categories"]
        assert categories == [
            {"name": "time", "kind": "server", "tools": 2},
            {"name": "clock", "kind": "bundle", "tools": 2},
        ]
        hidden = await ts.call("browse_category", {"category": "trips"})
        assert hidden.is_error and hidden.text == "unknown category 'trips'; the categories are: time, clock"
        refusal = "tool 'demo__convert_temperature' is not available in this step; the active bundles are: clock"
        for attempt in (
            ts.call(*CONVERT),
            ts.call("call_tool", {"name": CONVERT[0], "arguments": CONVERT[1]}),
            ts.call("convert_temperature", CONVERT[1]),  # its bare wire name
            ts.call("get_tool_schema", {"name": CONVERT[0]}),
        ):
            result = await attempt
            assert result.is_error and result.text == refusal, result.text
        unknown = await ts.call("temperature_converter", {})
        assert unknown.is_error and "demo__" not in unknown.text  # suggestions come from this step's tools only
        now = await ts.call(*NOW)
        assert not now.is_error and now.structured["timezone"] == "UTC", now.text
        ts.route_sync(workflow="travel", step="plan")  # the next step: trips only
        assert (await ts.call(*CONVERT)).text == "373.15 kelvin"
        assert (await ts.call(*NOW)).text.endswith("the active bundles are: trips")


async def test_routed_mode_offers_only_the_found_tools_of_the_step(generated: ModuleType) -> None:
    ts = generated.toolset(
        ["time", "demo"], mode="routed", routing=generated.RoutingOptions(bundles=BUNDLES, routes=ROUTES)
    )
    hits = ts.search("convert", 2)
    ts.materialize([e.provider for e in hits])
    assert set(ts.materialized) == {"demo__convert_temperature", "time__convert_time"}
    ts.route_sync(role="researcher")
    assert ts.materialized == ("time__convert_time",)
    assert names(ts.tool_specs()) == [*META, "time__convert_time"]
    ts.route_sync(role="writer")  # no rule, no default: every tool again, and what was found with them
    assert set(ts.materialized) == {"demo__convert_temperature", "time__convert_time"}


async def test_tool_specs_with_bundles_bounds_the_calls_too(generated: ModuleType) -> None:
    async with generated.toolset(
        ["time", "demo"], mode="direct", routing=generated.RoutingOptions(bundles=BUNDLES)
    ) as ts:
        ts.expose(["clock"])
        assert names(ts.tool_specs()) == TIME_TOOLS
        assert (await ts.call(*CONVERT)).text.endswith("the active bundles are: clock")
        assert names(ts.tool_specs()) == TIME_TOOLS  # the step's, until another choice
        ts.expose([])
        assert ts.tool_specs() == [] and (await ts.call(*NOW)).text.endswith("the active bundles are: none")
        ts.expose(None)
        assert len(ts.tool_specs()) == 6
        assert not (await ts.call(*CONVERT)).is_error
        with pytest.raises(ValueError, match="bundles: unknown bundle 'clocks'"):
            ts.expose(["clocks"])


async def test_each_conversation_routes_on_its_own(generated: ModuleType) -> None:
    async with generated.toolset(
        ["time", "demo"], mode="direct", routing=generated.RoutingOptions(bundles=BUNDLES, routes=ROUTES)
    ) as ts:
        ts.route_sync(workflow="travel", step="plan")
        async with ts.session() as one, ts.session() as two:
            assert len(one.tool_specs()) == 6 and one.decision is None  # a new conversation has routed nothing yet
            one.route_sync(role="researcher")
            assert names(one.tool_specs()) == TIME_TOOLS and len(two.tool_specs()) == 6
            assert (await one.call(*CONVERT)).is_error and not (await two.call(*CONVERT)).is_error
        travel = names(ts.tool_specs())  # the toolset's own step is untouched by its conversations'
        assert len(travel) == 4 and all(name.startswith("demo__") for name in travel)


# --- the model-based router -------------------------------------------------------------------------


def scripted(*answers: Any) -> tuple[Callable[[Any], Any], list[Any]]:
    """A router that answers from a script (a raised exception when the answer is one) and keeps each request."""
    requests: list[Any] = []
    script = list(answers)

    async def router(request: Any) -> Any:
        requests.append(request)
        answer = script.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return router, requests


async def test_the_model_router_decides_only_what_no_rule_does(generated: ModuleType) -> None:
    answer = {"bundles": ["trips"], "why": "the user wants to travel"}
    router, requests = scripted(answer, ["clock", "clock", "time"])
    descriptions = {"trips": "Plan, price and cancel trips"}
    options = generated.RoutingOptions(
        bundles=BUNDLES, routes=ROUTES, default_bundles=["clock"], router=router, descriptions=descriptions
    )
    async with generated.toolset(["time", "demo"], mode="direct", routing=options) as ts:
        assert (await ts.route(role="researcher")).source == "rules" and requests == []
        decision = await ts.route(role="writer", step="draft", intent="Book me a trip to Tokyo")
        assert (decision.source, decision.bundles, decision.error) == ("router", ("trips",), None)
        assert decision.why == "model router: the user wants to travel"
        ts.expose(decision.bundles)
        assert names(ts.tool_specs())[0].startswith("demo__")
        assert (await ts.call(*CONVERT)).text == "373.15 kelvin"
        (request,) = requests
        assert (request.inputs.role, request.inputs.step, request.inputs.intent) == (
            "writer",
            "draft",
            "Book me a trip to Tokyo",
        )
        assert [(b.name, b.kind) for b in request.bundles] == [
            ("demo", "server"),
            ("time", "server"),
            ("clock", "bundle"),
            ("trips", "bundle"),
        ]
        trips = request.bundles[3]
        assert trips.description == "Plan, price and cancel trips"
        assert ("demo__convert_temperature", "Convert a temperature given in Celsius to another unit.") in trips.tools
        shown = json.loads(json.dumps(request.as_json()))  # plain JSON, for the router model's prompt
        assert shown["inputs"] == {"role": "writer", "step": "draft", "intent": "Book me a trip to Tokyo"}
        assert shown["bundles"][3] == {
            "name": "trips",
            "kind": "bundle",
            "description": descriptions["trips"],
            "tools": [
                "demo__airports_find-by-code_b73eb4",
                "demo__cancel_booking",
                "demo__convert_temperature",
                "demo__price_itinerary",
            ],
        }
        schema = request.response_schema()  # for a provider's structured output, and strict as OpenAI's says
        jsonschema.validate(answer, schema)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"bundles": ["memory"], "why": ""}, schema)
        assert generated._runtime.strict.rules.violations(schema, "openai") == []
        plain = await ts.route(intent="something else")  # a bare list of names is an answer too
        assert (plain.bundles, plain.why) == (("clock", "time"), "model router")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (["clock", "memry"], "its answer: unknown bundle 'memry' (known: clock, demo, time, trips)"),
        ("clock", "its answer: bundles must be a list of bundle names"),
        (None, "its answer: bundles must be a list of bundle names"),
        ({"bundles": ["trips"], "why": ["because"]}, "its 'why' is not a string"),
        ({"choice": "trips"}, "its answer: bundles must be a list of bundle names"),
        (RuntimeError("the model is overloaded"), "it raised RuntimeError: the model is overloaded"),
    ],
)
async def test_a_router_answer_that_cannot_be_used_is_an_error_decision_and_logged(
    generated: ModuleType, answer: Any, error: str, caplog: pytest.LogCaptureFixture
) -> None:
    router, requests = scripted(answer)
    ts = generated.toolset(
        ["time", "demo"],
        mode="direct",
        routing=generated.RoutingOptions(bundles=BUNDLES, default_bundles=["clock"], router=router),
    )
    with caplog.at_level(logging.WARNING, logger="mcpvend.routing"):
        decision = await ts.route(role="writer", intent="book a trip")
    assert len(requests) == 1
    assert (decision.source, decision.bundles, decision.error) == ("default", ("clock",), error)
    assert decision.why == f"the model router's answer was not used: {error}; default_bundles"
    assert names(ts.tool_specs()) == TIME_TOOLS  # the default, not what the router said
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("mcpvend.routing", "WARNING", f"model router: {error}")
    ]


def test_with_a_model_router_the_rules_alone_do_not_decide(generated: ModuleType) -> None:
    router, requests = scripted()
    ts = generated.toolset(
        ["time"], routing=generated.RoutingOptions(routes=[{"role": "r", "bundles": ["time"]}], router=router)
    )
    with pytest.raises(ValueError, match=r"this toolset has a model router: use `await ts.route\(...\)`"):
        ts.route_sync(role="r")  # even where a rule matches: which call works must not depend on the input
    assert ts.decision is None and requests == []


# --- a step's view of the catalog (pure data) -------------------------------------------------------


def test_a_bare_name_several_servers_serve_resolves_within_the_step(generated: ModuleType) -> None:
    runtime = generated._runtime
    tool = {"name": "search", "inputSchema": {"type": "object"}}
    catalog = runtime.core.catalog.Catalog(
        [runtime.core.catalog.Entry("a", tool), runtime.core.catalog.Entry("b", tool)]
    )
    with pytest.raises(runtime.core.catalog.Ambiguous):
        catalog.resolve("search")
    steps = runtime.core.steps.Steps(catalog)
    view = steps.view(steps.chosen(["b"]))
    assert view.resolve("search").provider == "b__search" and view.resolve("a/search") is None
    assert [c.name for c in view.categories.values()] == ["b"]
    assert steps.view(steps.chosen(None)) is catalog


# --- [routing] in the config ------------------------------------------------------------------------


def readme_routing_table() -> str:
    page = (REPO / "docs" / "how-to" / "routing.md").read_text(encoding="utf-8")  # the docs' routing guide
    blocks = re.findall(r"^```toml\n(.*?)^```", page, flags=re.DOTALL | re.MULTILINE)
    (block,) = [b for b in blocks if b.startswith("[routing]")]
    return str(block)


def test_the_readme_routing_table_is_checked_and_feeds_the_toolset(generated: ModuleType, tmp_path: Path) -> None:
    config = write_config(tmp_path, {"time": demo(), "demo": demo()})  # only the names matter here
    config.write_text(config.read_text(encoding="utf-8") + "\n" + readme_routing_table(), encoding="utf-8")
    expected = {
        "bundles": {"clock": ["time/*"], "trips": ["demo/*"]},
        "routes": [
            {"role": "researcher", "bundles": ["clock"]},
            {"name": "travel", "intent": "trip|flight|book", "bundles": ["trips"]},
        ],
        "default_bundles": ["clock"],
        "router": None,
        "descriptions": {"trips": "Find airports, price and cancel trips"},
    }
    checked = load_config(config).routing  # mcpvend's own RoutingOptions, checked against the config's servers
    assert type(checked).__name__ == "RoutingOptions" and dataclasses.asdict(checked) == expected
    routing = importlib.import_module("generated._runtime.routing.rules")
    load_routing = generated.load_routing  # for a program that runs the package alone
    options = load_routing(config)
    assert options == generated.RoutingOptions(**expected)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(readme_routing_table().replace("[routing", "[tool.mcpvend.routing"), encoding="utf-8")
    assert load_routing(pyproject) == options
    with pytest.raises(ValueError, match=r"nope\.toml: cannot read: \[Errno 2\]"):
        load_routing(tmp_path / "nope.toml")
    os.mkfifo(tmp_path / "fifo.toml")  # opening it to read would wait for a writer forever
    with pytest.raises(ValueError, match=r"fifo\.toml: cannot read: .*it is a FIFO, not a file"):
        load_routing(tmp_path / "fifo.toml")
    (tmp_path / "latin-1.toml").write_bytes(b"[routing]\n# caf\xe9\n")
    with pytest.raises(ValueError, match=r"latin-1\.toml: cannot read: 'utf-8' codec can't decode byte 0xe9"):
        load_routing(tmp_path / "latin-1.toml")
    ts = generated.toolset(["time", "demo"], mode="direct", routing=options)
    full = ts.catalog  # every tool: no step was routed yet
    decision = ts.route_sync(role="assistant", intent="Book a FLIGHT to Oslo")
    assert (decision.bundles, decision.rules) == (("trips",), ("travel",))
    assert len(names(ts.tool_specs())) == 4 and all(n.startswith("demo__") for n in names(ts.tool_specs()))
    assert ts.route_sync(role="writer").bundles == ("clock",) and names(ts.tool_specs()) == TIME_TOOLS
    listed = routing.Routing(full, options).request(routing.RouteInputs()).bundles  # what a model router would read
    assert [(b.name, b.description) for b in listed][2:] == [
        ("clock", ""),
        ("trips", "Find airports, price and cancel trips"),
    ]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            '[[routing.routes]]\nrole = "r"\nbundles = ["nope"]\n',
            "[routing] routes[0]: unknown bundle 'nope' (known: demo)",
        ),
        (
            '[routing]\ndefault_bundles = ["demo", "trip"]\n[routing.bundles]\ntrips = ["demo/*"]\n',
            "[routing] default_bundles: unknown bundle 'trip' (known: demo, trips)",
        ),
        ("[routing]\nroute = []\n", "[routing]: unknown key 'route' (expected bundles, routes, default_bundles)"),
        ('[routing.bundles]\nclock = "time/*"\n', "[routing] bundles.clock: a bundle is a list of SERVER/TOOL globs"),
        (
            '[routing.bundles]\nclock = { tools = ["demo/*"], description = 3 }\n',
            "[routing] bundles.clock: 'description' must be a string",
        ),
        (
            '[[routing.routes]]\nname = "notes"\nintent = "(("\nbundles = ["demo"]\n',
            "[routing] routes[0] (notes): 'intent' is not a regular expression: missing ),",
        ),
        ('routing = ["demo"]\n', "[routing] must be a table"),
    ],
)
def test_a_bad_routing_table_is_a_one_line_error_naming_the_file_and_rule(
    tmp_path: Path, table: str, message: str
) -> None:
    config = write_config(tmp_path, {"demo": demo()})
    text = config.read_text(encoding="utf-8")
    config.write_text(table + "\n" + text if table.startswith("routing =") else text + "\n" + table, encoding="utf-8")
    run = mcpvend("show", cwd=tmp_path, timeout=60)
    assert run.code == 2 and run.err.startswith(f"error: {config}: {message}"), run.err
    assert run.err.count("\n") == 1 and not run.out
