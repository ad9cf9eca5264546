"""Tool specs are plain dicts, yet exactly what the official `openai` and `anthropic` packages accept.

The runtime must not depend on a provider SDK, so the check lives here: every spec of every mode,
plain and strict, for this repo's servers and for the 527-tool corpus, validated against the SDKs'
own parameter types (TypedDicts), with no key those types do not declare.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from pydantic import TypeAdapter

from conftest import corpus_servers
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.core.names import PROVIDER_NAME
from mcpvend.runtime.core.results import ModelResult
from mcpvend.runtime.toolset import ToolSet

# The SDKs' types are imported inside the tests, not here: every xdist worker collects this module but
# only one runs it, and importing openai or anthropic costs seconds of CPU.

MODES = ("direct", "compact", "routed")


def check_keys(value: dict[str, Any], typed_dict: Any) -> None:
    """No undeclared key (pydantic ignores extra keys of a TypedDict) and every required one."""
    declared = set(typing.get_type_hints(typed_dict))
    assert set(value) <= declared, set(value) - declared
    assert typed_dict.__required_keys__ <= set(value)


def toolsets() -> list[ToolSet]:
    entries = [Entry(server, tool) for server, tools in corpus_servers().items() for tool in tools]
    sets = []
    for mode in MODES:
        ts = ToolSet(Catalog(entries), mode=mode)  # type: ignore[arg-type]
        hits = ts.search("read a file and search the web", 10)
        ts.materialize([e.provider for e in hits])  # routed mode then offers materialized tools too
        sets.append(ts)
    return sets


TOOLSETS = toolsets()
STRICT = (False, True)


@pytest.mark.parametrize("strict", STRICT, ids=["plain", "strict"])
@pytest.mark.parametrize("ts", TOOLSETS, ids=MODES)
def test_openai_specs_match_the_sdk_types(ts: ToolSet, strict: bool) -> None:
    from openai.types.chat import ChatCompletionToolParam
    from openai.types.shared_params import FunctionDefinition

    adapter = TypeAdapter(ChatCompletionToolParam)
    specs = ts.tool_specs("openai", strict=strict)
    assert len(specs) >= 5
    for spec in specs:
        adapter.validate_python(spec)
        check_keys(spec, ChatCompletionToolParam)
        check_keys(spec["function"], FunctionDefinition)
        assert PROVIDER_NAME.match(spec["function"]["name"])
        assert spec["function"]["parameters"]["type"] == "object"
    assert any(s["function"].get("strict") for s in specs) is strict


@pytest.mark.parametrize("strict", STRICT, ids=["plain", "strict"])
@pytest.mark.parametrize("ts", TOOLSETS, ids=MODES)
def test_openai_responses_specs_match_the_sdk_types(ts: ToolSet, strict: bool) -> None:
    from openai.types.responses import FunctionToolParam

    adapter = TypeAdapter(FunctionToolParam)
    specs = ts.tool_specs("openai-responses", strict=strict)
    for spec in specs:
        adapter.validate_python(spec)
        check_keys(spec, FunctionToolParam)
        assert PROVIDER_NAME.match(spec["name"]) and spec["parameters"]["type"] == "object"
    assert any(s["strict"] for s in specs) is strict


@pytest.mark.parametrize("strict", STRICT, ids=["plain", "strict"])
@pytest.mark.parametrize("ts", TOOLSETS, ids=MODES)
def test_anthropic_specs_match_the_sdk_types(ts: ToolSet, strict: bool) -> None:
    from anthropic.types import ToolParam

    adapter = TypeAdapter(ToolParam)
    specs = ts.tool_specs("anthropic", strict=strict)
    for spec in specs:
        adapter.validate_python(spec)
        check_keys(spec, ToolParam)
        assert PROVIDER_NAME.match(spec["name"])
    assert any(s.get("strict") for s in specs) is strict


def test_the_types_catch_a_bad_spec() -> None:
    """The check above can fail: a spec missing its name, or with a stray key, is refused."""
    from anthropic.types import ToolParam
    from openai.types.responses import FunctionToolParam

    with pytest.raises(ValueError, match="name"):
        TypeAdapter(ToolParam).validate_python({"input_schema": {"type": "object"}})
    with pytest.raises(AssertionError):
        check_keys({"name": "x", "input_schema": {}, "inputSchema": {}}, ToolParam)
    with pytest.raises(ValueError, match="strict"):  # the Responses type requires the strict flag
        TypeAdapter(FunctionToolParam).validate_python({"type": "function", "name": "x", "parameters": {}})


def test_result_messages_match_the_sdk_types() -> None:
    from anthropic.types import ToolResultBlockParam
    from openai.types.chat import ChatCompletionToolMessageParam

    result = ModelResult(text="it failed", is_error=True)
    message = result.openai_message("call_1")
    TypeAdapter(ChatCompletionToolMessageParam).validate_python(message)
    check_keys(message, ChatCompletionToolMessageParam)
    block = result.anthropic_block("toolu_1")
    TypeAdapter(ToolResultBlockParam).validate_python(block)
    check_keys(block, ToolResultBlockParam)
    assert block["is_error"] is True and block["content"] == "it failed"


@pytest.mark.parametrize("ts", TOOLSETS, ids=MODES)
def test_deferred_specs_follow_the_providers_tool_search_rules(ts: ToolSet) -> None:
    """The whole catalog, each tool marked `defer_loading`, after the provider's own tool search (never deferred)."""
    from anthropic.types import ToolParam, ToolSearchToolBm25_20251119Param
    from openai.types.responses import FunctionToolParam, ToolSearchToolParam

    catalog = {e.provider for e in ts.catalog.entries}
    anthropic = ts.tool_specs("anthropic", deferred=True)
    assert anthropic[0] == {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
    TypeAdapter(ToolSearchToolBm25_20251119Param).validate_python(anthropic[0])
    for spec in anthropic[1:]:
        TypeAdapter(ToolParam).validate_python(spec)
        check_keys(spec, ToolParam)
        assert spec["defer_loading"] is True
    assert {s["name"] for s in anthropic[1:]} == catalog
    responses = ts.tool_specs("openai-responses", deferred=True, strict=True)
    assert responses[0] == {"type": "tool_search"}
    TypeAdapter(ToolSearchToolParam).validate_python(responses[0])
    for spec in responses[1:]:
        TypeAdapter(FunctionToolParam).validate_python(spec)
        check_keys(spec, FunctionToolParam)
        assert spec["defer_loading"] is True
    assert {s["name"] for s in responses[1:]} == catalog and any(s["strict"] for s in responses[1:])


def test_deferred_specs_refuse_what_a_provider_would() -> None:
    ts = TOOLSETS[0]
    with pytest.raises(ValueError, match="anthropic and openai-responses"):
        ts.tool_specs("openai", deferred=True)
    strict = ts.tool_specs("anthropic", deferred=True, strict=True)
    assert sum(1 for s in strict if s.get("strict")) == 20  # Anthropic compiles at most 20 into one request
    with pytest.raises(ValueError, match="at most 10000"):
        ToolSet(Catalog([*ts.catalog.entries] * 20), mode="direct").tool_specs("anthropic", deferred=True)
