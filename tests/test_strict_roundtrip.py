"""A strict schema loses no call: every instance of a reviewed schema survives the trip to strict form and back.

For each schema (the 527 corpus tools, and hostile ones from tests/strategies.py) that comes out
strict, hypothesis-jsonschema draws instances valid under the reviewed schema, read as strict
mode reads it: an object that lists its properties and says nothing of others takes only those
(strict mode closes it; objects that allow other keys on purpose are sent as JSON text). Each
instance, as a strict model sends it (JSON text where the strict schema asks for a string the
value is not; for OpenAI, every absent optional property filled with null), must be valid under
the strict schema, and `from_strict` must give the instance back unchanged: the server sees what
a non-strict call would have sent. One exception, by the rule the runtime follows: a left-out
optional property that accepts null comes back as null, since a strict OpenAI model cannot say
"absent" apart from null, and a null the reviewed schema accepts is sent as given.

Profiles: `make test` draws CORPUS_EXAMPLES and SYNTHETIC_EXAMPLES per provider, the same ones every
run (derandomized); `make long` (MCPVEND_FUZZ=long) draws ten times as many.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.internal.conjecture import utils
from hypothesis_jsonschema import _from_schema, from_schema

from conftest import corpus_servers
from mcpvend.runtime.core.pointers import pointer_get
from mcpvend.runtime.strict.rewrite import JSON_TEXT, NotStrict, from_strict, strict_schema
from mcpvend.runtime.strict.rules import Provider
from strategies import FORMATS, input_schemas

PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
LONG = os.environ.get("MCPVEND_FUZZ") == "long"
CORPUS_EXAMPLES = 2_000 if LONG else 200
SYNTHETIC_EXAMPLES = 1_250 if LONG else 80
pytestmark = [pytest.mark.timeout(0)] if LONG else []  # the long profile is bounded by its example counts
# What the rewrite may refuse: what no strict subset can say without losing instances.
CANNOT_SAY = (
    "accepts keys it does not name",
    "accepts any value",
    "is recursive",
    "uses allOf",
    "uses prefixItems",
    "items must be one schema",
    "is an array of any items",
    "$ref",
    "accepts no value",
    "beside anyOf",
    "requires a property it does not describe",
    "has object keywords but is not an object",
    "request limit",
    "is not a plain object",
    "is not valid JSON Schema",
)
# Formats hypothesis-jsonschema does not know: strings of the kind the synthetic schemas use.
CUSTOM_FORMATS = {
    name: strategy
    for name, strategy in FORMATS
    if name not in ("date-time", "date", "uuid", "ipv4", "ipv6", "uri", "hostname", "email", "regex")
}


class _Many(utils.many):
    """`while elements.more()`, as hypothesis-jsonschema 0.23.1 (its latest) drives `many()`, on the
    iteration API that Hypothesis has since put in its place (same choices, same spans)."""

    def more(self) -> bool:
        if self._depth is None:
            self.__enter__()
        self._finish_element()
        if not self._decide():
            self._closed = True
            return False
        self.count += 1
        self._in_element = True
        self._rejected = False
        return True


_from_schema.cu = SimpleNamespace(many=_Many)  # type: ignore[attr-defined]


def declared(schema: Any, *, root: bool = True) -> Any:
    """`schema` with every object that lists its properties (and the root: a tool's arguments) closed to those."""
    if isinstance(schema, list):
        return [declared(s, root=False) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    values = ("enum", "const", "default", "examples", "required")
    out = {k: (v if k in values else declared(v, root=False)) for k, v in schema.items()}
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        if isinstance(schema.get(key), Mapping):
            out[key] = {k: declared(v, root=False) for k, v in schema[key].items()}
    if "properties" in out or root:
        out.setdefault("additionalProperties", False)
    return out


def unrolled(schema: Any, root: Any = None, depth: int = 0) -> Any:
    """`schema` with its local `$ref`s written out, a recursive one three levels deep and then left
    empty (`not: {}`): hypothesis-jsonschema cannot draw from recursive references (it raises, or
    runs out of stack, depending on how deep the test already runs)."""
    root = schema if root is None else root
    if isinstance(schema, list):
        return [unrolled(s, root, depth) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        if depth >= 3:
            return {"not": {}}
        target = pointer_get(root, ref[1:])
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return unrolled({**target, **rest} if isinstance(target, Mapping) else target, root, depth + 1)
    values = ("enum", "const", "default", "examples", "required")
    out = {
        k: (v if k in values else unrolled(v, root, depth))
        for k, v in schema.items()
        if k not in ("$defs", "definitions")
    }
    for key in ("properties", "patternProperties"):
        if isinstance(schema.get(key), Mapping):
            out[key] = {k: unrolled(v, root, depth) for k, v in schema[key].items()}
    return out


def drawn(data: st.DataObject, original: dict[str, Any]) -> Any:
    """An instance of `original` (as strict mode reads it), drawn by hypothesis-jsonschema: a draw
    its drafts do not check (it does not know `prefixItems`, say) is thrown back."""
    schema = declared(unrolled(original))
    instance = data.draw(from_schema(schema, custom_formats=CUSTOM_FORMATS), label="instance")
    assume(jsonschema.Draft202012Validator(schema).is_valid(instance))
    return instance


def closable(schema: Any) -> Any:
    """`schema` without the keys that open objects on purpose (patternProperties, additionalProperties other
    than false): hypothesis-jsonschema cannot draw from many hostile schemas that hold them. The corpus
    schemas keep theirs (their open maps go as JSON text), and tests/test_strict_specs.py has cases."""
    if isinstance(schema, list):
        return [closable(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    out = {k: (v if k in ("enum", "const", "default", "required") else closable(v)) for k, v in schema.items()}
    for key in ("properties", "$defs"):
        if isinstance(schema.get(key), Mapping):
            out[key] = {k: closable(v) for k, v in schema[key].items()}
    out.pop("patternProperties", None)
    if out.get("additionalProperties", False) is not False:
        del out["additionalProperties"]
    return out


def fill(strict: Any, value: Any, validator: Any, *, nulls: bool) -> Any:
    """What a strict model sends for `value`: JSON text where the strict schema asks for a string and the
    value is none, and (OpenAI, `nulls`) null for every property it lists and `value` lacks."""
    if not isinstance(strict, Mapping):
        return value
    if JSON_TEXT in strict.get("description", "") and not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict) and isinstance(strict.get("properties"), Mapping):
        props = strict["properties"]
        value = {
            **{k: fill(props[k], v, validator, nulls=nulls) if k in props else v for k, v in value.items()},
            **({k: None for k in props if k not in value} if nulls else {}),
        }
    if isinstance(value, list) and isinstance(strict.get("items"), Mapping):
        value = [fill(strict["items"], v, validator, nulls=nulls) for v in value]
    for branch in strict.get("anyOf") or []:
        candidate = fill(branch, value, validator, nulls=nulls)
        if validator.evolve(schema=branch).is_valid(candidate):
            return candidate
    return value


def but_nulls(back: Any, instance: Any) -> bool:
    """`back` is `instance`, but for keys `instance` lacks that `back` holds as null."""
    if isinstance(back, dict) and isinstance(instance, dict):
        extra = back.keys() - instance.keys()
        return all(back[k] is None for k in extra) and all(
            k in back and but_nulls(back[k], v) for k, v in instance.items()
        )
    if isinstance(back, list) and isinstance(instance, list):
        return len(back) == len(instance) and all(map(but_nulls, back, instance))
    return back == instance and type(back) is type(instance)


def round_trip(original: dict[str, Any], provider: Provider, instance: Any) -> None:
    strict = strict_schema(original, provider)
    validator = jsonschema.Draft202012Validator(strict)
    sent = fill(strict, instance, validator, nulls=provider == "openai")
    errors = [e.message for e in validator.iter_errors(sent)]
    assert not errors, (original, strict, instance, sent, errors)
    back = from_strict(original, sent)
    if provider == "anthropic":
        assert back == instance, (original, strict, back)
        return
    # A strict OpenAI model cannot leave out an optional property that accepts null: its null is sent
    # as given (the reviewed schema accepts it); every other null it had to send is dropped.
    assert jsonschema.validators.validator_for(original)(original).is_valid(back), (original, back)
    assert but_nulls(back, instance), (original, strict, sent, back)


def corpus_schemas() -> list[dict[str, Any]]:
    return [tool["inputSchema"] for tools in corpus_servers().values() for tool in tools]


CORPUS = corpus_schemas()


def has_strict_form(schema: dict[str, Any], provider: Provider) -> bool:
    """Whether the rewrite makes `schema` strict; when it does not, it must say one of the reasons allowed."""
    try:
        strict_schema(schema, provider)
    except NotStrict as exc:
        assert any(reason in str(exc) for reason in CANNOT_SAY), exc
        event(f"not strict: {str(exc).split(' ', 1)[1][:40]}")
        return False
    return True


@pytest.mark.parametrize("provider", PROVIDERS)
@settings(max_examples=CORPUS_EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_corpus_instances_survive_the_trip(provider: Provider, data: st.DataObject) -> None:
    original = data.draw(st.sampled_from(CORPUS), label="schema")
    if not has_strict_form(original, provider):
        return
    instance = drawn(data, original)
    event("round trip")
    round_trip(original, provider, instance)


@pytest.mark.parametrize("provider", PROVIDERS)
@settings(max_examples=SYNTHETIC_EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_synthetic_instances_survive_the_trip(provider: Provider, data: st.DataObject) -> None:
    original = closable(data.draw(input_schemas(), label="schema").schema)
    if not has_strict_form(original, provider):
        return
    try:
        instance = drawn(data, original)
    except InvalidArgument:  # a schema hypothesis-jsonschema cannot draw from (say, no instance can be made)
        event("no instance")
        return
    event("round trip")
    round_trip(original, provider, instance)
