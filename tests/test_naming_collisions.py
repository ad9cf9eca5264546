"""Generated names stay distinct however the wire names are chosen to make them meet.

A collision after sanitizing adds a hash suffix, and that suffixed name is checked again: a tool
named like another's suffixed name (`get_url_2d2c48` beside `get-url` and `get_url`), or two
non-ASCII names whose short hashes are equal, must not leave two tools one wrapper method, model
class, code-mode function or provider name.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import json
import keyword
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import locked_package, outputs_by_hash_seed, replay, write_config, write_tools
from mcpvend.codegen import naming
from mcpvend.runtime.code.api import function_name, parameter_names
from mcpvend.runtime.core.names import PROVIDER_NAME, SEPARATOR, provider_name, provider_names

SEEDS = (
    "get_url", "get-url", "getUrl", "GET_URL", "get.url", "a", "a_input", "a_input_leg", "AOutput", "x_output",
    "list", "list_", "models", "class", "id", "copy", "copy_", "naïve", "naive", "3d", "n3d", "tool", "_", "名前",
)  # fmt: skip
RESERVED_MODULES = {"_runtime", "models", "tools", "manifest", *naming.PACKAGE_NAMES}
# `make test` draws a third of the long profile's examples (MCPVEND_FUZZ=long, as `make long` sets it):
# the names each draw builds to meet are the same either way, and the cases found so far are tests below.
LONG = os.environ.get("MCPVEND_FUZZ") == "long"


def examples(long: int) -> int:
    return long if LONG else long // 3


@functools.cache
def meeting_pair() -> tuple[str, str]:
    """Two CJK names whose 6-hex hashes are equal: a birthday search over a few thousand names."""
    seen: dict[str, str] = {}
    number = 0
    while True:
        name = chr(0x4E00 + number // 1000) + chr(0x4E00 + number % 1000)
        first = seen.setdefault(naming.short_hash(name), name)
        if first != name:
            return first, name
        number += 1


def variants(names: set[str]) -> set[str]:
    """Names built to meet `names` once sanitized, suffixed, or taken as a model class prefix."""
    found = set(names)
    for name in names:
        snake = naming.snake(name, fallback="tool")
        pascal = naming.pascal(name, fallback="tool")
        found |= {snake, name.upper(), name.replace("_", "-"), name.replace("_", "."), pascal, f"{pascal}InputLeg"}
        for other in names:
            found |= {f"{snake}_{naming.short_hash(other)}", f"{snake}_{naming.short_hash(other, 12)}"}
    return found


@st.composite
def colliding_names(draw: st.DrawFn) -> list[str]:
    """Wire names that meet on purpose, then (for some rounds) every name generated for them as a wire
    name of its own: the tool literally named like another tool's suffixed name."""
    seeds = set(
        draw(st.lists(st.sampled_from(SEEDS) | st.text("aAbB_-. 1", min_size=1, max_size=5), min_size=1, max_size=4))
    )
    if draw(st.booleans()):
        seeds |= set(meeting_pair())
    names = variants(seeds)
    for _ in range(draw(st.integers(0, 2))):
        methods = naming.method_names(names)
        names |= set(methods.values()) | set(naming.class_names(methods).values())
    return draw(st.permutations(sorted(names)))


