"""Names and literals for untrusted text: valid, non-shadowing, stable, exact."""

from __future__ import annotations

import ast
import builtins
import keyword

import black
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO
from mcpvend.codegen import naming
from mcpvend.codegen.plan import docstring_literal, isort_key


def test_method_names_are_safe_identifiers() -> None:
    names = naming.method_names(
        ["airports.find-by-code", "getUserID", "3d", "日本語", "class", "session", "print", "__init__", "naïve"]
    )
    assert names == {
        "airports.find-by-code": "airports_find_by_code",
        "getUserID": "get_user_id",
        "3d": "n3d",
        "日本語": f"tool_{naming.short_hash('日本語')}",
        "class": "class_",
        "session": "session",  # the wrappers' own state is private: a tool may be called anything public
        "print": "print_",
        "__init__": "init",
        "naïve": "naive",
    }
    for name in names.values():
        assert name.isidentifier() and name.isascii()
        assert not keyword.iskeyword(name) and name not in dir(builtins)


def test_collisions_after_sanitizing_get_suffixes_that_depend_only_on_the_wire_name() -> None:
    alone = naming.method_names(["get-url"])
    crowded = naming.method_names(["get_url", "get-url", "get.url", "other"])
    reordered = naming.method_names(["other", "get.url", "get-url", "get_url"])
    assert alone == {"get-url": "get_url"}
    assert crowded["get_url"] == "get_url"  # the name that is already its own wire name keeps it
    assert crowded["get-url"] == f"get_url_{naming.short_hash('get-url')}"
    assert crowded == reordered and len(set(crowded.values())) == 4


def test_class_names_are_alphanumeric_pascal_case_and_unique() -> None:
    methods = naming.method_names(["x_1", "x1", "airports.find-by-code", "日本"])
    stems = naming.class_names(methods)
    assert stems["airports.find-by-code"] == "AirportsFindByCode"
    assert len(set(stems.values())) == 4
    assert all(s.isalnum() and s.isascii() and s[0].isupper() for s in stems.values())


def test_field_aliases_rename_only_what_would_shadow_or_is_not_ascii() -> None:
    assert [naming.field_alias(p) for p in ("id", "type", "self", "json", "model_config", "naïve", "from", "a-b")] == [
        "id_",
        "type_",
        "self_",
        "json_",
        "model_config_",
        "naive",
        None,  # keywords are datamodel-code-generator's to handle (`from_`)
        None,
    ]
    assert naming.field_alias("名前") == f"field_{naming.short_hash('名前')}"
    # pydantic warns on import about fields in its protected namespaces
    assert [naming.field_alias(p) for p in ("model_validate", "model_dump_x", "modèl_dump", "model_id")] == [
        "field_model_validate",
        "field_model_dump_x",
        "field_model_dump_",
        None,
    ]


def test_field_aliases_never_meet_another_property() -> None:
    """datamodel-code-generator refuses an alias equal to another field's name (found by tests/test_fuzz.py)."""
    odd = "é\x8f"
    aliases = naming.field_aliases(["e", odd, "naïve", "Naive", "copy", "copy_", "ü", "u1"])
    assert aliases == {
        "copy": f"copy__{naming.short_hash('copy')}",
        "naïve": f"naive_{naming.short_hash('naïve')}",
        odd: f"e_{naming.short_hash(odd)}",
        "ü": "u",
    }
    assert naming.field_aliases(["naïve", "copy"]) == {"naïve": "naive", "copy": "copy_"}


def test_subpackages_shadow_nothing_in_the_package() -> None:
    assert [naming.subpackage(s) for s in ("server-github", "time", "models", "_runtime", "class")] == [
        "server_github",
        "time",
        "models_",
        "runtime",
        "class_",
    ]


