# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Each provider's strict-mode subset of JSON Schema, as documented, and a checker for it.

A strict tool makes the provider constrain sampling to its schema, and a schema outside the
subset gets the whole request refused (HTTP 400), not a degraded answer: so nothing is sent
strict that this checker does not pass. The rules, as the providers document them:

OpenAI, Chat Completions (`function.strict`) and Responses (`strict`), one subset for both:
"Supported schemas" https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
and https://platform.openai.com/docs/guides/function-calling#strict-mode
- the root is an object, not `anyOf`; every object sets `additionalProperties: false` and lists
  every property in `required` (an optional field is a union with `null`);
- types string, number, integer, boolean, object, array, null (or a list of them), `enum`,
  `const`, `anyOf`; `$defs` with a `$ref` (standing alone) to `#` or to a definition;
- strings: `pattern`, `format` (date-time, time, date, duration, email, hostname, ipv4, ipv6,
  uuid); numbers: `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`, `exclusiveMinimum`;
  arrays: `minItems`, `maxItems`. Not supported: `allOf`, `not`, `if`/`then`/`else`,
  `dependentRequired`, `dependentSchemas`, `patternProperties`, `unevaluatedProperties`,
  `propertyNames`, `minProperties`, `maxProperties`, `minLength`, `maxLength`,
  `unevaluatedItems`, `contains`, `minContains`, `maxContains`, `uniqueItems`;
- at most 5,000 object properties and 10 levels of nesting; 120,000 characters of property
  names, definition names, enum and const values; 1,000 enum values; 15,000 characters for one
  string enum of more than 250 values.

Anthropic, strict tool use (`strict: true`): "JSON Schema limitations"
https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
and https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use
- every object sets `additionalProperties: false`; optional properties are allowed;
- the same types, `enum` of scalars only, `const`, `anyOf`, `allOf` (not over a `$ref`), local
  `$ref`/`$defs` (not recursive), `default`, `required`; formats date-time, time, date,
  duration, email, hostname, uri, ipv4, ipv6, uuid; `minItems` of 0 or 1; `pattern` without
  backreferences, lookaround or word boundaries. Not supported: numerical constraints,
  `minLength`/`maxLength`, other array constraints, recursive schemas, external `$ref`;
- per request: at most 20 strict tools, 24 optional parameters and 16 parameters with a union
  type (`anyOf` or a type list) across all strict schemas.

