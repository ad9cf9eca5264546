"""Strict provider specs: the rewrite, the way back, the plan, the frameworks, and real calls.

The rewrite (generator/mcpvend/runtime/strict/rewrite.py) must land inside each provider's documented
subset (strict_rules.py, tested in tests/test_strict_rules.py), lose no call (tests/
test_strict_roundtrip.py), and send non-strict, with a reason, what it cannot say.
"""

from __future__ import annotations

import importlib
import json
import sys
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from conftest import REPO, corpus_servers, outputs_by_hash_seed
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.core.specs import META_TOOLS, OPEN_ARGUMENTS, ToolSpec
from mcpvend.runtime.strict.rewrite import (
    JSON_TEXT,
    PROVIDERS,
    STRICT_FORMATS,
    NotStrict,
    from_strict,
    nullable,
    strict_schema,
    strict_specs,
)
from mcpvend.runtime.strict.rules import ANTHROPIC_REQUEST, Provider, request_violations, violations
from mcpvend.runtime.toolset import ToolSet
from test_strict_rules import closed, obj

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # the committed golden package `generated`

# Why a corpus tool may be sent non-strict: what no strict subset can say without refusing its calls.
CANNOT_SAY = (
    "is an object that accepts keys it does not name",
    "accepts any value",
    "is recursive",
    "is not valid JSON Schema",
)


def corpus_specs() -> list[tuple[str, ToolSpec]]:
    entries = [Entry(server, tool) for server, tools in corpus_servers().items() for tool in tools]
    ts = ToolSet(Catalog(entries), mode="direct")
    return [(spec.name, spec) for spec in ts.listing()]


# --- the corpus: how many tools come out strict, and why the others do not ------------------


@pytest.mark.parametrize("fmt", STRICT_FORMATS)
def test_corpus_tools_come_out_strict_and_valid(fmt: str) -> None:
    """Each of the 527 tools as its own request: strict and within the rules, or non-strict for a stated reason."""
    provider = PROVIDERS[fmt]
    strict, fallback = 0, []
    for name, spec in corpus_specs():
        rendered, report = strict_specs([spec], fmt)  # type: ignore[arg-type]
        body = rendered[0]["function"] if fmt == "openai" else rendered[0]
        schema = body["parameters"] if fmt.startswith("openai") else body["input_schema"]
        if report.strict:
            assert body["strict"] is True
            assert violations(schema, provider) == [], name
            strict += 1
        else:
            assert body.get("strict", False) is False and schema == spec.input_schema
            why = report.fallback[0][1]
            assert not why.startswith("at "), why  # the rewrite said why, not the last check
            assert any(reason in why for reason in CANNOT_SAY), why
            fallback.append(why)
    total = strict + len(fallback)
    print(f"\n{fmt}: {strict} of {total} corpus tools strict-valid ({strict / total:.2%}); non-strict:", end=" ")
    print(", ".join(f"{sum(r in why for why in fallback)} {r}" for r in CANNOT_SAY))
    assert total == 527
    assert strict / total >= 0.95


def test_example_servers_and_meta_tools_come_out_strict() -> None:
    """The issue counted 0 of the example servers' 33 tools valid under OpenAI strict as sent before."""
    generated = importlib.import_module("generated")
    ts = generated.toolset(mode="direct")
    plain = [s["function"]["parameters"] for s in ts.tool_specs("openai")]
    assert sum(not violations(schema, "openai") for schema in plain) == 0
    specs = ts.tool_specs("openai", strict=True)
    assert len(specs) == 33 and all(s["function"]["strict"] is True for s in specs)
    routed = generated.toolset(mode="routed").tool_specs("openai-responses", strict=True)
    assert [s["name"] for s in routed if s["strict"]] == [
        "search_tools",
        "list_categories",
        "browse_category",
        "get_tool_schema",
        "call_tool",
    ]
    # call_tool's arguments are open on purpose: strict mode cannot say that, so they go as JSON text.
    (call_tool,) = [s for s in routed if s["name"] == "call_tool"]
    assert call_tool["parameters"]["properties"]["arguments"]["type"] == ["string", "null"]


# --- the rewrite -----------------------------------------------------------------------------