def check_methods_and_classes(wires: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Every tool of one server has its own method and class stem, and no stem can name another's classes."""
    methods = naming.method_names(wires)
    stems = naming.class_names(methods)
    for names in (methods, stems):
        assert len(set(names.values())) == len(wires), Counter(names.values()).most_common(3)
    for method in methods.values():
        assert method.isidentifier() and method.isascii() and not method.startswith("_")
        assert not keyword.iskeyword(method) and method not in dir(builtins)
    for stem in stems.values():
        assert stem.isalnum() and stem.isascii() and stem[0].isupper()
        # All of a tool's classes start `<stem>Input` or `<stem>Output`; no other stem may start so.
        assert not [other for other in stems.values() if other.startswith((f"{stem}Input", f"{stem}Output"))]
    candidates = Counter(naming.safe(naming.snake(w, fallback="tool")) for w in wires)
    for wire in wires:
        candidate = naming.safe(naming.snake(wire, fallback="tool"))
        if candidate == wire or candidates[candidate] == 1:  # its own name, or one nobody else wanted
            assert methods[wire] == candidate
    return methods, stems


@given(colliding_names())
@settings(max_examples=examples(150), deadline=None)
def test_methods_and_model_classes_stay_distinct_whatever_meets(wires: list[str]) -> None:
    methods, stems = check_methods_and_classes(wires)
    assert naming.method_names(sorted(wires)) == methods  # the order of the tools does not matter
    assert naming.class_names(dict(sorted(methods.items()))) == stems


@given(colliding_names(), st.data())
@settings(max_examples=examples(100), deadline=None)
def test_subpackages_and_code_mode_functions_stay_distinct(names: list[str], data: st.DataObject) -> None:
    servers = names[:12]
    subpackages = naming.subpackages(servers)
    assert subpackages == naming.subpackages(sorted(servers))
    assert len(set(subpackages.values())) == len(servers)
    for subpackage in subpackages.values():
        assert subpackage.isidentifier() and subpackage.isascii() and "__" not in subpackage
        assert subpackage not in RESERVED_MODULES and not keyword.iskeyword(subpackage)
        assert subpackage not in dir(builtins)
    functions: list[str] = []
    for server in servers:
        tools = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=8))
        renames = (
            data.draw(st.dictionaries(st.sampled_from(tools), st.sampled_from(["a__b", "b__c", "x_"]))) if tools else {}
        )
        methods = naming.method_names(tools, renames)
        functions += [function_name(subpackages[server], method) for method in methods.values()]
    assert len(set(functions)) == len(functions), Counter(functions).most_common(3)


@given(colliding_names())
@settings(max_examples=examples(100), deadline=None)
def test_field_aliases_stay_distinct_and_meet_no_other_field(properties: list[str]) -> None:
    aliases = naming.field_aliases(properties)
    assert aliases == naming.field_aliases(sorted(properties))
    plain = set(properties) - aliases.keys()
    taken = plain | {naming.snake(p, fallback="field") for p in plain}
    assert len(set(aliases.values())) == len(aliases)
    assert not set(aliases.values()) & taken
    assert all(alias.isidentifier() and not keyword.iskeyword(alias) for alias in aliases.values())


@given(colliding_names(), st.integers(0, 5))
@settings(max_examples=examples(100), deadline=None)
def test_provider_names_stay_distinct_when_tools_are_named_like_hashed_names(tools: list[str], rounds: int) -> None:
    """Each round adds, for every hashed name, a tool whose plain name it is: `s__get_url_2f9a1c` is
    what `s`/`get.url` is called, and also what `s`/`get_url_2f9a1c` is called as it is."""
    keys = {(server, tool) for server in ("s", "a", "a__b") for tool in tools[:8]} | {("a__b", "c"), ("a", "b__c")}
    for _ in range(rounds):
        keys |= {
            (server, name.removeprefix(f"{server}{SEPARATOR}"))
            for (server, _tool), name in provider_names(keys).items()
            if name.startswith(f"{server}{SEPARATOR}")
        }
    names = provider_names(keys)
    assert names == provider_names(sorted(keys, reverse=True))
    assert len(set(names.values())) == len(keys)
    assert all(PROVIDER_NAME.fullmatch(name) for name in names.values())
    plain = Counter(f"{server}{SEPARATOR}{tool}" for server, tool in keys)
    for key, name in names.items():
        own = f"{key[0]}{SEPARATOR}{key[1]}"
        if provider_name(*key) == own and plain[own] == 1:  # a name that fits, and is no other tool's
            assert name == own


@given(colliding_names(), st.integers(0, 2))
@settings(max_examples=examples(100), deadline=None)
def test_code_mode_parameters_stay_distinct(names: list[str], rounds: int) -> None:
    """Each round adds every parameter name as a key of its own (`get-url` is `get_url_2d2c48` beside `get_url`)."""
    keys = [*names, "if !", "from", "None"]
    for _ in range(rounds):
        keys += sorted(set(parameter_names(keys).values()) - set(keys))
    parameters = parameter_names(keys)
    assert parameters == parameter_names(sorted(keys))
    assert len(set(parameters.values())) == len(keys), Counter(parameters.values()).most_common(3)
    for key, parameter in parameters.items():
        assert parameter.isidentifier() and parameter.isascii() and not keyword.iskeyword(parameter)
        if key.isidentifier() and key.isascii() and not keyword.iskeyword(key):
            assert parameter == key


