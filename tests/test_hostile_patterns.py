"""A reviewed schema pattern cannot freeze the event loop: `^(a+)+$` and an argument built against it.

jsonschema searched `pattern` (and `patternProperties`) with `re`, which backtracks: 24 `a`s and a
`!` held the loop for seconds, doubling with each `a`, and under `mcpvend serve` every other client
waited. The runtime now searches with a linear-time engine (runtime/core/patterns.py), and `lint`
flags such patterns (`slow-pattern`). The server is tests/servers/replay.py serving TOOLS.

How the concurrency tests catch a frozen loop: the hostile call and a harmless one run at once under
`anyio.fail_after(GUARD)`. A loop held by the hostile call's validation holds the harmless call's
answer too, and the guard's deadline passes meanwhile (30 `a`s take `re` minutes; 5,000, forever):
the test fails once the loop is free again, or pytest's timeout stops it first.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client

from conftest import locked_package, mcpvend, replay, write_config, write_tools
from mcpvend.runtime.core import validation
from mcpvend.runtime.core.patterns import backtracks, bounded, holds_unbounded
from test_serve import http_server

pytestmark = pytest.mark.anyio
GUARD = 60.0  # a hang guard only: the calls take milliseconds
HOSTILE = "^(a+)+$"
LOOKAHEAD = r"^(?=.*\d)[a-z0-9]{4,}$"  # the Rust engine has no lookaround: `re` searches it
GUARDED = "^(?=a)(a+)+$"  # lookaround and a loop that backtracks: no engine here may search it
SLOW = "cannot be checked in bounded time"


def _takes(name: str, field: str, schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A tool taking one required field."""
    input_schema = {"type": "object", "properties": {field: schema}, "required": [field]}
    return {"name": name, "description": f"Echo the {field}.", "inputSchema": input_schema, **extra}


def _keyed(closing: str) -> dict[str, Any]:
    """An object whose keys must match HOSTILE, other keys closed by `closing` (additional or unevaluated)."""
    return {"type": "object", "patternProperties": {HOSTILE: {"type": "integer"}}, closing: False}


