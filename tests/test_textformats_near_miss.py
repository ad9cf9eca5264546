"""Call-shaped text is never dropped silently: near misses are read or answered, prose stays prose.

The variants are the ways models are known to miss each format, after the formats' own templates:
Hermes JSON without `<tool_call>` or inside a ```json fence (Qwen 2.5 and Hermes 3 both do it),
`<function=name>{...}</function>` (Llama 3.1's custom tool format, which Llama models fall back to),
OpenAI's `{"type": "function", "function": {...}}` copied from the tool list, a Mistral call list whose
`[TOOL_CALLS]` a server dropped (a special token, stripped by `skip_special_tokens`), v11's
`name[ARGS]{...}` without it, a Llama 3.2 pythonic call without brackets or behind `<|python_tag|>`,
Llama 3.2 answering in JSON with `"parameters"` (its JSON tool format), JSON after a sentence, and JSON
in Python's single quotes. A negative is text a model writes in an answer: prose naming a tool, a
Python code sample, JSON data naming no tool.
"""

from __future__ import annotations

import pytest

from mcpvend.runtime.textformats.calls import MAX_CALLS, ParsedCall, call_id, reply_digest
from mcpvend.runtime.textformats.choice import TEXT_FORMATS
from test_textformats import FORMATS, toolset

TS = toolset()
TOKYO = {"timezone": "Asia/Tokyo"}
TIME = "time__get_current_time"
CALL = (TIME, TOKYO)

# (format, what the model wrote, the call it meant, the prose left)
READ: list[tuple[str, str, tuple[str, dict[str, str]], str]] = [
    ("hermes", '{"arguments": {"timezone": "Asia/Tokyo"}, "name": "time__get_current_time"}', CALL, ""),
    (
        "hermes",
        'Checking.\n```json\n{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}\n```',
        CALL,
        "Checking.",
    ),
    (
        "hermes",
        '```\n<tool_call>\n{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}\n</tool_call>\n```',
        CALL,
        "",
    ),
    ("hermes", '<function=get_current_time>{"timezone": "Asia/Tokyo"}</function>', CALL, ""),
    ("hermes", '<tools>{"name": "time.get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}</tools>', CALL, ""),
    ("hermes", "{'name': 'get_current_time', 'arguments': {'timezone': 'Asia/Tokyo'}}", CALL, ""),
    (
        "hermes",
        '<tool_call>\n{"type": "function", "function": {"name": "get_current_time", "arguments": "{\\"timezone\\": \\"Asia/Tokyo\\"}"}}\n</tool_call>',
        CALL,
        "",
    ),
    (
        "hermes",
        '<tool_call>\n[{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}]\n</tool_call>',
        CALL,
        "",
    ),
    ("mistral", '[{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}]', CALL, ""),
    (
        "mistral",
        'Sure: [{"name": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}, "id": "Ab3dE6gH9"}]</s>',
        CALL,
        "Sure:",
    ),
    ("mistral", '{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}', CALL, ""),
    ("mistral-v11", 'get_current_time[ARGS]{"timezone": "Asia/Tokyo"}', CALL, ""),
    ("mistral-v11", 'get_current_time[CALL_ID]Ab3dE6gH9[ARGS]{"timezone": "Asia/Tokyo"}', CALL, ""),
    ("mistral-v13", '```json\n[{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}]\n```', CALL, ""),
    ("pythonic", "get_current_time(timezone='Asia/Tokyo')", CALL, ""),
    ("pythonic", "<|python_tag|>get_current_time(timezone='Asia/Tokyo')<|eom_id|>", CALL, ""),
    ("pythonic", "<|python_start|>time__get_current_time(timezone='Asia/Tokyo')<|python_end|>", CALL, ""),
    ("pythonic", 'Let me check.\n```python\nget_current_time(timezone="Asia/Tokyo")\n```', CALL, "Let me check."),
    ("pythonic", '{"name": "get_current_time", "parameters": {"timezone": "Asia/Tokyo"}}', CALL, ""),
    ("pythonic", '<function=get_current_time>{"timezone": "Asia/Tokyo"}</function><|eom_id|>', CALL, ""),
    (
        "json",
        'I will check: {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}',
        CALL,
        "I will check:",
    ),
    ("json", "{'name': 'get_current_time', 'arguments': {'timezone': 'Asia/Tokyo'}}", CALL, ""),
    ("json", '```json {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}} ```', CALL, ""),
    ("json", '<tool_call>{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}</tool_call>', CALL, ""),
    (
        "json",
        '{"type": "function", "function": {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}}',
        CALL,
        "",
    ),
]