def formatted_docstring(text: str) -> str | None:
    """Put the literal in a method, format it with black, and read the docstring back."""
    source = f"class T:\n    async def m(self) -> None:\n        {docstring_literal(text)}\n        return None\n"
    formatted = black.format_str(source, mode=black.Mode())
    method = ast.parse(formatted).body[0].body[0]  # type: ignore[attr-defined]
    return ast.get_docstring(method, clean=False)


@given(st.text())
@settings(max_examples=500, deadline=None)
def test_docstring_literal_survives_black_exactly(text: str) -> None:
    if not text:
        return
    assert formatted_docstring(text) == text


def test_docstring_literal_edge_cases() -> None:
    for text in ['ends with a quote"', "ends with \\", '"""', "  pad  ", "\u2028\u202e\x00", "tab\tcr\r", "\ud800"]:
        assert formatted_docstring(text) == text
    assert docstring_literal("plain text") == '"""plain text"""'


def test_isort_key_orders_like_isort() -> None:
    names = ["overload", "Any", "GetCommentsInput", "GetCommentTreeInput", "TYPE_CHECKING", "Tool10", "Tool2"]
    assert sorted(names, key=isort_key) == [
        "TYPE_CHECKING",
        "Any",
        "GetCommentsInput",
        "GetCommentTreeInput",
        "Tool2",
        "Tool10",
        "overload",
    ]


def test_the_reserved_names_are_exactly_what_the_tools_class_defines_or_evaluates() -> None:
    """A tool method must not replace what the other wrappers use (found by tests/test_fuzz.py), and
    nothing more is reserved: tools named like the runtime's state keep their own names."""
    from mcpvend.runtime.wrappers.tools import ToolsBase

    defined = {name for name in dir(ToolsBase) if not name.startswith("_")}
    defined |= {name for name in vars(ToolsBase(session=None)) if not name.startswith("_")}  # type: ignore[arg-type]
    source = (REPO / "generated" / "demo" / "tools.py").read_text(encoding="utf-8")
    (tools,) = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef) and node.name == "Tools"]
    evaluated = {  # what the class body runs: decorators and defaults (annotations are postponed)
        node.id
        for method in tools.body
        if isinstance(method, ast.AsyncFunctionDef)
        for part in [*method.decorator_list, *method.args.defaults, *method.args.kw_defaults]
        if part is not None
        for node in ast.walk(part)
        if isinstance(node, ast.Name)
    }
    assert evaluated == {"_overload"}
    assert defined | {n for n in evaluated if not n.startswith("_")} == naming.TOOLS_ATTRIBUTES
    names = ["connect", "session", "timeout", "manifest", "call", "refused", "call_structured", "overload"]
    assert naming.method_names(names) == {name: name for name in names}


def test_an_alias_the_generator_gives_another_field_takes_a_suffix() -> None:
    """`_` is aliased `__`, which datamodel-code-generator also makes of `--` (found by tests/test_fuzz.py)."""
    from mcpvend.codegen.models import generate_models

    schema = {"type": "object", "properties": {"_": {"type": "string"}, "--": {"type": "integer"}}}
    models = generate_models([("T", {"name": "t", "inputSchema": schema})], "# header")
    fields = {f.name: f.annotation for f in models.fields["TInput"]}
    assert fields == {f"field___{naming.short_hash('_')}": "str | None", "field__": "int | None"}


def test_the_frozen_word_lists_hold_every_word_this_python_and_pydantic_reserve() -> None:
    """Names must not depend on the interpreter that generates them, nor miss a word it reserves."""
    from pydantic import BaseModel

    from mcpvend.codegen import reserved

    assert set(keyword.kwlist) <= reserved.KEYWORDS
    assert set(keyword.softkwlist) <= reserved.SOFT_KEYWORDS
    assert set(dir(builtins)) <= reserved.BUILTINS
    assert set(dir(BaseModel)) <= reserved.BASEMODEL_ATTRIBUTES
    # A builtin only since Python 3.13: a property of that name gets the same field on 3.11.
    assert naming.field_alias("PythonFinalizationError") == "PythonFinalizationError_"
