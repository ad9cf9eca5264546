"""Hypothesis: calls rendered in each text format parse back unchanged; truncated or corrupted text never raises.

The calls are drawn over the real tools of the locked servers (names with dots and hyphens among them)
and the meta-tools, with arguments of any JSON shape: keys that are Python keywords, not identifiers or
NFKC-unstable, strings holding every format's own markers (`</tool_call>`, `[TOOL_CALLS]`, `[f(x=1)]`).
"""

from __future__ import annotations

import json
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpvend.runtime.textformats.calls import ParsedCall, ParsedCalls, valid_id
from mcpvend.runtime.textformats.choice import TEXT_FORMATS
from mcpvend.runtime.toolset import ToolSet
from test_textformats import FORMATS, toolset

TS = toolset("routed")
NAMES = sorted([*TS.catalog.by_provider, "search_tools", "call_tool", "get_tool_schema"])
MARKERS = [
    "</tool_call>",
    "<tool_call>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "[f(x=1)]",
    "<|python_tag|>",
    "\n{",
    '"}',
]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

texts = st.one_of(st.text(max_size=30), st.sampled_from(MARKERS), st.sampled_from(["from", "class", "ﬁle", "a-b", ""]))
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
ids = st.text(alphabet=string.ascii_letters + string.digits, min_size=9, max_size=9)
calls = st.lists(
    st.builds(ParsedCall, st.sampled_from(NAMES), st.dictionaries(texts, values, max_size=5), ids),
    min_size=1,
    max_size=4,
)
CARRY_IDS = {"mistral", "mistral-v3", "mistral-v7", "mistral-v11"}


def render(fmt: str, drawn: list[ParsedCall]) -> str:
    return TS.text_calls(drawn, format=fmt)


def check(parsed: ParsedCalls) -> None:
    """What any parse must give: known names, JSON arguments, valid ids, one index per item."""
    assert isinstance(parsed, ParsedCalls) and isinstance(parsed.text, str)
    for call in parsed.calls:
        assert call.name in TS.catalog.by_provider or call.name in NAMES
        json.dumps(call.arguments, allow_nan=False)
        assert valid_id(call.id)
    for error in parsed.errors:
        assert error.message and valid_id(error.id)
    indexes = [item.index for item in parsed.in_order()]
    assert indexes == sorted(set(indexes))


def same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@SETTINGS
@given(st.sampled_from(FORMATS), calls)
def test_rendered_calls_parse_back_unchanged(fmt: str, drawn: list[ParsedCall]) -> None:
    parsed = TS.parse_calls(render(fmt, drawn), format=fmt)
    assert parsed.errors == ()
    assert [c.name for c in parsed.calls] == [c.name for c in drawn]
    assert all(same(p.arguments, d.arguments) for p, d in zip(parsed.calls, drawn, strict=True))
    if fmt in CARRY_IDS:
        assert [c.id for c in parsed.calls] == [c.id for c in drawn]
    assert parsed.text == ""
    check(parsed)


@SETTINGS
@given(st.sampled_from(FORMATS), calls, st.floats(min_value=0, max_value=1))
def test_truncated_text_gives_a_prefix_of_the_calls_and_never_raises(
    fmt: str, drawn: list[ParsedCall], cut: float
) -> None:
    text = render(fmt, drawn)
    parsed = TS.parse_calls(text[: int(len(text) * cut)], format=fmt)
    check(parsed)
    kept = len(parsed.calls)
    assert [c.name for c in parsed.calls] == [c.name for c in drawn[:kept]]
    assert all(same(p.arguments, d.arguments) for p, d in zip(parsed.calls, drawn, strict=False))


edits = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=1),
        st.sampled_from(["insert", "delete", "replace"]),
        st.sampled_from([*"{}[]()\"':,=\\<>/ \n", "NaN", "1e999", "**", "<tool_call>", "[TOOL_CALLS]", "[ARGS]"]),
    ),
    min_size=1,
    max_size=6,
)


@SETTINGS
@given(st.sampled_from(FORMATS), calls, edits)
def test_corrupted_text_never_raises(fmt: str, drawn: list[ParsedCall], changes: list[tuple[float, str, str]]) -> None:
    text = render(fmt, drawn)
    for where, how, piece in changes:
        at = int(len(text) * where)
        if how == "insert":
            text = text[:at] + piece + text[at:]
        elif how == "delete":
            text = text[:at] + text[at + len(piece) :]
        else:
            text = text[:at] + piece + text[at + len(piece) :]
    check(TS.parse_calls(text, format=fmt))


@SETTINGS
@given(st.sampled_from(FORMATS), st.text(max_size=300))
def test_any_text_never_raises(fmt: str, text: str) -> None:
    check(TS.parse_calls(text, format=fmt))


def test_every_format_is_fuzzed() -> None:
    assert set(FORMATS) == set(TEXT_FORMATS) and isinstance(TS, ToolSet)
