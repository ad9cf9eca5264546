"""Each text format against its family's own word: model cards, Meta's prompt-format documents, mistral-common.

Hermes and Llama are checked against examples quoted verbatim, with their sources, in
tests/data/textformats/. Mistral is checked against `mistral-common`, Mistral's own library, which
renders whole conversations for every tokenizer version: its instruct tokenizers (the templates) are
run on the tekken vocabulary the package ships, under each version's name, because the package bundles
v7 only as a sentencepiece model and v11/v13 not at all; a version's template does not depend on the
vocabulary, and tekken decodes byte for byte.
"""

from __future__ import annotations

import ast
import json
import tempfile
from pathlib import Path
from typing import Any

import mistral_common
import pytest
from mistral_common.protocol.instruct.messages import AssistantMessage, ToolMessage, UserMessage
from mistral_common.protocol.instruct.request import ChatCompletionRequest
from mistral_common.protocol.instruct.tool_calls import Function, FunctionCall, Tool, ToolCall
from mistral_common.tokens.tokenizers.base import SpecialTokens
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

from conftest import REPO
from mcpvend.runtime.core.catalog import Catalog, Entry
from mcpvend.runtime.core.results import ModelResult
from mcpvend.runtime.core.specs import ToolSpec
from mcpvend.runtime.textformats.calls import CallError, ParsedCall
from mcpvend.runtime.textformats.hermes import Hermes
from mcpvend.runtime.textformats.mistral import VERSIONS, Mistral
from mcpvend.runtime.textformats.pythonic import Pythonic
from mcpvend.runtime.toolset import ToolSet

DATA = REPO / "tests" / "data" / "textformats"
HERMES_CARD = json.loads((DATA / "hermes_model_card.json").read_text(encoding="utf-8"))
LLAMA = json.loads((DATA / "llama_prompt_format.json").read_text(encoding="utf-8"))


def between(text: str, start: str, end: str) -> str:
    head = text.index(start) + len(start)
    return text[head : text.index(end, head)]


# --- Hermes: the model card ------------------------------------------------------------------------


def test_hermes_system_prompt_is_the_model_cards_word_for_word() -> None:
    system = between(HERMES_CARD["system"], "<|im_start|>system\n", "<|im_end|>")
    # The card writes the quotes inside its tool's description as \' (invalid JSON): repaired, it decodes.
    repaired = system.replace("\\'", "'")
    card_tool = json.loads(between(repaired, "<tools> ", "  </tools>"))["function"]
    spec = ToolSpec(card_tool["name"], card_tool["description"], card_tool["parameters"])
    assert Hermes().prompt([spec]) == repaired


def test_hermes_reads_and_writes_the_cards_tool_call() -> None:
    assistant = between(HERMES_CARD["assistant"], "<|im_start|>assistant\n", "<|im_end|>")
    found = Hermes().parse(assistant)
    assert [(c.name, c.arguments) for c in found.items] == [("get_stock_fundamentals", {"symbol": "TSLA"})]  # type: ignore[union-attr]
    call = ParsedCall("get_stock_fundamentals", {"symbol": "TSLA"}, "abcdefghi")
    assert Hermes().render_calls([call]) == assistant


def test_hermes_tool_response_has_the_cards_frame_role_and_content() -> None:
    card = HERMES_CARD["tool"]
    assert card.startswith(f"<|im_start|>{Hermes().role}\n")  # the `tool` role
    body = between(card, "<tool_response>\n", "\n</tool_response>")
    card_value = ast.literal_eval(body)  # the card prints the content as a Python dict
    call = ParsedCall("get_stock_fundamentals", {"symbol": "TSLA"}, "abcdefghi")
    ours = Hermes().render_result(call, ModelResult(json.dumps(card_value["content"])))
    assert ours == f"<tool_response>\n{json.dumps(card_value)}\n</tool_response>"
    assert card.startswith(f"<|im_start|>tool\n{ours.split(chr(10))[0]}\n")


# --- Llama: Meta's prompt-format documents -------------------------------------------------------------