Both take `title` and `description`. A keyword outside a provider's list counts as a violation
here: undocumented is not supported. (`default` is one: OpenAI has answered "'default' is not
permitted" for it, and Azure still does: openai/openai-agents-python#4390.)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Provider = Literal["openai", "anthropic"]
TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
ANNOTATIONS = frozenset({"title", "description"})
OPENAI_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
ANTHROPIC_FORMATS = OPENAI_FORMATS | {"uri"}
# keyword -> the instance type it constrains, for the keywords each provider supports beyond structure
CONSTRAINTS: Mapping[Provider, Mapping[str, str]] = {
    "openai": {
        **dict.fromkeys(("pattern", "format"), "string"),
        **dict.fromkeys(("multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"), "number"),
        **dict.fromkeys(("minItems", "maxItems"), "array"),
    },
    "anthropic": {"pattern": "string", "format": "string", "minItems": "array"},
}
_STRUCTURE = frozenset({"type", "enum", "const", "anyOf", "properties", "required", "additionalProperties", "items"})
KEYWORDS: Mapping[Provider, frozenset[str]] = {
    "openai": ANNOTATIONS | _STRUCTURE | {"$ref"} | CONSTRAINTS["openai"].keys(),
    "anthropic": ANNOTATIONS | _STRUCTURE | {"$ref", "allOf", "default"} | CONSTRAINTS["anthropic"].keys(),
}
OPENAI_LIMITS = {"properties": 5_000, "depth": 10, "chars": 120_000, "enum_values": 1_000}
OPENAI_LONG_ENUM = (250, 15_000)  # a string enum of more values than this: its total length at most this
ANTHROPIC_REQUEST = {"tools": 20, "optional": 24, "unions": 16}
_LOOKAROUND = re.compile(r"\(\?<?[=!]")
_BACKREFERENCE = re.compile(r"\\[1-9]|\\k<")
_WORD_BOUNDARY = re.compile(r"\\[bB]")


def scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def type_names(node: Mapping[str, Any]) -> frozenset[str]:
    kind = node.get("type")
    if isinstance(kind, str):
        return frozenset({kind})
    return frozenset(k for k in kind if isinstance(k, str)) if isinstance(kind, list) else frozenset()


def _valid_type(kind: Any) -> bool:
    if isinstance(kind, str):
        return kind in TYPES
    names = kind if isinstance(kind, list) else []
    return bool(names) and all(isinstance(k, str) and k in TYPES for k in names) and len(set(names)) == len(names)


def pattern_problem(pattern: str, provider: Provider) -> str:
    """What a provider's regex subset does not take in `pattern` (escaped characters skipped), or ""."""
    unescaped = re.sub(r"\\\\", "", pattern)
    if _LOOKAROUND.search(unescaped):
        return "a lookaround"
    if _BACKREFERENCE.search(unescaped):
        return "a backreference"
    if provider == "anthropic" and _WORD_BOUNDARY.search(unescaped):
        return "a word boundary"
    return ""


def supported(provider: Provider, key: str, value: Any, types: frozenset[str]) -> bool:
    """Whether a provider's strict mode takes this constraint keyword with this value, on a node of these types."""
    kind = CONSTRAINTS[provider].get(key)
    if kind is None or not (kind in types or (kind == "number" and "integer" in types)):
        return False
    if key == "format":
        return value in (OPENAI_FORMATS if provider == "openai" else ANTHROPIC_FORMATS)
    if key == "pattern":
        return isinstance(value, str) and not pattern_problem(value, provider)
    if key in ("minItems", "maxItems"):
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        return ok and (provider == "openai" or value in (0, 1))
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass
class _Tally:
    """What the limits count, over one schema."""

    properties: int = 0
    depth: int = 0
    chars: int = 0
    enum_values: int = 0
    optional: int = 0
    unions: int = 0
    problems: list[str] = field(default_factory=list)


def violations(schema: Any, provider: Provider) -> list[str]:
    """Every way `schema` breaks the provider's strict rules, each as "at PATH: what" (empty: it is valid)."""
    tally = _Tally()
    if not isinstance(schema, Mapping):
        return ["at $: the schema is not an object"]
    if schema.get("type") != "object" or "anyOf" in schema:
        tally.problems.append("at $: the root must be a plain object (type 'object', no anyOf)")
    definitions = {
        f"#/{where}/{name}": node
        for where in ("$defs", "definitions")
        for name, node in (schema.get(where) or {}).items()
    }
    checker = _Checker(provider, schema, definitions, tally)
    checker.check(schema, "$", 1)
    if provider == "openai":  # each definition on its own (Anthropic's are checked where they are used)
        tally.chars += sum(len(pointer.rsplit("/", 1)[1]) for pointer in definitions)
        for pointer, node in definitions.items():
            checker.check(node, pointer, 1)
    if provider == "openai":
        for key, limit in OPENAI_LIMITS.items():
            if getattr(tally, key) > limit:
                tally.problems.append(
                    f"at $: {getattr(tally, key)} {key.replace('_', ' ')} exceed the limit of {limit}"
                )
    else:
        for key in ("optional", "unions"):
            if getattr(tally, key) > ANTHROPIC_REQUEST[key]:
                count, limit = getattr(tally, key), ANTHROPIC_REQUEST[key]
                tally.problems.append(f"at $: {count} {key} parameters exceed the request limit of {limit}")
    return tally.problems


def request_costs(schema: Mapping[str, Any]) -> tuple[int, int]:
    """(optional parameters, union-typed parameters) of one schema, as Anthropic counts them per request."""
    tally = _Tally()
    _Checker("anthropic", schema, {}, tally).check(schema, "$", 1)
    return tally.optional, tally.unions


def request_violations(schemas: Sequence[Mapping[str, Any]], provider: Provider) -> list[str]:
    """The per-request limits (Anthropic's) that these strict schemas, sent together, break."""
    if provider != "anthropic":
        return []
    costs = [request_costs(s) for s in schemas]
    totals = {"tools": len(schemas), "optional": sum(c[0] for c in costs), "unions": sum(c[1] for c in costs)}
    return [f"{totals[k]} strict {k} exceed the limit of {v}" for k, v in ANTHROPIC_REQUEST.items() if totals[k] > v]


class _Checker:
    def __init__(self, provider: Provider, root: Any, definitions: Mapping[str, Any], tally: _Tally) -> None:
        self.provider: Provider = provider
        self.root = root
        self.definitions = definitions
        self.tally = tally

    def fail(self, path: str, what: str) -> None:
        self.tally.problems.append(f"at {path}: {what}")

    def check(self, node: Any, path: str, depth: int, expanding: frozenset[str] = frozenset()) -> None:
        if not isinstance(node, Mapping):
            return self.fail(path, "a boolean schema")
        allowed = KEYWORDS[self.provider] | ({"$defs", "definitions"} if node is self.root else set())
        for key in node:
            if key not in allowed:
                self.fail(path, f"keyword {key!r} is not supported")
        types = type_names(node)
        if "type" in node and not _valid_type(node["type"]):
            self.fail(path, f"type {node['type']!r} is not a type or a list of distinct types")
        if not {"type", "enum", "const", "anyOf", "$ref", "allOf"} & node.keys():
            self.fail(path, "no type: it would accept any value")
        if "enum" in node and not (isinstance(node["enum"], list) and node["enum"] and all(map(scalar, node["enum"]))):
            self.fail(path, "enum must list scalar values")
        if "const" in node and not scalar(node["const"]):
            self.fail(path, "const must be a scalar")
        if len(types) > 1 or "anyOf" in node:
            self.tally.unions += 1
        self._count_values(node, path)
        for key, value in node.items():
            if key in CONSTRAINTS[self.provider] and not supported(self.provider, key, value, types):
                self.fail(path, f"{key} {value!r} is not supported here")
        if "$ref" in node:
            self._ref(node, path, depth, expanding)
        for key in ("anyOf", "allOf"):
            if key in node:
                self._branches(node, key, path, depth, expanding)
        if "object" in types:
            self._object(node, path, depth, expanding)
        elif {"properties", "required", "additionalProperties"} & node.keys():
            self.fail(path, "object keywords on a node that is not an object")
        if "array" in types:
            items = node.get("items")
            if not isinstance(items, Mapping):
                self.fail(path, "an array needs an items schema")
            else:
                self.check(items, f"{path}[]", depth, expanding)
        elif "items" in node:
            self.fail(path, "items on a node that is not an array")
        return None

    def _count_values(self, node: Mapping[str, Any], path: str) -> None:
        values: list[Any] = node["enum"] if isinstance(node.get("enum"), list) else []
        self.tally.enum_values += len(values)
        strings = [v for v in values if isinstance(v, str)]
        self.tally.chars += sum(map(len, strings)) + (len(node["const"]) if isinstance(node.get("const"), str) else 0)
        count, most = OPENAI_LONG_ENUM
        if self.provider == "openai" and len(strings) > count and sum(map(len, strings)) > most:
            self.fail(path, f"an enum of {len(strings)} strings is longer than {most} characters")

    def _ref(self, node: Mapping[str, Any], path: str, depth: int, expanding: frozenset[str]) -> None:
        ref = node["$ref"]
        target = self.root if ref == "#" else self.definitions.get(ref)
        if target is None:
            return self.fail(path, f"$ref {ref!r} is not '#' or a definition of this schema")
        if self.provider == "openai" and len(node) > 1:
            self.fail(path, "$ref must stand alone")
        if self.provider == "anthropic":
            if ref in expanding or ref == "#":
                return self.fail(path, f"$ref {ref!r} is recursive")
            self.check(target, path, depth, expanding | {ref})
        return None

    def _branches(self, node: Mapping[str, Any], key: str, path: str, depth: int, expanding: frozenset[str]) -> None:
        branches = node[key]
        if not (isinstance(branches, list) and branches):
            return self.fail(path, f"{key} must be a non-empty list")
        for index, branch in enumerate(branches):
            if key == "allOf" and isinstance(branch, Mapping) and "$ref" in branch:
                self.fail(f"{path}{{allOf {index}}}", "allOf over a $ref is not supported")
            self.check(branch, f"{path}{{{key} {index}}}", depth, expanding)
        return None

    def _object(self, node: Mapping[str, Any], path: str, depth: int, expanding: frozenset[str]) -> None:
        self.tally.depth = max(self.tally.depth, depth)
        if node.get("additionalProperties") is not False:
            self.fail(path, "an object must set additionalProperties to false")
        properties = node.get("properties")
        if not isinstance(properties, Mapping):
            if self.provider == "openai" or "properties" in node:
                self.fail(path, "an object must list its properties")
            properties = {}
        required = node.get("required", [])
        if not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
            return self.fail(path, "required must be a list of names")
        if any(name not in properties for name in required):
            self.fail(path, "required names a property the object does not list")
        optional = [name for name in properties if name not in required]
        if self.provider == "openai" and optional:
            self.fail(path, f"every property must be required: {', '.join(map(repr, optional))} are not")
        self.tally.optional += len(optional)
        self.tally.properties += len(properties)
        self.tally.chars += sum(map(len, properties))
        for name, sub in properties.items():
            self.check(sub, f"{path}.{name}", depth + 1, expanding)
        return None