@pytest.mark.parametrize(("fmt", "text", "meant", "prose"), READ, ids=[f"{r[0]}-{i}" for i, r in enumerate(READ)])
def test_a_near_miss_that_can_be_read_is_read(
    fmt: str, text: str, meant: tuple[str, dict[str, str]], prose: str
) -> None:
    parsed = TS.parse_calls(text, format=fmt)
    assert [(c.name, dict(c.arguments)) for c in parsed.calls] == [meant]
    assert parsed.errors == ()
    assert parsed.text == prose


def test_a_near_miss_keeps_its_written_id_and_its_place_among_the_calls() -> None:
    text = (
        'get_current_time[CALL_ID]Ab3dE6gH9[ARGS]{"timezone": "UTC"}'
        '[TOOL_CALLS]demo__convert_temperature[ARGS]{"value": 1}'
    )
    parsed = TS.parse_calls(text, format="mistral-v11")
    assert [(c.index, c.name) for c in parsed.calls] == [(0, TIME), (1, "demo__convert_temperature")]
    assert parsed.calls[0].id == "Ab3dE6gH9"
    hermes = 'First {"name": "get_current_time", "arguments": {}}\n<tool_call>\n{"name": "everything__echo", "arguments": {"message": "x"}}\n</tool_call>'
    parsed = TS.parse_calls(hermes, format="hermes")
    assert [(c.index, c.name) for c in parsed.calls] == [(0, TIME), (1, "everything__echo")]
    assert parsed.text == "First"


# (format, what the model wrote, the tool it named, what the error shows of the format's own form)
ANSWERED = [
    (
        "hermes",
        '{"name": "get_current_time", "arguments": {"timezone": Asia/Tokyo}}',
        "get_current_time",
        "<tool_call>",
    ),
    (
        "hermes",
        "<function=get_current_time>\n<parameter=timezone>\nAsia/Tokyo\n</parameter>\n</function>",
        "get_current_time",
        "<tool_call>",
    ),
    ("hermes", "{'name': 'get_current_time', 'arguments': {'timezone': true}}", "get_current_time", "<tool_call>"),
    (
        "mistral",
        '[{"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}',
        "get_current_time",
        "[TOOL_CALLS][",
    ),
    ("mistral-v11", "get_current_time[ARGS]timezone=Asia/Tokyo", "get_current_time", "[TOOL_CALLS]name[ARGS]"),
    ("pythonic", "get_current_time('Asia/Tokyo')", "get_current_time", "[tool_name(arg=value"),
    ("pythonic", "<|python_tag|>get_current_time(timezone='Asia/Tokyo'", "get_current_time", "[tool_name(arg=value"),
    (
        "pythonic",
        '{"name": "get_current_time", "parameters": {"timezone": "Asia/Tokyo"',
        "get_current_time",
        "[tool_name(arg=value",
    ),
    (
        "json",
        'Now: {"name": "get_current_time", "arguments": {"timezone": Asia/Tokyo}}',
        "get_current_time",
        '{"name": "...", "arguments"',
    ),
]


@pytest.mark.parametrize(("fmt", "text", "name", "form"), ANSWERED, ids=[f"{r[0]}-{i}" for i, r in enumerate(ANSWERED)])
def test_a_near_miss_that_cannot_be_read_is_an_error_showing_the_form(
    fmt: str, text: str, name: str, form: str
) -> None:
    parsed = TS.parse_calls(text, format=fmt)
    assert parsed.calls == ()
    (error,) = parsed.errors
    assert error.name == name
    assert form in error.message and "Write" in error.message