def test_a_code_mode_stub_takes_each_property_as_a_keyword_of_its_own() -> None:
    from mcpvend.codegen.stubs import server_stubs

    keys = ["get_url", "get-url", f"get_url_{naming.short_hash('get-url')}", "if !"]
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {key: {"type": "string"} for key in keys}}}
    methods = naming.method_names(["t"])
    source = server_stubs("", "s", "s", [tool], methods, naming.class_names(methods))
    compile(source, "stubs.pyi", "exec")  # a parameter twice, or a keyword as one, does not compile
    (function,) = [node for node in ast.parse(source).body if isinstance(node, ast.AsyncFunctionDef)]
    assert sorted(argument.arg for argument in function.args.kwonlyargs) == sorted(parameter_names(keys).values())


def test_a_tool_named_like_another_tools_suffix_keeps_its_own_name() -> None:
    suffixed = f"get_url_{naming.short_hash('get-url')}"  # what `get-url` is called beside `get_url`
    methods = naming.method_names(["get_url", "get-url", suffixed])
    assert methods["get_url"] == "get_url" and methods[suffixed] == suffixed  # their own wire names
    assert methods["get-url"] == f"get_url_{naming.short_hash('get-url', 12)}"  # a longer hash: only it changes
    first, second = meeting_pair()
    assert naming.method_names([first, second]) == {
        first: f"tool_{naming.short_hash(first)}_{naming.short_hash(first, 12)}",
        second: f"tool_{naming.short_hash(second)}_{naming.short_hash(second, 12)}",
    }


def test_a_stem_that_could_name_another_tools_nested_class_moves_away() -> None:
    """`a`'s property `leg.input` is class `AInputLegInput`, the input class of tool `a_input_leg`."""
    stems = naming.class_names(naming.method_names(["a", "a_input_leg", "b"]))
    assert stems == {"a": f"A{naming.short_hash('a').capitalize()}", "a_input_leg": "AInputLeg", "b": "B"}


def test_a_property_named_like_another_fields_suffixed_name_moves_that_field_on() -> None:
    """`_` is field `field___<hash>` beside `--` (tests/test_naming.py); a third property of that very
    name stopped `generate` for every server, since a field took a suffix only once."""
    from mcpvend.codegen.models import generate_models

    taken = f"field___{naming.short_hash('_')}"
    properties = {"_": {"type": "string"}, "--": {"type": "integer"}, taken: {"type": "boolean"}}
    models = generate_models([("T", {"name": "t", "inputSchema": {"type": "object", "properties": properties}})], "")
    fields = {field.name: field.annotation for field in models.fields["TInput"]}
    assert fields == {
        f"field___{naming.short_hash('_', 12)}": "str | None",
        "field__": "int | None",
        taken: "bool | None",
    }