def test_openai_makes_optional_properties_required_and_nullable() -> None:
    schema = obj(
        {
            "q": {"type": "string"},
            "n": {"type": "integer", "default": 5},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "tag": {"const": "x"},
            "opts": obj({"deep": {"type": "boolean"}}),
            "list": {"type": "array", "items": {"type": "string"}, "description": "Some."},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        ["q"],
    )
    strict = strict_schema(schema, "openai")
    p = strict["properties"]
    assert strict["required"] == list(schema["properties"]) and strict["additionalProperties"] is False
    assert p["q"] == {"type": "string"}
    assert p["n"] == {"type": ["integer", "null"], "description": '{"default": 5}'}
    assert p["mode"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert p["tag"] == {"anyOf": [{"const": "x"}, {"type": "null"}]}
    assert p["opts"] == {"anyOf": [closed({"deep": {"type": ["boolean", "null"]}}, ["deep"]), {"type": "null"}]}
    assert p["list"] == {
        "description": "Some.",
        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
    }
    assert p["either"] == {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    assert p["maybe"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}]
    }  # already nullable; a null default says nothing


def test_anthropic_keeps_optional_properties_and_defaults() -> None:
    schema = obj({"q": {"type": "string"}, "n": {"type": "integer", "default": 5, "minimum": 1}}, ["q"])
    assert strict_schema(schema, "anthropic") == closed(
        {"q": {"type": "string"}, "n": {"type": "integer", "default": 5, "description": '{"minimum": 1}'}}, ["q"]
    )


def test_rejected_keywords_move_into_the_description() -> None:
    schema = obj(
        {"s": {"type": "string", "description": "A name.", "minLength": 2, "format": "uri", "examples": ["x"]}}, ["s"]
    )
    openai = strict_schema(schema, "openai")["properties"]["s"]
    assert openai == {
        "type": "string",
        "description": 'A name.\n\n{"minLength": 2, "format": "uri", "examples": ["x"]}',
    }
    anthropic = strict_schema(schema, "anthropic")["properties"]["s"]
    assert anthropic == {
        "type": "string",
        "description": 'A name.\n\n{"minLength": 2, "examples": ["x"]}',
        "format": "uri",
    }


def test_refs_are_inlined_with_their_siblings() -> None:
    schema = obj({"a": {"$ref": "#/$defs/A%20b", "description": "Here."}}, ["a"])
    schema["$defs"] = {"A b": {"type": "string", "description": "There.", "maxLength": 3}}
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    assert strict_schema(schema, "openai") == closed(
        {"a": {"type": "string", "description": 'Here.\n\n{"maxLength": 3}'}}, ["a"]
    )


def test_what_strict_mode_cannot_say_even_as_json_text_is_not_rewritten() -> None:
    """A value that may itself be a string cannot be sent as JSON text (the way back could not tell them apart)."""
    cases = {
        "$.x accepts any value": obj({"x": {"description": "anything"}}),
        "$.s{anyOf 1} accepts any value": obj({"s": {"anyOf": [{"type": "string"}, {}]}}),
        "$ is not a plain object": {"anyOf": [obj({"a": {"type": "string"}})]},
        # The array branch alone could go as JSON text, but the model's "[]" would then read as the string "[]".
        "$.s{anyOf 1} is an array of any items": obj({"s": {"anyOf": [{"type": "string"}, {"type": "array"}]}}),
        # The way back reads values by the reviewed schema; one jsonschema cannot compile cannot be undone.
        "$ is not valid JSON Schema": obj({"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}}),
    }
    for reason, schema in cases.items():
        for provider in ("openai", "anthropic"):
            with pytest.raises(NotStrict) as caught:
                strict_schema(schema, provider)  # type: ignore[arg-type]
            assert str(caught.value).startswith(reason), (reason, str(caught.value))


def test_what_strict_mode_cannot_say_goes_as_json_text_at_the_nearest_value_that_takes_no_string() -> None:
    cases = {
        "headers": obj({"headers": {"type": "object"}}),
        "env": obj({"env": {"type": "object", "additionalProperties": {"type": "string"}}}),
        "m": obj({"m": obj({}, patternProperties={"^x": {"type": "string"}})}),
        "data": obj({"data": {"type": "array", "items": {}}}),
        "t": obj({"t": obj({"kids": {"type": "array", "items": {"$ref": "#/properties/t"}}})}),
        "a": obj({"a": {"allOf": [obj({"x": {"type": "string"}}), obj({"y": {"type": "string"}})]}}),
        "p": obj({"p": {"type": "array", "prefixItems": [{"type": "string"}]}}),
    }
    for name, schema in cases.items():
        for provider in ("openai", "anthropic"):
            found = json.dumps(strict_schema(schema, provider)["properties"][name])  # type: ignore[arg-type]
            assert JSON_TEXT in found and '"type": "string"' in found.replace('["string", "null"]', '"string"'), found


def test_a_ref_fan_out_is_not_expanded_without_bound() -> None:
    """Hostile input: 2**30 nodes once inlined. The rewrite stops at its budget and sends the tool non-strict."""
    defs = {f"d{i}": obj({"l": {"$ref": f"#/$defs/d{i + 1}"}, "r": {"$ref": f"#/$defs/d{i + 1}"}}) for i in range(30)}
    defs["d30"] = {"type": "string"}
    with pytest.raises(NotStrict, match="expands past 10000 nodes"):
        strict_schema({**obj({"x": {"$ref": "#/$defs/d0"}}), "$defs": defs}, "openai")


def test_branches_that_match_nothing_go_and_untyped_branches_take_their_parents_type() -> None:
    never = obj({"n": {"anyOf": [{"type": "number"}, {"not": {}}, {"type": "null"}]}}, ["n"])  # zod's `undefined`
    assert strict_schema(never, "openai")["properties"]["n"] == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    ip = obj({"ip": {"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}}, ["ip"])
    assert strict_schema(ip, "openai")["properties"]["ip"] == {
        "type": "string",
        "anyOf": [{"type": "string", "format": "ipv4"}, {"type": "string", "format": "ipv6"}],
    }


def test_one_of_becomes_any_of_and_a_tool_without_arguments_gets_an_empty_closed_object() -> None:
    assert strict_schema({"type": "object"}, "openai") == closed({}, [])
    assert strict_schema({"type": "object", "properties": {}}, "anthropic") == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    one = obj({"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, ["v"])
    assert strict_schema(one, "anthropic")["properties"]["v"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}


def test_nullable_leaves_what_already_takes_null() -> None:
    for node in ({"type": "null"}, {"type": ["string", "null"]}, {"anyOf": [{"type": "null"}]}, {"enum": ["a", None]}):
        assert nullable(node) is node
    assert nullable({"enum": ["a"]}) == {"enum": ["a", None]}
    typed_union = {"type": "string", "anyOf": [{"type": "string", "format": "ipv4"}], "title": "IP"}
    assert nullable(typed_union) == {
        "title": "IP",
        "anyOf": [{"type": "string", "anyOf": typed_union["anyOf"]}, {"type": "null"}],
    }


# --- the way back ----------------------------------------------------------------------------


NESTED = obj(
    {
        "q": {"type": "string"},
        "maybe": {"type": ["string", "null"]},
        "opts": obj({"deep": {"type": "boolean"}, "must": {"type": "integer"}}, ["must"]),
        "rows": {"type": "array", "items": obj({"cell": {"type": "string"}})},
        "either": {"anyOf": [obj({"a": {"type": "string"}}, ["a"]), obj({"b": {"type": "integer"}})]},
        "ref": {"$ref": "#/$defs/R"},
    },
    ["q"],
    **{"$defs": {"R": obj({"r": {"type": "number"}})}},
)


def test_from_strict_drops_only_the_placeholders_of_optional_non_nullable_properties() -> None:
    sent = {
        "q": "x",
        "maybe": None,
        "opts": {"deep": None, "must": None},
        "rows": [{"cell": None}, {"cell": "c"}],
        "either": {"b": None},
        "ref": {"r": None},
        "extra": None,
    }
    assert from_strict(NESTED, sent) == {
        "q": "x",
        "maybe": None,  # the reviewed schema takes null: sent as given
        "opts": {"must": None},  # required: kept, so that validation says what is wrong
        "rows": [{}, {"cell": "c"}],
        "either": {},
        "ref": {},
        "extra": None,  # a key the schema does not name: not ours to drop
    }


def test_from_strict_returns_what_it_was_given_when_there_is_nothing_to_drop() -> None:
    arguments = {"q": "x", "opts": {"must": 1}}
    assert from_strict(NESTED, arguments) == arguments
    plain = {"opts": {"must": 1}}  # no null and no string: nothing a strict call could have changed
    assert from_strict(NESTED, plain) is plain
    broken = {"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}
    assert from_strict(broken, {"a": None}) == {"a": None}  # the schema is broken: validation will say so


# --- specs, plan, and the frameworks ---------------------------------------------------------


def test_strict_specs_say_strict_in_each_format() -> None:
    spec = ToolSpec("s__t", "Does.", obj({"a": {"type": "string"}}))
    form = closed({"a": {"type": ["string", "null"]}}, ["a"])
    openai, _ = strict_specs([spec], "openai")
    assert openai == [
        {"type": "function", "function": {"name": "s__t", "description": "Does.", "parameters": form, "strict": True}}
    ]
    responses, _ = strict_specs([spec], "openai-responses")
    assert responses == [
        {"type": "function", "name": "s__t", "description": "Does.", "parameters": form, "strict": True}
    ]
    assert spec.render("openai-responses")["strict"] is False  # the Responses API is strict unless told
    anthropic, _ = strict_specs([spec], "anthropic")
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}
    assert anthropic == [{"name": "s__t", "description": "Does.", "input_schema": schema, "strict": True}]
    with pytest.raises(ValueError, match="strict specs are for openai, openai-responses, anthropic, not 'mcp'"):
        ToolSet(Catalog([]), mode="direct").tool_specs("mcp", strict=True)


def test_anthropic_request_limits_send_the_rest_non_strict_and_plan_says_so() -> None:
    generated = importlib.import_module("generated")
    ts = generated.toolset(mode="direct")
    specs = ts.tool_specs("anthropic", strict=True)
    strict = [s["input_schema"] for s in specs if s.get("strict")]
    assert 0 < len(strict) <= ANTHROPIC_REQUEST["tools"] and request_violations(strict, "anthropic") == []
    report = {r.format: r for r in ts.plan().strict}["anthropic"]
    assert len(report.strict) == len(strict) and len(report.fallback) == 33 - len(strict)
    for name, why in report.fallback:  # each one left out would break a limit had it been added
        spec = next(s for s in specs if s["name"] == name)
        assert "over the request's limit" in why
        assert request_violations([*strict, strict_schema(spec["input_schema"], "anthropic")], "anthropic")
    text = str(ts.plan())
    assert f"strict anthropic: {len(strict)} of 33 tools; sent non-strict: " in text
    assert "strict openai: 33 of 33 tools\n" in text


def test_plan_names_each_tool_sent_non_strict_and_why() -> None:
    tools = [
        {"name": "ok", "inputSchema": obj({"a": {"type": "string"}})},
        {"name": "any", "inputSchema": obj({"h": {"description": "any value at all"}})},
    ]
    ts = ToolSet(Catalog([Entry("s", t) for t in tools]), mode="direct")
    assert [str(r) for r in ts.plan().strict] == [
        f"strict {fmt}: 1 of 2 tools; sent non-strict: s__any ($.h accepts any value)" for fmt in STRICT_FORMATS
    ]


def test_open_schemas_say_so_and_frameworks_leave_them_open() -> None:
    """Compact mode's placeholder and call_tool.arguments are open on purpose; frameworks close an object that does not say."""
    from agents.exceptions import UserError
    from agents.strict_schema import ensure_strict_json_schema
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    call_tool = next(spec for spec in META_TOOLS if spec.name == "call_tool")
    for schema in (dict(OPEN_ARGUMENTS), obj({"arguments": call_tool.input_schema["properties"]["arguments"]})):
        transformer = OpenAIJsonSchemaTransformer(json.loads(json.dumps(schema)), strict=None)
        walked = transformer.walk()
        found = walked["properties"].get("arguments", walked)
        assert found["additionalProperties"] is True and transformer.is_strict_compatible is False  # sent open
        with pytest.raises(UserError, match="additionalProperties"):
            ensure_strict_json_schema(json.loads(json.dumps(schema)))  # refused, not closed
    silent = OpenAIJsonSchemaTransformer({"type": "object"}, strict=None)
    assert silent.walk()["additionalProperties"] is False  # what they did before: only `{}` could be sent
    assert ensure_strict_json_schema({"type": "object"})["additionalProperties"] is False


STRICT_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from conftest import corpus_servers
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.toolset import ToolSet
entries = [Entry(s, t) for s, tools in corpus_servers().items() for t in tools]
for mode in ("direct", "compact", "routed"):
    ts = ToolSet(Catalog(entries), mode=mode)
    ts.materialize([e.provider for e in ts.search("weather forecast for a city")])
    for fmt in ("openai", "openai-responses", "anthropic"):
        sys.stdout.write(json.dumps(ts.tool_specs(fmt, strict=True), ensure_ascii=False))
    sys.stdout.write(str(ts.plan()))
"""


def test_strict_specs_are_byte_identical_across_processes() -> None:
    outputs = outputs_by_hash_seed(STRICT_SCRIPT, str(REPO / "tests"))
    assert len(outputs[0]) > 100_000
    assert outputs[0] == outputs[1] == outputs[2]


# --- real calls ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated() -> ModuleType:
    return importlib.import_module("generated")


@pytest.mark.anyio
async def test_a_strict_call_with_placeholder_nulls_reaches_the_server_without_them(generated: ModuleType) -> None:
    async with generated.toolset(["demo"], mode="direct", connection=generated.ConnectionOptions(cwd=str(REPO))) as ts:
        specs = {s["function"]["name"]: s["function"]["parameters"] for s in ts.tool_specs("openai", strict=True)}
        call = {  # what a strict model must send: every property, null for "not given"
            "travelers": [{"name": "Ada", "age": 36}],
            "legs": [{"from": "CDG", "to": "NRT", "cabin": None}],
            "currency": None,
            "insurance": None,
        }
        jsonschema.validate(call, specs["demo__price_itinerary"])
        quote = await ts.call("demo__price_itinerary", json.dumps(call))
        assert not quote.is_error, quote.text
        assert quote.structured == {"currency": "EUR", "total": 100.0, "legs": 1, "notes": ["CDG->NRT in economy"]}
        cancel = {"reference": "B-1", "reason": None, "notify": None}  # reason takes null; notify does not
        jsonschema.validate(cancel, specs["demo__cancel_booking"])
        cancelled = await ts.call("demo__cancel_booking", cancel)
        assert cancelled.text == "cancelled B-1, traveler notified"


@pytest.mark.anyio
async def test_meta_tools_take_a_strict_models_nulls(generated: ModuleType) -> None:
    async with generated.toolset(
        ["demo", "time"], mode="routed", connection=generated.ConnectionOptions(cwd=str(REPO))
    ) as ts:
        search = next(s for s in ts.tool_specs("anthropic", strict=True) if s["name"] == "search_tools")
        assert search["strict"] is True
        openai = next(s for s in ts.tool_specs("openai", strict=True) if s["function"]["name"] == "search_tools")
        jsonschema.validate({"query": "temperature", "limit": None}, openai["function"]["parameters"])
        found = await ts.call("search_tools", {"query": "convert a temperature", "limit": None})
        assert not found.is_error, found.text
        assert found.structured["tools"][0]["name"] == "demo__convert_temperature"
        converted = await ts.call(
            "call_tool", {"name": "demo__convert_temperature", "arguments": {"value": 0, "to": None}}
        )
        assert converted.text == "0.00 celsius"


def test_compact_placeholders_are_short_in_a_plain_listing_and_say_they_are_open_beside_strict_tools() -> None:
    from mcpvend.runtime.core.catalog import Catalog, Entry
    from mcpvend.runtime.toolset import ToolSet

    tool = {
        "name": "t",
        "description": "Do it.",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
    }
    ts = ToolSet(Catalog([Entry("s", tool)]), mode="compact")
    plain, strict = ts.tool_specs("openai"), ts.tool_specs("openai", strict=True)
    placeholder = next(s for s in plain if s["function"]["name"] == "s__t")["function"]["parameters"]
    assert placeholder == {"type": "object"}  # open by JSON Schema, and 7 tokens shorter per tool
    placeholder = next(s for s in strict if s["function"]["name"] == "s__t")["function"]["parameters"]
    assert placeholder == OPEN_ARGUMENTS


JSON_TEXT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "HTTP headers."},
        "rows": {"type": "array", "items": {}},
        "tree": {"$ref": "#/$defs/node"},
        "note": {"type": "string"},
    },
    "required": ["headers"],
    "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_what_strict_mode_cannot_say_is_sent_as_json_text_and_read_back(provider: Provider) -> None:
    strict = strict_schema(JSON_TEXT_SCHEMA, provider)
    props = strict["properties"]
    for name in ("headers", "rows"):
        text = (
            props[name]
            if provider == "anthropic"
            else props[name]["anyOf"][0]
            if "anyOf" in props[name]
            else props[name]
        )
        assert text["type"] in ("string", ["string", "null"]) and JSON_TEXT in text["description"], props[name]
    assert props["headers"]["description"].startswith("HTTP headers.")  # the reviewed text first
    assert "kids" in json.dumps(props["tree"])  # the recursion is cut deeper down, as late as it can be
    sent = {"headers": '{"Accept": "text/html"}', "rows": '[[1, "a"], {"b": null}]', "note": '{"x": 1}'}
    assert from_strict(JSON_TEXT_SCHEMA, sent) == {
        "headers": {"Accept": "text/html"},
        "rows": [[1, "a"], {"b": None}],
        "note": '{"x": 1}',  # a string where a string is reviewed stays a string, whatever it looks like
    }
    # Text that is not JSON, or JSON the reviewed schema refuses, is sent on as it came: validation refuses it.
    for hostile in ("not json", '{"Accept": 1}', '"a string"', "[]"):
        assert from_strict(JSON_TEXT_SCHEMA, {"headers": hostile})["headers"] == hostile