REPORT_OUTPUT = {"type": "object", "properties": {"summary": {"type": "string", "pattern": r"^(\w+\s?)*$"}}}
TOOLS = [
    _takes("match", "text", {"type": "string", "pattern": HOSTILE}),
    _takes("other", "q", {"type": "string"}),
    _takes("code", "code", {"type": "string", "pattern": LOOKAHEAD}),
    _takes("guarded", "code", {"type": "string", "pattern": GUARDED}),
    _takes("tags", "tags", _keyed("additionalProperties")),
    _takes("labels", "labels", _keyed("unevaluatedProperties")),
    _takes("report", "day", {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}, outputSchema=REPORT_OUTPUT),
]
# What each hostile call must answer: the field it names, and why.
HOSTILE_CALLS = [
    pytest.param("patterns__match", {"text": "a" * 30 + "!"}, "at $.text: 'aaaa", "does not match '^(a+)+$'", id="30"),
    pytest.param("patterns__match", {"text": "a" * 5000 + "!"}, "at $.text: 'aaaa", "does not match", id="5000"),
    pytest.param(
        "patterns__tags",
        {"tags": {"a" * 30 + "!": 1}},
        "at $.tags: 'aaaa",
        "does not match any of the regexes",
        id="key",
    ),
    pytest.param("patterns__labels", {"labels": {"a" * 30 + "!": 1}}, "at $.labels: its keys", SLOW, id="unevaluated"),
    pytest.param("patterns__guarded", {"code": "a" * 30 + "!"}, f"at $.code: the pattern '{GUARDED}'", SLOW, id="re"),
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The replay server serving TOOLS, locked and generated into `hostile_patterns`."""
    root = tmp_path_factory.mktemp("patterns")
    tools = write_tools(root / "tools.json", TOOLS)
    write_config(root, {"patterns": replay(tools)})
    with locked_package(root, "hostile_patterns") as package:
        yield package


def project_of(package: ModuleType) -> Path:
    assert package.__file__ is not None
    return Path(package.__file__).parent.parent


async def race(
    call: Callable[[str, dict[str, Any]], Awaitable[Any]], name: str, arguments: dict[str, Any]
) -> tuple[Any, Any]:
    """The hostile call and a harmless one at once, under the guard (see the module docstring)."""
    done: dict[str, Any] = {}

    async def run(key: str, tool: str, given: dict[str, Any]) -> None:
        done[key] = await call(tool, given)

    with anyio.fail_after(GUARD):
        async with anyio.create_task_group() as group:
            group.start_soon(run, "hostile", name, arguments)
            group.start_soon(run, "other", "patterns__other", {"q": "meanwhile"})
    return done["hostile"], done["other"]


def echoed(text: str) -> dict[str, Any]:
    """The arguments replay.py received, from its answer."""
    return json.loads(text)["arguments"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("name", "arguments", "where", "why"), HOSTILE_CALLS)
async def test_the_package_refuses_a_hostile_argument_while_another_call_completes(
    package: ModuleType, name: str, arguments: dict[str, Any], where: str, why: str
) -> None:
    async with package.toolset(["patterns"]) as ts:
        assert not (await ts.call("patterns__other", {"q": "up"})).is_error  # the server started: calls alone race
        refused, other = await race(ts.call, name, arguments)
    assert refused.is_error and f"invalid arguments for {name}: {where}" in refused.text, refused.text[:300]
    assert why in refused.text and "Traceback" not in refused.text
    assert not other.is_error and echoed(other.text) == {"q": "meanwhile"}


async def test_the_typed_wrapper_refuses_what_no_engine_can_check_while_another_call_completes(
    package: ModuleType,
) -> None:
    """pydantic searches a pattern the Rust engine lacks with `re`: the model leaves GUARDED out (a 30-`a`
    argument held the loop for minutes), and the wrapper checks that tool's arguments against the schema."""
    server = importlib.import_module(f"{package.__name__}.patterns")
    models = (project_of(package) / package.__name__ / "patterns" / "models.py").read_text(encoding="utf-8")
    assert "(?=a)" not in models and "(?=.*" in models  # a lookahead that cannot backtrack stays in the model
    async with server.connect() as tools:

        async def call(tool: str, arguments: dict[str, Any]) -> Any:
            method = getattr(tools, tool.removeprefix("patterns__"))
            try:
                return await method(**arguments)
            except ValueError as exc:
                return exc

        refused, other = await race(call, "patterns__guarded", {"code": "a" * 30 + "!"})
        accepted = await tools.code(code="abc1")
    assert isinstance(refused, ValueError) and "tool 'guarded': invalid arguments at $.code: the pattern" in str(
        refused
    ), refused
    assert SLOW in str(refused)
    assert echoed(other.text) == {"q": "meanwhile"} and echoed(accepted.text) == {"code": "abc1"}


async def test_serve_answers_a_hostile_call_and_another_clients_call_at_once(package: ModuleType) -> None:
    serving = ("patterns", "--output", "hostile_patterns", "--mode", "direct")
    with http_server(*serving, cwd=project_of(package)) as (url, _):
        async with Client(url) as hostile, Client(url) as other:
            assert not (await other.call_tool("patterns__other", {"q": "up"})).is_error

            async def call(tool: str, arguments: dict[str, Any]) -> Any:
                return await (other if tool == "patterns__other" else hostile).call_tool(tool, arguments)

            for hostile_text in ("a" * 30 + "!", "a" * 5000 + "!"):
                refused, answered = await race(call, "patterns__match", {"text": hostile_text})
                refusal = refused.content[0].text
                assert refused.is_error and "at $.text: 'aaaa" in refusal and "does not match '^(a+)+$'" in refusal
                assert not answered.is_error and echoed(answered.content[0].text) == {"q": "meanwhile"}


async def test_ordinary_patterns_still_validate(package: ModuleType) -> None:
    """Each engine's path: the Rust engine (HOSTILE), `re` (a lookahead), and the refusal (GUARDED)."""
    async with package.toolset(["patterns"]) as ts:
        for name, arguments in [
            ("patterns__match", {"text": "aaa"}),
            ("patterns__match", {"text": "a" * 5000}),
            ("patterns__code", {"code": "abc1"}),
            ("patterns__tags", {"tags": {"aaa": 1}}),
            ("patterns__labels", {"labels": {}}),
        ]:
            accepted = await ts.call(name, arguments)
            assert not accepted.is_error and echoed(accepted.text) == arguments, accepted.text[:300]
        for name, arguments, expected in [
            ("patterns__match", {"text": "aab"}, "at $.text: 'aab' does not match '^(a+)+$'"),
            ("patterns__code", {"code": "abcd"}, f"at $.code: 'abcd' does not match {LOOKAHEAD!r}"),
            ("patterns__tags", {"tags": {"aaa": "x"}}, "at $.tags.aaa: 'x' is not of type 'integer'"),
            ("patterns__tags", {"tags": {"b": 1}}, "at $.tags: 'b' does not match any of the regexes: '^(a+)+$'"),
            ("patterns__guarded", {"code": "aaa"}, f"at $.code: the pattern '{GUARDED}' {SLOW}"),
        ]:
            refused = await ts.call(name, arguments)
            assert refused.is_error and expected in refused.text, refused.text[:300]


@pytest.mark.parametrize(
    ("pattern", "checked"),
    [
        (HOSTILE, True),  # the Rust engine
        (LOOKAHEAD, True),  # `re`, which cannot backtrack on it
        (GUARDED, False),  # neither: the model leaves it out and the wrapper checks the schema
        ("(", True),  # not a pattern: left to whoever compiles it, which says so
    ],
)
def test_which_patterns_a_model_may_hold(pattern: str, checked: bool) -> None:
    assert bounded(pattern) is checked
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}}
    assert holds_unbounded(schema) is not checked
    assert holds_unbounded({"anyOf": [{"not": {"type": "null"}}, schema]}) is not checked  # found in a subschema


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"^[a-z]+$", "abc", True),
        (r"^[a-z]+$", "abc\n", False),  # `re`'s `$` matches before a final newline; ECMA-262's and Rust's do not
        (r"b", "abc", True),  # JSON Schema's pattern is a search, not a full match
        (r"^\d+$", "\u0663", True),  # Unicode digits, as `re` took them (ECMA-262: ASCII only)
        (r"^[a-z]+\Z", "abc", True),  # an escape the Rust engine lacks: `re` searches it
        (r"^(a)\1$", "aa", True),  # a backreference, searched by `re`
    ],
)
def test_search_semantics(pattern: str, text: str, found: bool) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}
    assert (validation.problem(schema, {"s": text}) is None) is found