def test_a_class_the_generator_names_after_a_property_alone_does_not_take_another_tools_model(
    tmp_path: Path,
) -> None:
    """`allOf` of a closed and an open object in `x`'s property `bar_input` is class `BarInput`, named
    after the property, not the tool: tool `bar`'s own input became `BarInput1`, and its wrapper took `x`'s."""
    from conftest import lock_documents, mcpvend

    branches = [
        {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
        {"type": "object", "properties": {"b": {"type": "string"}}},
    ]
    x = {"name": "x", "inputSchema": {"type": "object", "properties": {"bar_input": {"allOf": branches}}}}
    bar = {"name": "bar", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    lock_documents(tmp_path, {"s": [x, bar]})
    run = mcpvend("generate", cwd=tmp_path)
    assert run.code == 0, run.err
    tools = ast.parse((tmp_path / "generated" / "s" / "tools.py").read_text(encoding="utf-8"))
    models = ast.parse((tmp_path / "generated" / "s" / "models.py").read_text(encoding="utf-8"))
    fields = {
        node.name: [item.target.id for item in node.body if isinstance(item, ast.AnnAssign)]  # type: ignore[union-attr]
        for node in models.body
        if isinstance(node, ast.ClassDef)
    }
    stem = f"Bar{naming.short_hash('bar').capitalize()}"
    wrapper = next(n for n in ast.walk(tools) if isinstance(n, ast.AsyncFunctionDef) and n.name == "bar")
    assert f"{stem}Input" in ast.unparse(wrapper) and fields[f"{stem}Input"] == ["n"]
    assert "BarInput1" not in fields


def test_names_are_distinct_and_the_same_under_every_hash_seed() -> None:
    script = """if True:
        import json, sys
        from mcpvend.codegen import naming
        from mcpvend.runtime.core.names import provider_names
        wires = json.loads(sys.argv[1])
        methods = naming.method_names(wires)
        providers = {wire: name for (_, wire), name in provider_names(("s", w) for w in wires).items()}
        stems = naming.class_names(methods)
        print(json.dumps([methods, stems, naming.subpackages(wires), naming.field_aliases(wires), providers]))
    """
    wires = sorted(variants({"get-url", "get_url", "a", "a_input_leg", "models", *meeting_pair()}))
    outputs = outputs_by_hash_seed(script, json.dumps(wires))
    assert len(set(outputs)) == 1
    for names in json.loads(outputs[0]):
        assert len(set(names.values())) == len(names), Counter(names.values()).most_common(3)


SCHEMA = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
LEG = {"type": "object", "properties": {"input": {"type": "object", "properties": {"city": {"type": "string"}}}}}


def colliding_tools() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(tool, arguments) pairs whose names meet again after the first suffix, or meet a nested class."""
    first, second = meeting_pair()
    read_only, destructive = {"readOnlyHint": True}, {"destructiveHint": True}
    pages = [
        ("get_url", "Fetch a page.", read_only),
        ("get-url", "Read a page.", read_only),
        (f"get_url_{naming.short_hash('get-url')}", "Delete a page.", destructive),  # `get-url`'s first suffix
        (first, "Look.", read_only),
        (second, "Erase.", destructive),
    ]
    tools = [
        (
            {"name": name, "description": text, "inputSchema": SCHEMA, "annotations": hints},
            {"url": f"https://e.org/{name}"},
        )
        for name, text, hints in pages
    ]
    nested = {"type": "object", "properties": {"leg": LEG}}  # its class `AInputLegInput` is `a_input_leg`'s input
    counted = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    tools.append(({"name": "a", "description": "Plan.", "inputSchema": nested}, {"leg": {"input": {"city": "Oslo"}}}))
    tools.append(({"name": "a_input_leg", "description": "Count.", "inputSchema": counted}, {"n": 3}))
    return tools


def defined_once(package: Path) -> None:
    """What `mypy --strict` reports of names that meet ("already defined"), read straight off the files:
    each wrapper, model class and stub function is defined once (overloads aside)."""
    for name in ("tools.py", "models.py", "stubs.pyi"):
        tree = ast.parse((package / "web" / name).read_text(encoding="utf-8"))
        defined = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list
        ]
        assert [n for n, count in Counter(defined).items() if count > 1] == [], name


@pytest.mark.anyio
async def test_each_wrapper_of_a_locked_server_calls_its_own_tool(tmp_path: Path) -> None:
    """End to end: `get_url`, `get-url` and `get_url_<hash of get-url>` (destructive), two CJK names of one
    short hash, and `a` beside `a_input_leg`, locked and generated into a package that defines each name once, whose
    every wrapper, input model and provider name reaches its own tool."""
    pairs = colliding_tools()
    calls = tmp_path / "calls.jsonl"
    tools_file = write_tools(tmp_path / "tools.json", [tool for tool, _ in pairs])
    write_config(tmp_path, {"web": replay(tools_file, "--record", str(calls))})
    with locked_package(tmp_path, "collidingpkg") as package:
        manifest = json.loads((tmp_path / "collidingpkg" / "web" / "manifest.json").read_text(encoding="utf-8"))
        entries = {entry["tool"]["name"]: entry for entry in manifest["tools"]}
        assert len({entry["method"] for entry in entries.values()}) == len(pairs)
        assert len({entry["input"] for entry in entries.values()}) == len(pairs)
        defined_once(tmp_path / "collidingpkg")
        from collidingpkg import from_wire

        server = importlib.import_module("collidingpkg.web")
        async with server.connect() as wrappers:
            for tool, arguments in pairs:
                entry = entries[tool["name"]]
                model = getattr(server.models, entry["input"])
                keys = {field.alias or name for name, field in model.model_fields.items()}
                assert keys == set(tool["inputSchema"]["properties"]), (tool["name"], entry["input"], keys)
                await getattr(wrappers, entry["method"])(from_wire(model, arguments))
        by_name = {tool["name"]: arguments for tool, arguments in pairs}
        async with package.toolset(["web"]) as toolset:
            providers = [(entry.provider, entry.name) for entry in toolset.catalog.entries]
            assert len({provider for provider, _ in providers}) == len(pairs)
            for provider, name in providers:
                result = await toolset.call(provider, by_name[name])
                assert not result.is_error, result.text
    sent = [(call["name"], call["arguments"]) for call in map(json.loads, calls.read_text("utf-8").splitlines())]
    assert sent == [(tool["name"], arguments) for tool, arguments in pairs] + [(n, by_name[n]) for _, n in providers]
