# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Strict tool specs: each reviewed schema rewritten into a provider's strict subset, and the way back.

Strict mode makes the provider's sampler follow the schema (no wrong type, no misspelt key),
but takes only a subset of JSON Schema (`strict_rules`). The rewrite loses no instance the
reviewed schema accepts: objects that name their properties are closed; for OpenAI, optional
properties become required and nullable (Anthropic takes optional ones as they are, and would
count each nullable type against its limit of 16 union types a request); `$ref`s are inlined;
a keyword the provider rejects moves into the description, so the model still reads it, and
`ToolSet.call` still checks it against the reviewed schema. What the subset cannot say (an
object that accepts any keys, an array of any items, recursion) is sent as JSON text: the
nearest value around it whose reviewed schema takes no string becomes a string the model fills
with that value written as JSON, its schema given in the description. Only where even that
cannot be done (the whole arguments, a value that may itself be a string) is the tool sent
non-strict, and `plan()` names it and why.

`from_strict` is the way back, and needs no flag: a `null` the model sent for an optional
property whose reviewed schema does not accept null is dropped, and a string where the reviewed
schema takes no string is read as the JSON text it is, so the server gets what a non-strict call
would have sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core import validation
from ..core.budget import StrictReport
from ..core.pointers import pointer_get
from ..core.specs import OPEN_OBJECT, Format, ToolSpec, opened
from . import rules

STRICT_FORMATS: tuple[Format, ...] = ("openai", "openai-responses", "anthropic")
PROVIDERS: Mapping[str, rules.Provider] = {"openai": "openai", "openai-responses": "openai", "anthropic": "anthropic"}
_SILENT = frozenset({"$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions"})
_OBJECT = ("properties", "required", "additionalProperties")
_MAX_NODES = 10_000  # a `$ref` fan-out that would expand past this is not rewritten
JSON_TEXT = "Write this value as JSON text"  # how a strict schema asks for a value it cannot say


class NotStrict(Exception):
    """The schema cannot be said in the provider's strict subset without losing what it accepts."""


class _TooLarge(NotStrict):
    """The rewrite's budget is spent (a `$ref` fan-out): the whole tool goes non-strict, none of it as JSON text."""


def strict_schema(schema: Mapping[str, Any], provider: rules.Provider) -> dict[str, Any]:
    """`schema` in `provider`'s strict form; raises `NotStrict` (with where and why) if it has none."""
    if schema.get("type") != "object":
        raise NotStrict("$ is not a plain object")
    try:  # the way back reads values by this schema: without it, a strict call could not be undone
        validation.compiled(schema)
    except Exception as exc:  # noqa: BLE001 - SchemaError, a bad pattern, an unresolvable $ref: all one answer
        raise NotStrict(f"$ is not valid JSON Schema ({validation.short(str(exc).splitlines()[0])})") from None
    result = _Rewrite(schema, provider).node(schema, "$", ())
    problems = rules.violations(result, provider)
    if problems:  # a last check: a schema the provider would refuse is never sent strict
        raise NotStrict(problems[0])
    return result


