"""Names and literals for untrusted text: valid, non-shadowing, stable, exact."""

from __future__ import annotations

import ast
import builtins
import keyword

import black
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import naming
from generator.plan import docstring_literal, isort_key


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
        "session": "session_",
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