PROSE = [
    "You can use get_current_time to find the time in Tokyo, or convert_temperature for units.",
    "get_current_time() returns the current time; call it with a timezone such as 'Asia/Tokyo'.",
    "In Python:\n```python\nnow = get_current_time(timezone='Asia/Tokyo')\nsquares = [square(x) for x in range(3)]\n"
    "print(sorted([len(a), 2]))\nrun(main())\n```",
    '```json\n{"name": "Ada", "age": 36, "tags": ["a", "b"]}\n```\nand {"name": "Grace"} on its own:\n{"name": "Grace"}',
    "Here are the tools: [{'name': 'Ada', 'arguments': {}}] and {\"type\": \"person\", \"id\": 7}",
    'The API returns {"id": "abc", "name": "not_a_tool", "arguments": []} to callers.',
    "A matrix [[1, 2], [3, 4]] and a set {1, 2} and a dict {'a': 1} and f(x) = x[ARGS] * 2.",
    '<function=not_a_tool>{"a": 1}</function> is how Llama 3.1 writes a call, and not_a_tool[ARGS]{} Mistral\'s.',
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("text", PROSE, ids=range(len(PROSE)))
def test_prose_code_and_json_naming_no_tool_stay_prose(fmt: str, text: str) -> None:
    parsed = TS.parse_calls(text, format=fmt)
    assert parsed.calls == () and parsed.errors == ()
    assert parsed.text == text.strip()


def test_the_same_near_miss_in_prose_is_read_once_it_names_a_tool() -> None:
    """The negatives above differ from a near miss only in the name: the check is the name, not the shape."""
    for fmt in FORMATS:
        prose = TS.parse_calls('Try {"name": "not_a_tool", "arguments": {}} now.', format=fmt)
        called = TS.parse_calls('Try {"name": "get_current_time", "arguments": {}} now.', format=fmt)
        assert (prose.calls, prose.errors) == ((), ()), fmt
        assert [c.name for c in called.calls] == [TIME] and called.text == "Try  now.", fmt


def test_a_format_alone_reads_only_its_exact_form() -> None:
    """Without a toolset to say which names are tools, nothing is a near miss."""
    for fmt in FORMATS:
        found = TEXT_FORMATS[fmt].parse('{"name": "time__get_current_time", "arguments": {}} after text')
        assert [type(item).__name__ for item in found.items] == ([] if fmt != "json" else ["RawCall"]), fmt


# --- the cap on calls per reply -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_past_the_cap_one_error_says_the_rest_were_not_read(fmt: str) -> None:
    calls = [ParsedCall(TIME, {"timezone": f"Etc/GMT+{i % 12}"}, "Ab3dE6gH9") for i in range(MAX_CALLS + 40)]
    text = TS.text_calls(calls, format=fmt)
    parsed = TS.parse_calls(text, format=fmt)
    assert len(parsed.calls) == MAX_CALLS
    (error,) = parsed.errors
    assert error.index == MAX_CALLS and f"at most {MAX_CALLS} tool calls" in error.message
    assert [c.arguments for c in parsed.calls] == [c.arguments for c in calls[:MAX_CALLS]]
    assert len(TS.parse_calls(text, format=fmt, max_calls=MAX_CALLS + 40).calls) == MAX_CALLS + 40
    assert TS.parse_calls(TS.text_calls(calls[:MAX_CALLS], format=fmt), format=fmt).errors == ()


def test_call_ids_hash_the_reply_once_and_differ_by_index() -> None:
    digest = reply_digest("some reply")
    ids = [call_id(digest, i) for i in range(50)]
    assert len(set(ids)) == 50 and ids == [call_id(reply_digest("some reply"), i) for i in range(50)]
    assert call_id(reply_digest("another reply"), 0) != ids[0]


# --- linear time -----------------------------------------------------------------------------------------

MB = 1_000_000
HOSTILE = {
    "nested braces, a line each": "{\n" * (MB // 2),
    "nested name keys": '{"name": ' * (MB // 9),
    "single quotes that never close": "{'name': 'don't'} " * (MB // 18),
    "call objects never closed": '{"name": "time__get_current_time", "arguments": {' * (MB // 50),
    "broken JSON lines": '{"name": "x", "arguments": {\n' * (MB // 30),
    "function tags": "<function=time__get_current_time>" * (MB // 33),
    "names before [ARGS]": "time__get_current_time[ARGS]{" * (MB // 29),
    "bare calls left open": "time__get_current_time(\n" * (MB // 24),
    "lists in code": "[f(x)] " * (MB // 7),
    "open tool_call tags": "<tool_call>{" * (MB // 12),
    "one long word": "a" * MB + "[ARGS]",
    "spaces": " " * MB + "x",
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_hostile_megabyte_is_read_within_the_cap(fmt: str) -> None:
    """A quadratic scan took minutes on these (the suite's timeout catches one); how long a linear one
    takes is measured in bench/textformats.py, not asserted here."""
    for name, text in HOSTILE.items():
        parsed = TS.parse_calls(text, format=fmt)
        assert len(parsed.calls) + len(parsed.errors) <= MAX_CALLS + 1, name
