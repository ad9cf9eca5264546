"""Each provider's documented strict subset, as strict_rules.py checks it: every rule can fail.

The rules (and where the providers document them) are in generator/mcpvend/runtime/strict/rules.py;
nothing is sent strict unless this checker passes it, so each rule gets a schema that breaks it.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpvend.runtime.strict.rules import request_violations, violations


def obj(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, **extra}
    if required is not None:
        schema["required"] = required
    return schema


def closed(properties: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, **extra, "additionalProperties": False}


VALID = closed({"q": {"type": "string"}, "n": {"type": ["integer", "null"]}}, ["q", "n"])


@pytest.mark.parametrize(
    ("schema", "provider", "fault"),
    [
        (obj({"q": {"type": "string"}}, []), "openai", "additionalProperties"),
        (closed({"q": {"type": "string"}}, []), "openai", "every property must be required"),
        (closed({"q": {"type": "string", "minLength": 2}}, ["q"]), "openai", "'minLength' is not supported"),
        (closed({"q": {"type": "string", "minLength": 2}}, ["q"]), "anthropic", "'minLength' is not supported"),
        (closed({"n": {"type": "integer", "minimum": 1}}, ["n"]), "anthropic", "'minimum' is not supported"),
        (closed({"n": {"type": "string", "minimum": 1}}, ["n"]), "openai", "minimum 1 is not supported here"),
        (closed({"u": {"type": "string", "format": "uri"}}, ["u"]), "openai", "format 'uri' is not supported"),
        (closed({"u": {"type": "string", "pattern": "^(?!x)"}}, ["u"]), "openai", "pattern"),
        (closed({"u": {"type": "string", "pattern": r"\bword"}}, ["u"]), "anthropic", "pattern"),
        (closed({"a": {"type": "array", "items": {"type": "string"}, "minItems": 2}}, ["a"]), "anthropic", "minItems"),
        (closed({"a": {"type": "array"}}, ["a"]), "openai", "an array needs an items schema"),
        (closed({"x": {}}, ["x"]), "openai", "no type"),
        (closed({"x": {"type": "string", "enum": [["a"]]}}, ["x"]), "anthropic", "enum must list scalar values"),
        (closed({"x": {"type": "str"}}, ["x"]), "openai", "is not a type"),
        (
            closed({"x": {"$ref": "#/$defs/X", "description": "d"}}, ["x"], **{"$defs": {"X": {"type": "string"}}}),
            "openai",
            "$ref must stand alone",
        ),
        (closed({"x": {"$ref": "#"}}, ["x"]), "anthropic", "is recursive"),
        (closed({"x": {"$ref": "#/properties/y"}, "y": {"type": "string"}}, ["x", "y"]), "openai", "not '#' or a def"),
        ({"anyOf": [VALID]}, "openai", "the root must be a plain object"),
        ({**VALID, "$schema": "https://json-schema.org/draft/2020-12/schema"}, "openai", "'$schema' is not supported"),
        (closed({"x": {"type": "string", "default": "a"}}, ["x"]), "openai", "'default' is not supported"),
        (
            closed(
                {"x": {"type": "string", "allOf": [{"$ref": "#/$defs/S"}]}},
                ["x"],
                **{"$defs": {"S": {"type": "string"}}},
            ),
            "anthropic",
            "allOf over a $ref",
        ),
        (
            closed({f"p{i}": {"type": "string"} for i in range(5001)}, [f"p{i}" for i in range(5001)]),
            "openai",
            "5001 properties exceed the limit of 5000",
        ),
        (closed({"e": {"type": "string", "enum": [f"v{i}" for i in range(1001)]}}, ["e"]), "openai", "enum values"),
        (
            closed({"e": {"type": "string", "enum": ["x" * 60 + str(i) for i in range(251)]}}, ["e"]),
            "openai",
            "longer than 15000 characters",
        ),
        (closed({f"p{i}": {"type": "string"} for i in range(25)}, []), "anthropic", "25 optional parameters"),
        (closed({f"p{i}": {"type": ["string", "null"]} for i in range(17)}, []), "anthropic", "17 unions"),
    ],
)
def test_the_checker_finds_each_rule_broken(schema: dict[str, Any], provider: str, fault: str) -> None:
    found = violations(schema, provider)  # type: ignore[arg-type]
    assert any(fault in problem for problem in found), found


def test_nesting_deeper_than_ten_objects_is_refused_by_openai_only() -> None:
    schema: dict[str, Any] = closed({}, [])
    for _ in range(10):
        schema = closed({"in": schema}, ["in"])
    assert any("11 depth exceed the limit of 10" in p for p in violations(schema, "openai"))
    assert violations(schema, "anthropic") == []
    assert violations(schema["properties"]["in"], "openai") == []


def test_the_checker_passes_what_the_rules_allow() -> None:
    recursive = closed({"kids": {"type": "array", "items": {"$ref": "#"}}}, ["kids"])
    assert violations(VALID, "openai") == [] == violations(VALID, "anthropic")
    assert violations(recursive, "openai") == []  # OpenAI takes recursion through `#`
    optional = {**VALID, "required": ["q"]}
    assert violations(optional, "anthropic") == []  # Anthropic takes optional properties
    limits = closed(
        {"n": {"type": "integer", "minimum": 0, "maximum": 9}, "s": {"type": "string", "format": "uri"}}, ["n", "s"]
    )
    assert [p for p in violations(limits, "openai") if "uri" not in p] == []
    assert [p for p in violations(limits, "anthropic") if "minimum" not in p and "maximum" not in p] == []


def test_anthropic_request_limits_add_up_across_tools() -> None:
    three = closed({"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}, [])
    assert request_violations([three] * 8, "anthropic") == []  # 24 optional
    assert request_violations([three] * 9, "anthropic") == ["27 strict optional exceed the limit of 24"]
    assert request_violations([VALID] * 21, "anthropic")[0] == "21 strict tools exceed the limit of 20"
    assert request_violations([three] * 9, "openai") == []
