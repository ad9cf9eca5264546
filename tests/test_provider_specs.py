"""Tool specs are plain dicts, yet exactly what the official `openai` and `anthropic` packages accept.

The runtime must not depend on a provider SDK, so the check lives here: every spec of every mode,
for this repo's servers and for the 527-tool corpus, validated against the SDKs' own parameter
types (TypedDicts), with no key those types do not declare.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from anthropic.types import ToolParam, ToolResultBlockParam
from openai.types.chat import ChatCompletionToolMessageParam, ChatCompletionToolParam
from openai.types.shared_params import FunctionDefinition
from pydantic import TypeAdapter

from conftest import corpus_servers
from mcpvend.runtime.catalog import Catalog, Entry
from mcpvend.runtime.names import PROVIDER_NAME
from mcpvend.runtime.results import ModelResult
from mcpvend.runtime.toolset import ToolSet

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
        ts.search("read a file and search the web", 10)  # routed mode then offers materialized tools too
        sets.append(ts)
    return sets


@pytest.mark.parametrize("ts", toolsets(), ids=MODES)
def test_openai_specs_match_the_sdk_types(ts: ToolSet) -> None:
    adapter = TypeAdapter(ChatCompletionToolParam)
    specs = ts.tool_specs("openai")
    assert len(specs) >= 5
    for spec in specs:
        adapter.validate_python(spec)
        check_keys(spec, ChatCompletionToolParam)
        check_keys(spec["function"], FunctionDefinition)
        assert PROVIDER_NAME.match(spec["function"]["name"])
        assert spec["function"]["parameters"]["type"] == "object"


@pytest.mark.parametrize("ts", toolsets(), ids=MODES)
def test_anthropic_specs_match_the_sdk_types(ts: ToolSet) -> None:
    adapter = TypeAdapter(ToolParam)
    for spec in ts.tool_specs("anthropic"):
        adapter.validate_python(spec)
        check_keys(spec, ToolParam)
        assert PROVIDER_NAME.match(spec["name"])


def test_the_types_catch_a_bad_spec() -> None:
    """The check above can fail: a spec missing its name, or with a stray key, is refused."""
    with pytest.raises(ValueError, match="name"):
        TypeAdapter(ToolParam).validate_python({"input_schema": {"type": "object"}})
    with pytest.raises(AssertionError):
        check_keys({"name": "x", "input_schema": {}, "inputSchema": {}}, ToolParam)


def test_result_messages_match_the_sdk_types() -> None:
    result = ModelResult(text="it failed", is_error=True)
    message = result.openai_message("call_1")
    TypeAdapter(ChatCompletionToolMessageParam).validate_python(message)
    check_keys(message, ChatCompletionToolMessageParam)
    block = result.anthropic_block("toolu_1")
    TypeAdapter(ToolResultBlockParam).validate_python(block)
    check_keys(block, ToolResultBlockParam)
    assert block["is_error"] is True and block["content"] == "it failed"