class _Rewrite:
    def __init__(self, root: Mapping[str, Any], provider: rules.Provider) -> None:
        self.root = root
        self.provider: rules.Provider = provider
        self.count = 0

    def node(self, node: Any, path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        """`node` in strict form, or as JSON text when part of it has no strict form (see the module)."""
        try:
            return self._node(node, path, refs)
        except _TooLarge:
            raise
        except NotStrict:
            if path == "$" or not self._rejects_strings(node, refs):
                raise
            return self._as_json_text(node)

    def _rejects_strings(self, node: Any, refs: tuple[str, ...]) -> bool:
        """Whether the reviewed schema takes no string here: then a string sent for it can only be JSON text."""
        seen = 0
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and seen < 64:
            node, seen = pointer_get(self.root, node["$ref"][1:]), seen + 1
        if not isinstance(node, Mapping):
            return False
        if "type" in node:
            return "string" not in rules.type_names(node)
        for key in ("enum", "const"):
            if key in node:
                values = node[key] if key == "enum" and isinstance(node[key], list) else [node[key]]
                return not any(isinstance(v, str) for v in values)
        if isinstance(node.get("allOf"), list) and any(self._rejects_strings(b, refs) for b in node["allOf"]):
            return True
        branches = node.get("anyOf") or node.get("oneOf")
        return isinstance(branches, list) and bool(branches) and all(self._rejects_strings(b, refs) for b in branches)

    def _as_json_text(self, node: Mapping[str, Any]) -> dict[str, Any]:
        """A string the model fills with the value as JSON text; the value's schema is in the description."""
        shape = {k: v for k, v in node.items() if k not in ("title", "description")}
        if "$defs" in self.root and "$ref" in json.dumps(shape):
            shape["$defs"] = self.root["$defs"]
        said = node.get("description")
        text = f"{JSON_TEXT}, valid under this JSON Schema: {json.dumps(shape, ensure_ascii=False)}"
        out: dict[str, Any] = {"type": "string", "description": f"{said}\n\n{text}" if isinstance(said, str) else text}
        if isinstance(node.get("title"), str):
            out = {"title": node["title"], **out}
        return out

    def _node(self, node: Any, path: str, refs: tuple[str, ...], kind: Any = None) -> dict[str, Any]:
        """`node` in strict form; `kind` is the `type` of the node whose anyOf branch this is."""
        self.count += 1
        if self.count > _MAX_NODES:
            raise _TooLarge(f"{path}: the schema expands past {_MAX_NODES} nodes")
        if not isinstance(node, Mapping) or not node:
            raise NotStrict(f"{path} accepts {'no value' if node is False else 'any value'}")
        while "$ref" in node:
            node, refs = self._inline(node, path, refs)
        if kind is not None and not {"type", "enum", "const", "anyOf", "oneOf"} & node.keys():
            node = {"type": kind, **node}  # a branch without a type has its parent's
        types = rules.type_names(node)
        out: dict[str, Any] = {}
        moved: dict[str, Any] = {}
        for key, value in node.items():
            if key in _SILENT:
                continue
            if key in ("title", "description"):
                (out if isinstance(value, str) else moved)[key] = value
            elif key == "type":
                out[key] = value
            elif key in ("enum", "const"):
                values = value if key == "enum" else [value]
                keep = isinstance(values, list) and values and all(map(rules.scalar, values))
                (out if keep else moved)[key] = value
            elif key in ("anyOf", "oneOf"):
                if "anyOf" in out or not isinstance(value, list) or not value:
                    raise NotStrict(f"{path}: {key} beside anyOf, or empty")
                out["anyOf"] = [  # not `node`: JSON text in one branch would read as a string in another
                    self._node(b, f"{path}{{{key} {i}}}", refs, node.get("type"))
                    for i, b in enumerate(value)
                    if not _never(b)
                ]
            elif key in _OBJECT:
                out[key] = None  # keeps its place; filled in below
            elif key in ("patternProperties", "unevaluatedProperties"):
                if value not in ({}, False):
                    raise NotStrict(f"{path} accepts keys it does not name ({key})")
            elif key == "items":
                if not (isinstance(value, Mapping) and "array" in types):
                    raise NotStrict(f"{path}: items must be one schema, on an array")
                out[key] = self.node(value, f"{path}[]", refs)
            elif key in ("allOf", "prefixItems"):
                raise NotStrict(f"{path} uses {key}, which strict mode cannot keep")
            elif key == "default" and value is None and self.provider == "openai":
                continue  # every property is sent, null for "not given": a null default says nothing more
            elif (key == "default" and self.provider == "anthropic") or rules.supported(
                self.provider, key, value, types
            ):
                out[key] = value
            else:
                moved[key] = value
        if not {"type", "enum", "const", "anyOf"} & out.keys():
            raise NotStrict(f"{path} accepts any value")
        if "object" in types:
            self._object(node, out, path, refs, top=path == "$")
        elif any(key in out for key in _OBJECT):
            raise NotStrict(f"{path} has object keywords but is not an object")
        if "array" in types and "items" not in out:
            raise NotStrict(f"{path} is an array of any items")
        if moved:
            said = json.dumps(moved, ensure_ascii=False)
            out["description"] = f"{out['description']}\n\n{said}" if out.get("description") else said
        return out

    def _inline(
        self, node: Mapping[str, Any], path: str, refs: tuple[str, ...]
    ) -> tuple[Mapping[str, Any], tuple[str, ...]]:
        """The `$ref`'s target with the keywords beside the `$ref` (its chain followed by the caller)."""
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise NotStrict(f"{path}: $ref {ref!r} is not local")
        if ref in refs:
            raise NotStrict(f"{path} is recursive ($ref {ref!r})")
        target = pointer_get(self.root, ref[1:])
        if target is None:
            raise NotStrict(f"{path}: $ref {ref!r} does not resolve")
        if not isinstance(target, Mapping):
            raise NotStrict(f"{path}: $ref {ref!r} is the boolean schema {target!r}")
        merged = dict(target)
        for key, value in node.items():
            if key == "$ref":
                continue
            if key in merged and merged[key] != value and key not in rules.ANNOTATIONS:
                raise NotStrict(f"{path}: $ref {ref!r} beside a different {key!r}")
            merged[key] = value
        return merged, (*refs, ref)

    def _object(
        self, node: Mapping[str, Any], out: dict[str, Any], path: str, refs: tuple[str, ...], *, top: bool
    ) -> None:
        properties = node.get("properties")
        if properties is None and (top or node.get("additionalProperties") is False):
            properties = {}  # a tool without arguments, or an object that must be empty
        if not isinstance(properties, Mapping) or node.get("additionalProperties", False) is not False:
            raise NotStrict(f"{path} is an object that accepts keys it does not name")
        required = node.get("required", [])
        if not isinstance(required, list) or any(name not in properties for name in required):
            raise NotStrict(f"{path} requires a property it does not describe")
        converted = {}
        for name, sub in properties.items():
            strict = self.node(sub, f"{path}.{name}", refs)
            optional = name not in required and self.provider == "openai"
            converted[name] = nullable(strict) if optional else strict
        out["properties"] = converted
        if self.provider == "openai":
            out["required"] = list(converted)
        elif required or "required" in out:
            out["required"] = list(dict.fromkeys(required))
        out["additionalProperties"] = False


def _never(branch: Any) -> bool:
    """A branch no value matches (`false`, or `{"not": {}}` as zod writes `undefined`): dropping it loses nothing."""
    return branch is False or (isinstance(branch, Mapping) and len(branch) == 1 and branch.get("not") in ({}, True))


def _takes_null(node: Mapping[str, Any]) -> bool:
    """Whether a schema in strict form accepts null (it holds no $ref, not, allOf: the keywords decide)."""
    kind = node.get("type", "null")
    return (
        (kind == "null" or (isinstance(kind, list) and "null" in kind))
        and (None in node.get("enum", [None]))
        and node.get("const", None) is None
        and (any(_takes_null(b) for b in node["anyOf"]) if "anyOf" in node else True)
    )


def nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`node` or null: a type list for scalars, a union with `{"type": "null"}` for the rest."""
    if _takes_null(node):
        return node
    if "anyOf" in node and not {"type", "enum", "const"} & node.keys():
        return {**node, "anyOf": [*node["anyOf"], {"type": "null"}]}
    kind = node.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    if not {"const", "anyOf"} & node.keys() and not {"object", "array"} & set(kinds) and (kinds or "enum" in node):
        out = {**node, "type": [*kinds, "null"]} if kinds else dict(node)
        if "enum" in node:
            out["enum"] = [*node["enum"], None]
        return out
    outer: dict[str, Any] = {k: node[k] for k in ("title", "description") if k in node}
    return {**outer, "anyOf": [{k: v for k, v in node.items() if k not in outer}, {"type": "null"}]}


# --- the way back ---------------------------------------------------------------------------


def from_strict(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """`arguments` as a non-strict call would have sent them (see the module): nulls for optional
    non-nullable properties dropped, JSON text read where the reviewed schema takes no string.

    Anything else stays as the model sent it. A schema that cannot be compiled changes nothing
    (validation then says what is wrong with it).
    """
    if not _may_differ(arguments):
        return arguments
    try:
        return _Back(schema, validation.compiled(schema)).value(schema, arguments, 0)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - a broken schema (bad $ref, bad pattern) is reported by validation, not here
        return arguments


def _may_differ(value: Any) -> bool:
    """Whether `value` holds a null or a string: else a strict call is already what the server expects."""
    if isinstance(value, Mapping):
        return any(v is None or isinstance(v, str) or _may_differ(v) for v in value.values())
    return isinstance(value, list) and any(v is None or isinstance(v, str) or _may_differ(v) for v in value)


class _Back:
    """Walks the arguments and the reviewed schema together."""

    def __init__(self, root: Mapping[str, Any], validator: Any) -> None:
        self.root = root
        self.validator = validator

    def valid(self, schema: Any, value: Any) -> bool:
        return bool(self.validator.evolve(schema=schema).is_valid(value))

    def value(self, node: Any, value: Any, hops: int) -> Any:
        if not isinstance(node, Mapping) or hops > 64:  # 64 schema hops on one value: a `$ref` loop
            return value
        if isinstance(value, str) and not self.valid(node, value):
            value = self._json_text(node, value)
        if isinstance(node.get("$ref"), str):
            value = self.value(pointer_get(self.root, node["$ref"][1:]), value, hops + 1)
        properties = node.get("properties")
        if isinstance(value, Mapping) and isinstance(properties, Mapping):
            required: list[Any] = node["required"] if isinstance(node.get("required"), list) else []
            value = {
                key: self.value(properties.get(key), item, 0)
                for key, item in value.items()
                if not (
                    item is None and key in properties and key not in required and not self.valid(properties[key], None)
                )
            }
        if isinstance(value, list) and isinstance(node.get("items"), Mapping):
            value = [self.value(node["items"], item, 0) for item in value]
        for branch in node.get("allOf") or []:
            value = self.value(branch, value, hops + 1)
        for key in ("anyOf", "oneOf"):
            branches = node.get(key)
            if isinstance(branches, list) and not any(self.valid(b, value) for b in branches):
                for branch in branches:
                    candidate = self.value(branch, value, hops + 1)
                    if self.valid(branch, candidate):
                        value = candidate
                        break
        return value

    def _json_text(self, node: Mapping[str, Any], text: str) -> Any:
        """The value `text` writes, if the schema takes it (and no string); else `text`, for validation to refuse."""
        try:
            decoded = json.loads(text)
        except ValueError:
            return text
        return decoded if not isinstance(decoded, str) and self.valid(node, decoded) else text


# --- specs ----------------------------------------------------------------------------------


def strict_specs(specs: Sequence[ToolSpec], fmt: Format) -> tuple[list[dict[str, Any]], StrictReport]:
    """The specs in `fmt`, each strict where it can be, and the report of those that are not."""
    provider = PROVIDERS.get(fmt)
    if provider is None:
        raise ValueError(f"strict specs are for {', '.join(STRICT_FORMATS)}, not {fmt!r}")
    forms = _strict_forms(specs, provider)
    rendered = [
        opened(spec).render(fmt) if form is None else replace(spec, input_schema=form).render(fmt, strict=True)
        for spec, (form, _) in zip(specs, forms, strict=True)
    ]
    return rendered, _report(fmt, specs, forms)


def strict_reports(specs: Sequence[ToolSpec]) -> tuple[StrictReport, ...]:
    """One report per strict format (each provider's rewrite done once)."""
    forms = {provider: _strict_forms(specs, provider) for provider in set(PROVIDERS.values())}
    return tuple(_report(fmt, specs, forms[PROVIDERS[fmt]]) for fmt in STRICT_FORMATS)


def _report(fmt: str, specs: Sequence[ToolSpec], forms: list[tuple[dict[str, Any] | None, str]]) -> StrictReport:
    strict = tuple(s.name for s, (form, _) in zip(specs, forms, strict=True) if form is not None)
    fallback = tuple((s.name, why) for s, (form, why) in zip(specs, forms, strict=True) if form is None)
    return StrictReport(fmt, strict, fallback)


def _strict_forms(specs: Sequence[ToolSpec], provider: rules.Provider) -> list[tuple[dict[str, Any] | None, str]]:
    """Each spec's strict schema (or None and why), within the provider's per-request limits, in spec order."""
    limits = rules.ANTHROPIC_REQUEST if provider == "anthropic" else {}
    used = {"tools": 0, "optional": 0, "unions": 0}
    forms: list[tuple[dict[str, Any] | None, str]] = []
    for spec in specs:
        if spec.input_schema is OPEN_OBJECT:  # compact mode's placeholder: made strict, it would take only `{}`
            forms.append((None, "a compact listing: its arguments are open until get_tool_schema is read"))
            continue
        try:
            form = strict_schema(spec.input_schema, provider)
        except NotStrict as exc:
            forms.append((None, str(exc)))
            continue
        if limits:
            optional, unions = rules.request_costs(form)
            cost = {"tools": 1, "optional": optional, "unions": unions}
            over = [k for k in limits if used[k] + cost[k] > limits[k]]
            if over:
                forms.append((None, f"over the request's limit of {limits[over[0]]} strict {over[0]}"))
                continue
            used = {k: used[k] + cost[k] for k in used}
        forms.append((form, ""))
    return forms