def test_lint_flags_slow_patterns_by_tool_and_pointer(package: ModuleType) -> None:
    run = mcpvend("lint", "--format", "json", cwd=project_of(package))
    assert run.code == 1, run.err
    findings = [f for section in json.loads(run.out)["sections"] for f in section["findings"]]
    flagged = {(f["tool"], f["pointer"], f["detail"]) for f in findings if f.get("rule") == "slow-pattern"}
    assert flagged == {
        ("match", "/inputSchema/properties/text/pattern", HOSTILE),
        ("guarded", "/inputSchema/properties/code/pattern", GUARDED),
        ("tags", f"/inputSchema/properties/tags/patternProperties/{HOSTILE}", HOSTILE),
        ("labels", f"/inputSchema/properties/labels/patternProperties/{HOSTILE}", HOSTILE),
        ("report", "/outputSchema/properties/summary/pattern", r"^(\w+\s?)*$"),
    }
    assert {f["severity"] for f in findings if f.get("rule") == "slow-pattern"} == {"medium"}
    assert len(findings) == len(flagged), findings  # the lookahead, the date and the plain tools are quiet


@pytest.mark.parametrize(
    "pattern",
    ["^(a+)+$", "(a|aa)*", "(.*a){20}", r"(\w+\s?)*", "(a|a)*", "(ab|a.)*", r"^(\s*,\s*)*$", "((ab)+)+", "(a{1,10}){1,20}",
     "(?=(a+)+b)", r"(x\d+\d+)*", "(a|b|ab)*", r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*@"],
)  # fmt: skip
def test_patterns_that_backtrack_are_named(pattern: str) -> None:
    assert backtracks(pattern) is not None


@pytest.mark.parametrize(
    "pattern",
    [r"^AS\d+$", r"^[A-Z]{3}$", r"(\d{1,3}\.){3}", r"^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$",
     r"^([a-z0-9]+-)*[a-z0-9]+$", "(a*b)*", "(ab)+", r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$",
     r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$",
     r"^(?=.*[A-Z])(?=.*\d).{8,}$", r'"(?:\\.|[^"\\])*"', r"^(\d{1,3}\.?){4}$", r"^(?:[a-z0-9-]+\.)+[a-z]{2,}$",
     r"^/(?:[^/]+/)*[^/]*$", "x++", "[", r"\p{L}+"],
)  # fmt: skip
def test_common_patterns_are_not_named(pattern: str) -> None:
    """Real-world shapes (IPv4, slugs, e-mail, semver, quoted strings, paths), and what `re` cannot parse."""
    assert backtracks(pattern) is None
