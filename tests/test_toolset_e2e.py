"""End to end: a scripted model drives a routed ToolSet over real servers, as an agent loop would.

The "model" is a fixed list of steps; each step reads the transcript so far (what a real model
would read) and makes one tool call in the OpenAI shape (`arguments` as a JSON string). The loop
executes it with `ToolSet.call` and appends `result.openai_message(...)`, which must be a valid
OpenAI tool message. Nothing in the script knows a tool name the toolset did not tell it.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import TypeAdapter

from conftest import REPO, node_server

# openai's type is imported inside the test, not here: every xdist worker collects this module but
# only one runs it, and importing openai costs seconds of CPU.

pytestmark = pytest.mark.anyio
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@dataclass
class Transcript:
    specs: list[dict[str, Any]]
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def last(self) -> dict[str, Any]:
        return self.messages[-1]

    def offered(self) -> list[str]:
        return [spec["function"]["name"] for spec in self.specs]


Step = Callable[[Transcript], tuple[str, dict[str, Any]]]


def search(t: Transcript) -> tuple[str, dict[str, Any]]:
    assert "time__get_current_time" not in t.offered()  # routed: the model knows only the meta-tools
    return "search_tools", {"query": "current time in a timezone", "limit": 3}


def read_schema(t: Transcript) -> tuple[str, dict[str, Any]]:
    best = json.loads(t.last["content"])["tools"][0]["name"]
    return "get_tool_schema", {"name": best}


def call_wrongly(t: Transcript) -> tuple[str, dict[str, Any]]:
    name = json.loads(t.last["content"])["name"]
    return "call_tool", {"name": name, "arguments": {"tz": "Europe/Paris"}}  # the wrong property name


def recover_from_schema(t: Transcript) -> tuple[str, dict[str, Any]]:
    error = t.last["content"]
    schema = json.loads(error.split("Its input schema: ", 1)[1].split("\n", 1)[0])
    (required,) = schema["required"]
    return "call_tool", {"name": t.calls[-1][1]["name"], "arguments": {required: "Europe/Paris"}}


def call_materialized_directly(t: Transcript) -> tuple[str, dict[str, Any]]:
    assert "time__get_current_time" in t.offered()  # found by search, so now offered with its schema
    return "time__get_current_time", {"timezone": "Asia/Tokyo"}


def call_unlisted_by_real_name(t: Transcript) -> tuple[str, dict[str, Any]]:
    assert "everything__get-sum" not in t.offered()
    return "everything__get-sum", {"a": 19, "b": 23}


def call_by_bare_wire_name(t: Transcript) -> tuple[str, dict[str, Any]]:
    return "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}


SCRIPT: list[Step] = [
    search,
    read_schema,
    call_wrongly,
    recover_from_schema,
    call_materialized_directly,
    call_unlisted_by_real_name,
    call_by_bare_wire_name,
]


async def test_a_scripted_model_searches_reads_the_schema_recovers_and_calls_by_real_name() -> None:
    from openai.types.chat import ChatCompletionToolMessageParam

    node_server("server-everything")
    generated = importlib.import_module("generated")
    validate = TypeAdapter(ChatCompletionToolMessageParam).validate_python
    async with generated.toolset(
        ["time", "everything", "filesystem", "demo"], mode="auto", budget=generated.Budget(context_window=4_000)
    ) as ts:
        assert ts.mode == "routed"  # the compact listing (1,372 tokens) > 20 % of 4,000
        transcript = Transcript(ts.tool_specs("openai"))
        results = []
        for number, step in enumerate(SCRIPT, 1):
            name, arguments = step(transcript)
            result = await ts.call(name, json.dumps(arguments))  # as a provider sends it: a JSON string
            message = result.openai_message(f"call_{number}")
            validate(message)
            transcript.calls.append((name, arguments))
            transcript.messages.append(message)
            transcript.specs = ts.tool_specs("openai")  # the next turn sees materialized tools
            results.append(result)

    errors = [r.is_error for r in results]
    assert errors == [False, False, True, False, False, False, False], [r.text for r in results]
    assert json.loads(results[0].text)["tools"][0]["name"] == "time__get_current_time"
    assert "'timezone' is a required property" in results[2].text
    assert results[3].structured["timezone"] == "Europe/Paris"
    assert results[4].structured["timezone"] == "Asia/Tokyo"
    assert "42" in results[5].text
    assert results[6].structured["target"]["timezone"] == "Asia/Tokyo"
