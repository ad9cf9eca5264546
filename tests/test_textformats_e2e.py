"""End to end: a scripted model that only writes text drives whole conversations over real servers, per format.

The "model" is a fixed list of steps; each step reads the transcript so far (what a real model would
read: the system prompt and the messages, as text) and writes its reply by hand, in the format, the way
such a model writes it. The loop is the one a user writes for a model without native tool calling:
`ts.prepare` on the user's message, `ts.text_prompt()` as the system prompt, `ts.parse_calls` on each
reply, `ts.call` on each call, `ts.text_result` back. Nothing in the script knows a tool name the
toolset did not tell it. The servers are the real time and demo servers, started by the generated package.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from conftest import REPO
from test_textformats import FORMATS, written

pytestmark = pytest.mark.anyio
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from generated import CallError  # noqa: E402
from generated._runtime.textformats.choice import TEXT_FORMATS  # noqa: E402  (the vendored runtime: its own classes)

QUESTION = "What time is it in Tokyo right now? And what is 25 degrees Celsius in Fahrenheit?"


@dataclass
class Transcript:
    fmt: str
    system: str
    messages: list[dict[str, str]] = field(default_factory=list)

    @property
    def last(self) -> str:
        return self.messages[-1]["content"]

    def since_reply(self) -> str:
        """Every message after the model's last reply: the results of the calls it made."""
        replies = [i for i, m in enumerate(self.messages) if m["role"] == "assistant"]
        return "\n".join(m["content"] for m in self.messages[replies[-1] + 1 :])


def listed(t: Transcript, name: str) -> bool:
    """Does the system prompt offer a tool under this name (as the format writes names)?"""
    return f'"name": "{TEXT_FORMATS[t.fmt].wire_name(name)}"' in t.system


def broken(fmt: str, name: str, arguments: dict[str, Any]) -> str:
    """A call the model got wrong: its last closing brace (pythonic: parenthesis) left out."""
    text = written(fmt, [(name, arguments)])
    cut = text.rindex(")" if fmt == "pythonic" else "}")
    return text[:cut] + text[cut + 1 :]


def search(t: Transcript) -> str:
    assert listed(t, "search_tools") and listed(t, "time__get_current_time")  # turn one was prepared
    assert "temperature" not in t.system  # small model: two tools materialized, both about time
    return "Let me find a temperature tool.\n" + written(
        t.fmt, [("search_tools", {"query": "convert a temperature to fahrenheit", "limit": 2})]
    )


def call_broken(t: Transcript) -> str:
    (found,) = set(re.findall(r"\w+__\w*temperature\w*", t.last))  # read from the search result
    assert listed(t, found)  # and offered with its schema from this turn on
    return "Converting now.\n" + broken(t.fmt, found, {"value": 25, "to": "fahrenheit"})


def recover_and_call_two(t: Transcript) -> str:
    assert "could not read" in t.last
    (found,) = set(re.findall(r"\w+__\w*temperature\w*", t.system))
    calls = [(found, {"value": 25, "to": "fahrenheit"}), ("time__get_current_time", {"timezone": "Asia/Tokyo"})]
    return "Sorry, again:\n" + written(t.fmt, calls)


def answer(t: Transcript) -> str:
    results = t.since_reply()
    (converted,) = re.findall(r"\d+\.\d+ fahrenheit", results)
    (when,) = re.findall(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+09:00", results)
    return f"In Tokyo it is {when}; 25 °C is {converted}."


Step = Callable[[Transcript], str]
SCRIPT: list[Step] = [search, call_broken, recover_and_call_two, answer]


@dataclass
class Turn:
    reply: str
    parsed: Any
    results: list[Any]


async def converse(fmt: str) -> tuple[Transcript, list[Turn], Any]:
    generated = importlib.import_module("generated")
    turns: list[Turn] = []
    async with generated.toolset(
        ["time", "demo"],
        mode="routed",
        text=generated.TextOptions(formats=["native", fmt], model_tool_calling=False),
        search=generated.SearchOptions(model_size="small"),
    ) as ts:
        prepared = ts.prepare(QUESTION)
        assert prepared.format == fmt and prepared.prompt is not None and prepared.specs is None
        transcript = Transcript(fmt, prepared.prompt, [{"role": "user", "content": QUESTION}])
        for step in SCRIPT:
            reply = step(transcript)
            transcript.messages.append({"role": "assistant", "content": reply})
            parsed = ts.parse_calls(reply)
            results = []
            for item in parsed.in_order():
                result = item.result if isinstance(item, CallError) else await ts.call(item.name, item.arguments)
                results.append(result)
                transcript.messages.append(ts.text_result(item, result))
            turns.append(Turn(reply, parsed, results))
            transcript.system = ts.text_prompt()  # the next turn sees the tools search materialized
        plan = ts.plan()
    return transcript, turns, plan


@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_text_only_model_searches_recovers_from_a_broken_call_and_answers(fmt: str) -> None:
    transcript, turns, plan = await converse(fmt)
    role = TEXT_FORMATS[fmt].role
    assert plan.mode == "routed" and plan.format.format == fmt
    assert "the primary native is unavailable" in str(plan)

    searched, failed, recovered, answered = turns
    (call,) = searched.parsed.calls
    assert call.name == "search_tools" and searched.parsed.text == "Let me find a temperature tool."
    (result,) = searched.results
    assert json.loads(result.text)["tools"][0]["name"] == "demo__convert_temperature"

    assert failed.parsed.calls == () and failed.parsed.text == "Converting now."
    (error,) = failed.parsed.errors
    assert error.message.startswith("could not read") and failed.results[0].is_error

    assert [c.name for c in recovered.parsed.calls] == ["demo__convert_temperature", "time__get_current_time"]
    assert recovered.parsed.errors == ()
    converted, now = recovered.results
    assert not converted.is_error and converted.text == "77.00 fahrenheit"
    assert not now.is_error and now.structured["timezone"] == "Asia/Tokyo"

    assert answered.parsed.calls == () and answered.parsed.errors == () and answered.results == []
    assert answered.parsed.text == answered.reply
    assert answered.reply.startswith("In Tokyo it is ") and answered.reply.endswith("25 °C is 77.00 fahrenheit.")
    assert now.structured["datetime"] in answered.reply

    sent = [m["role"] for m in transcript.messages]
    assert sent == ["user", "assistant", role, "assistant", role, "assistant", role, role, "assistant"]