def test_pythonic_system_prompt_is_llama_3_2s_word_for_word() -> None:
    example = LLAMA["llama3_2_zero_shot"]["input_prompt"]
    system = between(example, "<|start_header_id|>system<|end_header_id|>\n\n", "<|eot_id|>")
    (tool,) = json.loads(system[system.index("\n[\n") + 1 :])
    spec = ToolSpec(tool["name"], tool["description"], tool["parameters"])
    assert Pythonic().prompt([spec]) == system


def test_pythonic_reads_and_writes_llama_3_2s_parallel_calls() -> None:
    response = LLAMA["llama3_2_zero_shot"]["model_response"].removesuffix("<|eot_id|>\n")
    expected = [
        ("get_weather", {"city": "San Francisco", "metric": "celsius"}),
        ("get_weather", {"city": "Seattle", "metric": "celsius"}),
    ]
    assert [(c.name, c.arguments) for c in Pythonic().parse(response).items] == expected  # type: ignore[union-attr]
    calls = [ParsedCall(name, arguments, "abcdefghi", i) for i, (name, arguments) in enumerate(expected)]
    assert Pythonic().render_calls(calls) == response


def test_pythonic_follows_llama_3_2s_end_to_end_example() -> None:
    """The call after <|python_tag|> (double quotes this time), and the result in the ipython role as JSON."""
    example = LLAMA["llama3_2_e2e"]["input_prompt"]
    written = between(example, "<|start_header_id|>assistant<|end_header_id|>\n\n", "<|eot_id|>")
    found = Pythonic().parse(written)
    assert [(c.name, c.arguments) for c in found.items] == [
        ("get_weather", {"city": "San Francisco", "metric": "celsius"})
    ]  # type: ignore[union-attr]
    assert found.text == ""
    header = f"<|start_header_id|>{Pythonic().role}<|end_header_id|>\n\n"
    sent = between(example, header, "<|eot_id|>")
    call = ParsedCall("get_weather", {"city": "San Francisco"}, "abcdefghi")
    assert Pythonic().render_result(call, ModelResult("25 C")) == sent == '"25 C"'


def test_pythonic_reads_llama_4s_calls() -> None:
    parallel, user_info = (r.removesuffix("<|eot|>\n") for r in LLAMA["llama4_zero_shot"]["model_responses"])
    assert [(c.name, c.arguments) for c in Pythonic().parse(parallel).items] == [  # type: ignore[union-attr]
        ("get_weather", {"city": "San Francisco"}),
        ("get_weather", {"city": "Seattle"}),
    ]
    (call,) = Pythonic().parse(user_info).items
    assert (call.name, call.arguments) == ("get_user_info", {"user_id": 7890, "special": "black"})  # type: ignore[union-attr]
    assert Pythonic().render_calls([ParsedCall(call.name, call.arguments, "abcdefghi")]) == user_info  # type: ignore[union-attr]


# --- Mistral: mistral-common ------------------------------------------------------------------------


def mistral_tokenizer(version: str, directory: Path) -> MistralTokenizer:
    """mistral-common's tokenizer of `version`, on the tekken vocabulary it ships (see the module docstring)."""
    source = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data.pop("image", None)
    data["config"]["version"] = version
    names = [str(t["token_str"].value) for t in Tekkenizer.DEPRECATED_SPECIAL_TOKENS]
    names += [SpecialTokens.args.value, SpecialTokens.call_id.value]
    data["special_tokens"] = [{"rank": i, "token_str": name, "is_control": True} for i, name in enumerate(names)]
    path = directory / f"tekken_{version}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return MistralTokenizer.from_file(path)


@pytest.fixture(scope="module")
def tokenizers() -> dict[str, MistralTokenizer]:
    with tempfile.TemporaryDirectory() as directory:
        return {version: mistral_tokenizer(version, Path(directory)) for version in VERSIONS}


def locked_specs() -> list[ToolSpec]:
    """The reviewed time and demo tools, as direct mode offers them (non-ASCII text included)."""
    entries = []
    for server in ("time", "demo"):
        lock = json.loads((REPO / "lockfiles" / f"{server}.lock.json").read_text(encoding="utf-8"))
        entries += [Entry(server, t["tool"]) for t in lock["tools"]]
    return ToolSet(Catalog(entries), mode="direct").listing()


