"""Schemas whose models used to refuse valid input or change what the wrappers send (each found by
tests/test_fuzz.py): generated in-process, imported, and round-tripped the way the wrappers do."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest
from pydantic import BaseModel

from mcpvend.codegen.models import generate_models
from mcpvend.runtime.wrappers.tools import from_wire


def models_of(schema: dict[str, Any]) -> types.ModuleType:
    """The models module generated for one tool `t` (class stem `T`) with this input schema."""
    source = generate_models([("T", {"name": "t", "inputSchema": schema})], "# test").source
    source = source.replace("from .._runtime.", "from mcpvend.runtime.")  # no generated package around it
    module = types.ModuleType("codegen_case")
    sys.modules[module.__name__] = module  # pydantic resolves the postponed annotations through it
    try:
        exec(compile(source, "<models>", "exec"), module.__dict__)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == module.__name__:
                value.model_rebuild()
    finally:
        del sys.modules[module.__name__]
    return module


def sent(module: types.ModuleType, instance: dict[str, Any]) -> Any:
    """What a wrapper sends for `instance`: read as JSON, dumped as the wrappers dump."""
    return from_wire(module.TInput, instance).model_dump(mode="json", by_alias=True, exclude_unset=True)


TAGGED = {
    "oneOf": [
        {
            "type": "object",
            "properties": {"nq": {"type": "string"}, "kind": {"const": "variant-0"}},
            "required": ["kind"],
        },
        {"type": "object", "properties": {"kind": {"const": "variant-1"}}, "required": ["kind"]},
    ]
}
CASES = {
    'a map or null ("type": ["object", "null"]) keeps its null': (
        {
            "type": "object",
            "properties": {
                "xs": {
                    "type": "array",
                    "items": {"type": ["object", "null"], "additionalProperties": {"type": "integer"}},
                },
                "o": {"type": ["null", "object"], "properties": {"a": {"type": "integer"}}},
            },
        },
        {"xs": [{"b": 1}, None], "o": None},
    ),
    "an open object keeps undeclared keys": (
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"a": "x", "other": [1, {"b": None}]},
    ),
    "a password is sent, not masked": (
        {"type": "object", "properties": {"p": {"type": "string", "format": "password"}}},
        {"p": "hunter2"},
    ),
    "byte, path and decimal values are not rewritten": (
        {
            "type": "object",
            "properties": {
                "b": {"type": "string", "format": "byte"},
                "p": {"type": "string", "format": "path"},
                "d": {"type": "number", "format": "decimal"},
            },
        },
        {"b": "aGVsbG8=", "p": "a/./b", "d": 1.5},
    ),
    "an undeclared key spelled like a field name stays itself (and the field unset)": (
        {"type": "object", "properties": {"fooBar": {"type": "integer"}, "n": {"$ref": "#/properties/fooBar"}}},
        {"foo_bar": 2, "n": 1},
    ),
    "the same inside a nested object and a list": (
        {"type": "object", "properties": {"o": {"type": "array", "items": {"properties": {"fooBar": {}}}}}},
        {"o": [{"foo_bar": 1}, {"fooBar": None, "foo_bar": 2}]},
    ),
    "a key that is another property's field name fills one field": (
        {"type": "object", "properties": {"X": {"type": "string"}, "x": {"type": "string"}}},
        {"x": ""},
    ),
    "a pattern map beside declared properties accepts other keys": (
        {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "patternProperties": {"^x_": {"type": "number", "maximum": 5}},
            "additionalProperties": {"type": "string"},
        },
        {"a": 1, "x_1": 2.5, "other": "s"},
    ),
    "a one-branch allOf with its own title keeps every branch of the union inside": (
        {
            "type": "object",
            "additionalProperties": {
                "allOf": [
                    {
                        "anyOf": [
                            {"anyOf": [TAGGED, {"type": "string", "minLength": 1}], "title": "inner"},
                        ],
                        "title": "t",
                    }
                ],
                "title": "",
                "default": "0",
            },
        },
        {"s": "0", "o": {"nq": "s", "kind": "variant-0"}, "p": {"kind": "variant-1"}},
    ),
    "a one-branch allOf over an array with prefixItems": (
        {"type": "object", "properties": {"a": {"allOf": [{"type": "array", "prefixItems": [{"type": "number"}]}]}}},
        {"a": [1.5, "anything", [True]]},
    ),
}


@pytest.mark.parametrize(("schema", "instance"), list(CASES.values()), ids=list(CASES))
def test_the_wrapper_sends_a_valid_instance_unchanged(schema: dict[str, Any], instance: dict[str, Any]) -> None:
    assert sent(models_of(schema), instance) == instance


def test_a_top_level_pattern_map_keeps_the_input_class_name() -> None:
    """The value class of a top-level single-pattern map took the name `TInput` (the map became `TInput1`)."""
    value = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    schema = {"type": "object", "patternProperties": {"^x_": value}, "additionalProperties": False}
    module = models_of(schema)
    assert sent(module, {}) == {} and sent(module, {"x_1": {"a": "s"}}) == {"x_1": {"a": "s"}}


def test_all_of_over_objects_is_one_class_named_after_its_tool() -> None:
    """Merged by the generator, it was named after the property alone (`X`, then `X1` in another tool)."""
    branches = [
        {"$ref": "#/$defs/Thing"},
        {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
    ]
    schema = {
        "type": "object",
        "properties": {"x": {"allOf": branches}},
        "$defs": {"Thing": {"type": "object", "properties": {"a": {"type": "string"}}}},
    }
    tools = [(stem, {"name": stem.lower(), "inputSchema": schema}) for stem in ("T", "U")]
    classes = generate_models(tools, "# test").classes
    assert {"TInputX", "UInputX"} <= classes and not {"X", "X1"} & classes
    module = models_of(schema)
    assert sent(module, {"x": {"a": "s", "b": 1, "c": None}}) == {"x": {"a": "s", "b": 1, "c": None}}
    with pytest.raises(ValueError, match="b"):
        from_wire(module.TInput, {"x": {"a": "s"}})