RESULTS = [
    ModelResult('{"timezone": "Asia/Tokyo", "datetime": "2026-01-01T09:00:00+09:00"}', structured={"timezone": "x"}),
    ModelResult("25.00 celsius → 77.00 fahrenheit, “quoted”"),
    ModelResult("42"),
]


@pytest.mark.parametrize("version", VERSIONS)
def test_mistral_renders_a_whole_conversation_as_mistral_common_does(
    version: str, tokenizers: dict[str, MistralTokenizer]
) -> None:
    fmt = Mistral(f"mistral-{version}", version)
    specs = locked_specs()
    calls = [
        ParsedCall("time__get_current_time", {"timezone": "Asia/Tokyo"}, "a1B2c3D4e", 0),
        ParsedCall("demo__convert_temperature", {"value": 25, "to": "fahrenheit"}, "Zz9Yy8Xx7", 1),
        ParsedCall("demo__cancel_booking", {"reference": "ÅBC-1", "notify": False}, "000000000", 2),
    ]
    problem = "invalid arguments for demo__cancel_booking: 'reference' is a required property"
    error = CallError(problem, "000000000", 2, "demo__cancel_booking")
    results = [RESULTS[0], RESULTS[1], error.result]
    tools = [
        Tool(function=Function(name=s.name, description=s.description, parameters=dict(s.input_schema))) for s in specs
    ]
    messages: list[Any] = [
        UserMessage(content="What time is it in Tokyo, and 25 °C in Fahrenheit?"),
        AssistantMessage(
            tool_calls=[
                ToolCall(id=c.id, function=FunctionCall(name=c.name, arguments=json.dumps(c.arguments))) for c in calls
            ]
        ),
    ]
    said = [r.text if not r.is_error else json.dumps({"error": r.text}, ensure_ascii=False) for r in results]
    messages += [ToolMessage(content=text, tool_call_id=c.id, name=c.name) for c, text in zip(calls, said, strict=True)]
    oracle = tokenizers[version].encode_chat_completion(ChatCompletionRequest(messages=messages, tools=tools)).text

    ours = (
        "<s>"
        + fmt.prompt(specs)
        + "[INST]What time is it in Tokyo, and 25 °C in Fahrenheit?[/INST]"
        + fmt.render_calls(calls)
        + "</s>"
        + "".join(fmt.render_result(c, r) for c, r in zip([*calls[:2], error], results, strict=True))
    )
    assert ours == oracle

    written = between(oracle, "[/INST]", "</s>")  # the calls as the model wrote them, read back
    read = fmt.parse(written + "</s>")
    assert [(c.name, c.arguments) for c in read.items] == [(c.name, c.arguments) for c in calls]  # type: ignore[union-attr]
    assert [c.id for c in read.items] == [c.id if version in ("v3", "v7", "v11") else None for c in calls]  # type: ignore[union-attr]
    assert read.text == ""


@pytest.mark.parametrize("version", VERSIONS)
def test_mistral_call_ids_are_nine_characters_mistral_common_accepts(
    version: str, tokenizers: dict[str, MistralTokenizer]
) -> None:
    """Where the model's text carries no id (v2, v13) or a wrong one, the parsed call still gets a valid one."""
    fmt = Mistral(f"mistral-{version}", version)
    ts = ToolSet(Catalog([Entry("time", {"name": "get_current_time", "inputSchema": {"type": "object"}})]))
    text = '[TOOL_CALLS][{"name": "time__get_current_time", "arguments": {"timezone": "UTC"}, "id": "call_not_mistral_shaped"}]'
    parsed = ts.parse_calls(text, format=fmt.name)
    (call,) = parsed.calls
    assert len(call.id) == 9 and call.id.isalnum() and call.id.isascii()
    assert ts.parse_calls(text, format=fmt.name).calls[0].id == call.id  # derived from the text: the same every time
    request = ChatCompletionRequest(
        messages=[
            UserMessage(content="now?"),
            AssistantMessage(tool_calls=[ToolCall(id=call.id, function=FunctionCall(name=call.name, arguments="{}"))]),
            ToolMessage(content="ok", tool_call_id=call.id, name=call.name),
        ]
    )
    assert fmt.render_result(call, ModelResult("ok")) in tokenizers[version].encode_chat_completion(request).text
