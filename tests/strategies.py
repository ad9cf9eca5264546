"""Hypothesis strategies for fuzzing `lock` → `generate`: hostile tool lists, each input schema
drawn together with instances that are valid under it by construction.

Every schema is satisfiable because it is built from its instances' point of view: a node is
a `Schema` that pairs the JSON Schema with a strategy for values it accepts, and composite
nodes (objects, arrays, anyOf/oneOf/allOf, `$ref`) combine their children's strategies so the
result stays valid (oneOf branches have disjoint types or a distinct `const` tag; allOf branches
are open objects with disjoint properties). `tests/test_fuzz.py` still checks every instance with
`jsonschema` before it trusts one, so a mistake here fails loudly rather than hiding a bug.
"""

from __future__ import annotations

import datetime
import ipaddress
import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st

JSON = Any
MAX_DEPTH = 5  # composite nodes below an input schema's top-level object

# Full Unicode without surrogates: lone surrogates are not valid in JSON text (RFC 8259).
UNICODE = st.characters(exclude_categories=("Cs",))
ANY_TEXT = st.text(UNICODE, max_size=30)

# Fragments that break naive code generation: string terminators, escapes, template syntax,
# invisible and line-breaking characters.
HOSTILE_FRAGMENTS = (
    '"""', "'''", '"', "'", "\\", "\\n", "\\x00", "\\u2028", "\n", "\r\n", "\r", "\t", "\x00", "\x07", "\x1b[31m",
    "\x7f", "\x85", "\u2028", "\u2029", "\u202e", "\u2066", "\u200b", "\ufeff", "\U000e0041", "{{ 7*7 }}", "{{",
    "}}", "{% raw %}", "{% endraw %}", "{#", "#}", "${HOME}", "%s", "{0}", "  ", " ", "\U0001f600", "é", "日本語",
    "# noqa", "import os; os.system('touch /tmp/pwned')", "\\N{BELL}", "\\", "\\\\", "\"\"\"'''",
)  # fmt: skip

_KEYWORDS = (*keyword.kwlist, *keyword.softkwlist)
_BUILTINS = ("print", "id", "type", "list", "dict", "input", "object", "open", "exec", "eval", "__import__")
# Names the generated wrapper module or its base class define: a method named so must not shadow them.
_MODULE_NAMES = (
    "self", "cls", "arguments", "kwargs", "session", "timeout", "refused", "call", "call_content",
    "call_structured", "_call", "connect", "manifest", "overload", "Any", "Mapping", "ToolResult",
    "ToolsBase", "Tools", "Pinning", "open_tools", "_PACKAGE", "AbstractAsyncContextManager", "models",
    "model_config", "model_fields", "model_validate", "__init__", "__class__", "__dict__", "__doc__",
    "__module__", "__call__", "__slots__", "__getattr__", "_", "__",
)  # fmt: skip
# Families that collide after snake_casing (and after PascalCasing for the model classes).
_COLLIDING = (
    "get_url", "get-url", "getUrl", "GetURL", "get.url", "get url", "GET_URL", "get__url", "_get_url",
    "fetch", "Fetch", "FETCH", "fetch_", "fetch-", "3d", "n3d", "3D", "tool", "Tool", "tool_", "naïve",
    "naive", "ツール", "道具", "\u202eevil", "evil", "a.b", "a-b", "a_b", "aB", "AB", "a b",
)  # fmt: skip
_HOSTILE_ASCII = (
    '"""', "'''", "'", '"', "\\", "\\n", "a\nb", "\r", "\t", " ", "\x00", "{{ 7*7 }}", "{% raw %}",
    "{% endraw %}", "{#", "__import__('os').system('x')", "'); import os; ('", '"; import os; "', "#",
    "a;b", "$x", "`x`", "1st-tool.v2", "1st_tool_v2", "9", "0", "-", ".", "..", "/", "a/b", "~", "%",
)  # fmt: skip
HOSTILE_NAMES: tuple[str, ...] = (*_KEYWORDS, *_BUILTINS, *_MODULE_NAMES, *_COLLIDING, *_HOSTILE_ASCII)
_NAME_ALPHABET = st.sampled_from(list("abcXYZ_-.0 \"'\\{}%#\n\t"))


def hostile_text(max_fragments: int = 6) -> st.SearchStrategy[str]:
    """Text stitched from hostile fragments and arbitrary Unicode."""
    return st.lists(st.one_of(st.sampled_from(HOSTILE_FRAGMENTS), ANY_TEXT), max_size=max_fragments).map("".join)


def descriptions() -> st.SearchStrategy[str | None]:
    """A tool description: absent, empty, plain, or hostile (docstrings must survive all of them)."""
    return st.one_of(st.none(), st.just(""), ANY_TEXT, hostile_text())


def tool_names() -> st.SearchStrategy[str]:
    """Tool names over full Unicode and hostile ASCII, including collisions and very long ones."""
    return st.one_of(
        st.sampled_from(HOSTILE_NAMES),
        st.text(UNICODE, min_size=1, max_size=24),
        st.text(_NAME_ALPHABET, min_size=1, max_size=12),
        st.builds(lambda a, b: a + b, st.sampled_from(HOSTILE_NAMES), st.sampled_from(HOSTILE_NAMES)),
        st.text(st.sampled_from("aB_-.9é"), min_size=200, max_size=400),  # very long
    )


# Property names that clash with what a generated model imports, defines or inherits.
_PROPERTY_NAMES = (
    "field", "Field", "literal", "annotated", "base_model", "BaseModel", "root", "root_model", "any_url",
    "config_dict", "schema", "json", "dict", "copy", "validate", "construct", "fields", "model_dump",
    "fooBar", "foo_bar", "foo-bar", "Foo Bar", "x", "X", "x_", "__x", "1", "12abc", "a.b-c d", "naïve",
    "日本語", "ü", "$ref", "$defs", "properties", "type", "default", "description", "None", "True",
)  # fmt: skip
PROPERTY_NAMES = st.one_of(
    st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True),
    st.sampled_from((*HOSTILE_NAMES, *_PROPERTY_NAMES)),
    st.text(UNICODE, min_size=1, max_size=10),
)

# (pattern, strategy of strings it matches). Python `re` and ECMA 262 agree on these: ASCII,
# anchors only where a trailing newline cannot be generated.
PATTERNS: tuple[tuple[str, st.SearchStrategy[str]], ...] = (
    ("^x_", st.text(UNICODE, max_size=6).map(lambda s: "x_" + s)),
    ("^[0-9]+$", st.text(st.sampled_from("0123456789"), min_size=1, max_size=6)),
    ("^[a-z]{2,5}$", st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=2, max_size=5)),
    ("é", st.tuples(ANY_TEXT, ANY_TEXT).map(lambda p: p[0] + "é" + p[1])),
    ('^"""', st.text(UNICODE, max_size=4).map(lambda s: '"""' + s)),
)

# (format, strategy of strings valid in it). The strings are each format's canonical spelling;
# a format with several spellings of one value is a separate, known question (see the report).
FORMATS: tuple[tuple[str, st.SearchStrategy[str]], ...] = (
    ("date-time", st.datetimes(timezones=st.just(datetime.UTC)).map(
        lambda d: d.replace(microsecond=0).isoformat().replace("+00:00", "Z"))),  # years < 1000 zero-padded
    ("date", st.dates().map(lambda d: d.isoformat())),
    ("uuid", st.uuids().map(str)),
    ("ipv4", st.ip_addresses(v=4).map(str)),
    ("ipv6", st.ip_addresses(v=6).map(lambda a: ipaddress.IPv6Address(a).compressed)),
    ("uri", st.from_regex(r"https://[a-z]{1,8}\.example/[a-z0-9]{0,8}", fullmatch=True)),
    ("hostname", st.from_regex(r"[a-z]{1,8}(\.[a-z]{1,8}){0,2}", fullmatch=True)),
    ("email", st.from_regex(r"[a-z]{1,8}@[a-z]{1,8}\.example", fullmatch=True)),
    ("x-not-a-format", ANY_TEXT),
    # Formats whose pydantic types would change the value or need another package (see generator/mcpvend/codegen/schema_prep.py).
    ("password", ANY_TEXT),
    ("byte", st.sampled_from(["aGVsbG8=", "aGVsbG8", "not base64!", ""])),
    ("path", st.sampled_from(["a/./b", "/tmp//x/", "rel/../p", "~"])),
    ("decimal", st.sampled_from(["1.50", "1e3", "-0"])),
    ("email", st.from_regex(r"[A-Za-z]{1,8}@[A-Za-z]{1,8}\.example", fullmatch=True)),
    ("ulid", ANY_TEXT),
    ("regex", st.sampled_from(["^a+$", "[0-9]", "x|y"])),
)  # fmt: skip


@dataclass(frozen=True)
class Schema:
    """A JSON Schema and a strategy of instances valid under it.

    `props` is set for object schemas that another object may be merged with in an `allOf`
    (open, without patternProperties): their declared property names, so branches stay disjoint.
    `members` are an object schema's declared properties (for a `$ref` to one of them).
    """

    schema: JSON
    instances: st.SearchStrategy[JSON]
    props: frozenset[str] | None = None
    members: Mapping[str, Schema] = field(default_factory=dict)


@dataclass(frozen=True)
class FuzzTool:
    """A tool as served, and instances of its inputSchema (none for a tool built to be rejected)."""

    tool: dict[str, Any]
    instances: tuple[dict[str, Any], ...]
    reject: bool = False  # built so that `lock` must list it under `rejected`

    @property
    def name(self) -> str:
        return str(self.tool["name"])


@dataclass(frozen=True)
class ToolList:
    """One server's tool list, in the order served (duplicates and rejects included)."""

    tools: tuple[FuzzTool, ...]
    expected_locked: frozenset[str] = field(default=frozenset())
    expected_rejected: frozenset[str] = field(default=frozenset())

    @property
    def schema_count(self) -> int:
        return sum(1 + ("outputSchema" in t.tool) for t in self.tools if not t.reject)


# JSON values: what `{}`, `true` and an open object's extra properties accept.
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    ANY_TEXT,
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(ANY_TEXT, inner, max_size=3)),
    max_leaves=6,
)


def _with(schema: dict[str, Any], **keys: Any) -> dict[str, Any]:
    return {**schema, **{k: v for k, v in keys.items() if v is not None}}


@st.composite
def _annotate(draw: st.DrawFn, node: Schema) -> Schema:
    """Optionally add a hostile description or title, and a valid `default`, to a schema object."""
    if not isinstance(node.schema, dict) or "$ref" in node.schema:
        return node
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["description"] = draw(hostile_text(3))
    if draw(st.integers(0, 4)) == 0:
        extra["title"] = draw(hostile_text(2))
    if draw(st.integers(0, 3)) == 0:
        extra["default"] = draw(node.instances)
    return Schema({**node.schema, **extra}, node.instances, node.props, node.members)


@st.composite
def strings(draw: st.DrawFn) -> Schema:
    kind = draw(st.sampled_from(["plain", "bounds", "pattern", "format"]))
    if kind == "bounds":
        low = draw(st.integers(0, 5))
        high = draw(st.one_of(st.none(), st.integers(low, low + 8)))
        schema = _with({"type": "string", "minLength": low}, maxLength=high)
        return Schema(schema, st.text(UNICODE, min_size=low, max_size=high if high is not None else low + 10))
    if kind == "pattern":
        pattern, matching = draw(st.sampled_from(PATTERNS))
        return Schema({"type": "string", "pattern": pattern}, matching)
    if kind == "format":
        name, valid = draw(st.sampled_from(FORMATS))
        return Schema({"type": "string", "format": name}, valid)
    return Schema({"type": "string"}, ANY_TEXT)


@st.composite
def integers(draw: st.DrawFn) -> Schema:
    low = draw(st.one_of(st.none(), st.integers(-(2**70), 2**70)))
    high = None if draw(st.booleans()) else (low if low is not None else -(2**20)) + draw(st.integers(2, 2**40))
    exclusive = draw(st.booleans())
    schema: dict[str, Any] = {"type": "integer"}
    if low is not None:
        schema["exclusiveMinimum" if exclusive else "minimum"] = low
    if high is not None:
        schema["exclusiveMaximum" if exclusive else "maximum"] = high
    lo = None if low is None else low + exclusive
    hi = None if high is None else high - exclusive
    multiple = draw(st.one_of(st.none(), st.integers(2, 7)))
    if multiple is None:
        return Schema(schema, st.integers(lo, hi))
    first = None if lo is None else -(-lo // multiple)
    last = None if hi is None else hi // multiple
    if first is not None and last is not None and first > last:
        return Schema(schema, st.integers(lo, hi))  # no multiple in range: leave multipleOf out
    return Schema({**schema, "multipleOf": multiple}, st.integers(first, last).map(lambda k: k * multiple))


@st.composite
def numbers(draw: st.DrawFn) -> Schema:
    low = draw(st.one_of(st.none(), st.floats(-1e12, 1e12)))
    high = None if draw(st.booleans()) else (low if low is not None else 0.0) + draw(st.floats(1.0, 1e6))
    exclusive = draw(st.booleans())
    schema: dict[str, Any] = {"type": "number"}
    if draw(st.integers(0, 5)) == 0:  # `decimal` would make pydantic send a string
        schema["format"] = draw(st.sampled_from(["decimal", "double", "float"]))
    if low is not None:
        schema["exclusiveMinimum" if exclusive else "minimum"] = low
    if high is not None:
        schema["exclusiveMaximum" if exclusive else "maximum"] = high
    floats = st.floats(low, high, allow_nan=False, allow_infinity=False, exclude_min=exclusive and low is not None,
                       exclude_max=exclusive and high is not None)  # fmt: skip
    if low is None and high is None:  # whole numbers too (sent as they are, read back as floats)
        return Schema(schema, st.one_of(floats, st.integers(-(2**53), 2**53)))
    return Schema(schema, floats)


def _scalar_key(value: JSON) -> tuple[str, JSON]:
    """Equality as JSON Schema sees it: true is not 1, but 1 is 1.0."""
    if isinstance(value, bool) or value is None:
        return ("literal", repr(value))
    if isinstance(value, int | float):
        return ("number", float(value))
    return (type(value).__name__, repr(value))


@st.composite
def enums(draw: st.DrawFn) -> Schema:
    scalars = st.one_of(JSON_SCALARS, st.sampled_from(HOSTILE_FRAGMENTS))
    values = draw(st.lists(scalars, min_size=1, max_size=5, unique_by=_scalar_key))
    schema: dict[str, Any] = {"enum": values}
    if draw(st.booleans()) and all(isinstance(v, str) for v in values):
        schema["type"] = "string"
    return Schema(schema, st.sampled_from(values))


@st.composite
def consts(draw: st.DrawFn) -> Schema:
    value = draw(st.one_of(JSON_SCALARS, st.sampled_from(HOSTILE_FRAGMENTS), JSON_VALUES))
    return Schema({"const": value}, st.just(value))


def _simple(name: str) -> Schema:
    return Schema({"type": name}, {"boolean": st.booleans(), "null": st.none()}[name])


def leaves(refs: Sequence[tuple[str, Schema]]) -> st.SearchStrategy[Schema]:
    options: list[st.SearchStrategy[Schema]] = [
        strings(),
        integers(),
        numbers(),
        st.just(_simple("boolean")),
        st.just(_simple("null")),
        enums(),
        consts(),
        st.just(Schema({}, JSON_VALUES)),
        st.just(Schema(True, JSON_VALUES)),
    ]
    if refs:
        options.append(st.sampled_from(refs).map(lambda r: Schema({"$ref": r[0]}, r[1].instances, r[1].props)))
    return st.one_of(options)


def schemas(depth: int, refs: Sequence[tuple[str, Schema]] = ()) -> st.SearchStrategy[Schema]:
    """Any schema of at most `depth` nested composite levels; `refs` are (pointer, target) pairs."""
    plain = leaves(refs)
    if depth > 0:
        inner = st.deferred(lambda: schemas(depth - 1, refs))
        plain = st.one_of(
            plain,
            objects(inner),
            arrays(inner),
            any_ofs(inner),
            nullables(inner),
            one_ofs(inner),
            all_ofs(inner, refs),
        )
    return plain.flatmap(_annotate)


def _distinct_names(draw: st.DrawFn, count: int, avoid: frozenset[str] = frozenset()) -> list[str]:
    names = draw(st.lists(PROPERTY_NAMES, max_size=count, unique=True))
    return [n for n in names if n not in avoid]


def _matches(key: str, patterns: Sequence[str]) -> list[str]:
    return [p for p in patterns if re.search(p, key)]


def _extras_allowed(key: str, declared: Mapping[str, Any], patterns: Sequence[str]) -> bool:
    return key not in declared and not _matches(key, patterns)


@st.composite
def objects(
    draw: st.DrawFn,
    inner: st.SearchStrategy[Schema],
    *,
    max_props: int = 3,
    open_only: bool = False,
    avoid: frozenset[str] = frozenset(),
) -> Schema:
    """An object schema (properties, required, additionalProperties, patternProperties).

    `open_only`: no additionalProperties/patternProperties, and instances without extra keys,
    so that the object can be one branch of an allOf with disjoint property names.
    """
    names = _distinct_names(draw, max_props, avoid)
    props = {name: draw(inner) for name in names}
    required = [n for n in names if draw(st.booleans())]
    schema: dict[str, Any] = {"type": "object", "properties": {n: s.schema for n, s in props.items()}}
    if required:
        schema["required"] = required
    patterns: list[tuple[str, st.SearchStrategy[str], Schema]] = []
    additional: Schema | bool | None = None
    if not open_only:
        for pattern, keys in draw(st.lists(st.sampled_from(PATTERNS), max_size=2, unique_by=lambda p: p[0])):
            if not any(re.search(pattern, n) for n in names):
                patterns.append((pattern, keys, draw(inner)))
        if patterns:
            schema["patternProperties"] = {p: s.schema for p, _, s in patterns}
        additional = draw(st.one_of(st.none(), st.booleans(), inner))
        if additional is not None:
            schema["additionalProperties"] = additional.schema if isinstance(additional, Schema) else additional
    pattern_names = [p for p, _, _ in patterns]
    fixed = {n: props[n].instances for n in required}
    optional = {n: s.instances for n, s in props.items() if n not in required}
    base = st.fixed_dictionaries(fixed, optional=optional)
    extras: list[st.SearchStrategy[dict[str, JSON]]] = []
    for pattern, keys, value in patterns:
        matching = keys.filter(lambda k, p=pattern: k not in props and _matches(k, pattern_names) == [p])
        extras.append(st.dictionaries(matching, value.instances, max_size=2))
    if not open_only and additional is not False:
        values = additional.instances if isinstance(additional, Schema) else JSON_VALUES
        keys = PROPERTY_NAMES.filter(lambda k: _extras_allowed(k, props, pattern_names))
        extras.append(st.dictionaries(keys, values, max_size=2))

    def merged(parts: tuple[dict[str, JSON], ...]) -> dict[str, JSON]:
        result: dict[str, JSON] = {}
        for part in reversed(parts):  # declared properties win over extras with the same key
            result.update(part)
        return result

    instances = st.tuples(base, *extras).map(merged)
    return Schema(schema, instances, frozenset(names) if open_only else None, props)


@st.composite
def arrays(draw: st.DrawFn, inner: st.SearchStrategy[Schema]) -> Schema:
    prefix = draw(st.lists(inner, max_size=3)) if draw(st.booleans()) else []
    items: Schema | bool | None = draw(st.one_of(st.none(), inner, st.just(False) if prefix else st.none()))
    schema: dict[str, Any] = {"type": "array"}
    if prefix:
        schema["prefixItems"] = [p.schema for p in prefix]
    if items is not None:
        schema["items"] = items.schema if isinstance(items, Schema) else items
    longest = len(prefix) if items is False else len(prefix) + 3
    low = draw(st.integers(0, min(2, longest)))
    high = draw(st.one_of(st.none(), st.integers(low, longest)))
    if low:
        schema["minItems"] = low
    if high is not None:
        schema["maxItems"] = high
    rest = items.instances if isinstance(items, Schema) else JSON_VALUES
    top = longest if high is None else high

    @st.composite
    def instances(draw_instance: st.DrawFn) -> list[JSON]:
        size = draw_instance(st.integers(low, top))
        return [draw_instance(prefix[i].instances if i < len(prefix) else rest) for i in range(size)]

    return Schema(schema, instances())


@st.composite
def any_ofs(draw: st.DrawFn, inner: st.SearchStrategy[Schema]) -> Schema:
    branches = draw(st.lists(inner, min_size=1, max_size=3))
    return Schema({"anyOf": [b.schema for b in branches]}, st.one_of([b.instances for b in branches]))


_TYPE_LOCAL = frozenset({
    "type", "title", "description", "default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minLength", "maxLength", "pattern", "format", "items", "prefixItems", "minItems", "maxItems",
    "properties", "required", "additionalProperties", "patternProperties",
})  # fmt: skip


@st.composite
def nullables(draw: st.DrawFn, inner: st.SearchStrategy[Schema]) -> Schema:
    """How pydantic and most SDKs write `T | None`: anyOf with null, or a type list, often defaulting to null."""
    node = draw(inner)
    values = st.one_of(st.none(), node.instances)
    # `"type": [T, "null"]` says the same only when nothing but `type` keeps null out (not allOf, enum, ...)
    typed = isinstance(node.schema, dict) and isinstance(node.schema.get("type"), str) and node.schema["type"] != "null"
    if typed and set(node.schema) <= _TYPE_LOCAL and draw(st.booleans()):
        schema = {**node.schema, "type": [node.schema["type"], "null"]}
    else:
        schema = {"anyOf": [node.schema, {"type": "null"}]}
    if draw(st.booleans()):
        schema["default"] = None
    return Schema(schema, values)


_FAMILIES = ("string", "integer", "boolean", "null", "array", "object")


@st.composite
def one_ofs(draw: st.DrawFn, inner: st.SearchStrategy[Schema]) -> Schema:
    """oneOf whose branches cannot overlap: disjoint JSON types, or objects tagged by a `const`."""
    if draw(st.booleans()):
        tag = draw(st.sampled_from(["kind", "type", "$type", "class"]))
        count = draw(st.integers(1, 3))
        branches = []
        for index in range(count):
            body = draw(objects(inner, open_only=True, avoid=frozenset({tag})))
            value = f"variant-{index}"
            schema = {
                **body.schema,
                "properties": {**body.schema["properties"], tag: {"const": value}},
                "required": [*body.schema.get("required", []), tag],
            }
            branches.append(Schema(schema, body.instances.map(lambda d, v=value: {**d, tag: v})))
        return Schema({"oneOf": [b.schema for b in branches]}, st.one_of([b.instances for b in branches]))
    families = draw(st.lists(st.sampled_from(_FAMILIES), min_size=1, max_size=3, unique=True))
    branches = [draw(_of_family(family, inner)) for family in families]
    return Schema({"oneOf": [b.schema for b in branches]}, st.one_of([b.instances for b in branches]))


def _of_family(family: str, inner: st.SearchStrategy[Schema]) -> st.SearchStrategy[Schema]:
    """A schema whose instances all have one JSON type (and which says so with `type`)."""
    if family == "string":
        return strings()
    if family == "integer":
        return integers()
    if family in ("boolean", "null"):
        return st.just(_simple(family))
    if family == "array":
        return arrays(inner)
    return objects(inner)


@st.composite
def all_ofs(draw: st.DrawFn, inner: st.SearchStrategy[Schema], refs: Sequence[tuple[str, Schema]]) -> Schema:
    """allOf over open objects with disjoint properties (one may be a `$ref`), or a lone wrapped schema."""
    if draw(st.integers(0, 3)) == 0:
        node = draw(inner)
        return Schema({"allOf": [node.schema]}, node.instances)
    branches: list[Schema] = []
    taken: frozenset[str] = frozenset()
    open_refs = [(p, s) for p, s in refs if s.props is not None]
    if open_refs and draw(st.booleans()):
        pointer, target = draw(st.sampled_from(open_refs))
        assert target.props is not None
        branches.append(Schema({"$ref": pointer}, target.instances, target.props))
        taken = target.props
    for _ in range(draw(st.integers(1, 3))):
        branch = draw(objects(inner, open_only=True, avoid=taken))
        assert branch.props is not None
        taken |= branch.props
        branches.append(branch)

    def merged(parts: tuple[dict[str, JSON], ...]) -> dict[str, JSON]:
        return {k: v for part in parts for k, v in part.items()}

    schema: dict[str, Any] = {"allOf": [b.schema for b in branches]}
    if draw(st.booleans()):
        schema["type"] = "object"
    return Schema(schema, st.tuples(*(b.instances for b in branches)).map(merged), taken)


# `$defs` names, some needing JSON Pointer (`~1`) or URI (`%20`) escapes in a `$ref`.
DEF_NAMES = {"Thing": "Thing", "thing_2": "thing_2", "A b": "A%20b", "a/b": "a~1b", "ü": "%C3%BC", "Node-1": "Node-1"}


def _recursive_node() -> tuple[str, dict[str, Any], Schema]:
    pointer = "#/$defs/TreeNode"
    schema = {
        "type": "object",
        "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": pointer}}},
        "required": ["label"],
    }
    label = st.fixed_dictionaries({"label": ANY_TEXT})
    tree = st.recursive(
        label,
        lambda kids: st.fixed_dictionaries({"label": ANY_TEXT}, optional={"children": st.lists(kids, max_size=2)}),
        max_leaves=4,
    )
    return pointer, schema, Schema(schema, tree)


@st.composite
def input_schemas(draw: st.DrawFn, depth: int = MAX_DEPTH) -> Schema:
    """A tool's inputSchema: always `"type": "object"` at the top, as MCP requires."""
    definitions: dict[str, Any] = {}
    refs: list[tuple[str, Schema]] = []
    if draw(st.integers(0, 2)) == 0:
        for name in draw(st.lists(st.sampled_from(sorted(DEF_NAMES)), max_size=3, unique=True)):
            target = draw(st.one_of(schemas(min(depth, 2)), objects(schemas(1), open_only=True)))
            definitions[name] = target.schema
            refs.append((f"#/$defs/{DEF_NAMES[name]}", target))
        if draw(st.booleans()):
            pointer, schema, node = _recursive_node()
            definitions["TreeNode"] = schema
            refs.append((pointer, node))
    inner = schemas(depth - 1, refs) if depth > 0 else leaves(refs)
    shape = draw(st.sampled_from(["object", "object", "object", "empty", "map"]))
    if shape == "empty":
        top = Schema({"type": "object"}, st.dictionaries(PROPERTY_NAMES, JSON_VALUES, max_size=2))
    elif shape == "map":  # only additionalProperties: a RootModel
        values = draw(inner)
        top = Schema(
            {"type": "object", "additionalProperties": values.schema},
            st.dictionaries(PROPERTY_NAMES, values.instances, max_size=3),
        )
    else:
        top = draw(objects(inner, max_props=5))
    schema = dict(top.schema)
    instances = top.instances
    properties = schema.get("properties")
    patterns = list(schema.get("patternProperties", {}))
    if isinstance(properties, dict) and properties and draw(st.integers(0, 4)) == 0:
        # A `$ref` to a pointer outside `$defs` (as some SDKs write a repeated type).
        source = draw(st.sampled_from(sorted(properties)))
        copy_name = draw(PROPERTY_NAMES.filter(lambda n: n not in properties and not _matches(n, patterns)))
        escaped = source.replace("~", "~0").replace("/", "~1")
        schema["properties"] = {**properties, copy_name: {"$ref": f"#/properties/{quote(escaped, safe='')}"}}

        def with_copy(pair: tuple[dict[str, JSON], tuple[bool, JSON]]) -> dict[str, JSON]:
            instance = {k: v for k, v in pair[0].items() if k != copy_name}
            present, value = pair[1]
            return {**instance, copy_name: value} if present else instance

        instances = st.tuples(instances, st.tuples(st.booleans(), top.members[source].instances)).map(with_copy)
    if definitions:
        schema["$defs"] = definitions
    if draw(st.integers(0, 3)) == 0:
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return Schema(schema, instances)


@st.composite
def output_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """An outputSchema: an object, like inputSchema (its instances are not needed)."""
    return draw(input_schemas(depth=3)).schema


# Tools that `lock` must refuse (and list under `rejected`) while locking the others.
BROKEN_TOOLS: tuple[Callable[[str], dict[str, Any]], ...] = (
    lambda n: {"name": n, "inputSchema": {"type": "array"}},
    lambda n: {"name": n, "inputSchema": {"type": "object", "properties": {"a": {"type": "nope"}}}},
    lambda n: {"name": n},
    lambda n: {"name": n, "inputSchema": {"type": "object"}, "outputSchema": {"type": "string"}},
    lambda n: {"name": n, "inputSchema": {"type": "object", "properties": {"n": {"minimum": "zero"}}}},
    lambda n: {"name": n, "inputSchema": {"type": "object", "minimum": 0, "exclusiveMinimum": True}},
    lambda n: {"name": n, "description": 5, "inputSchema": {"type": "object"}},
)


@st.composite
def fuzz_tools(draw: st.DrawFn, name: str) -> FuzzTool:
    """A sound tool, with 1-3 valid instances of its input schema."""
    schema = draw(input_schemas())
    tool: dict[str, Any] = {"name": name, "inputSchema": schema.schema}
    description = draw(descriptions())
    if description is not None:
        tool["description"] = description
    if draw(st.integers(0, 3)) == 0:
        tool["outputSchema"] = draw(output_schemas())
    if draw(st.integers(0, 4)) == 0:
        tool["title"] = draw(hostile_text(2))
    if draw(st.integers(0, 4)) == 0:
        tool["annotations"] = {"readOnlyHint": draw(st.booleans()), "title": draw(ANY_TEXT)}
    instances = tuple(draw(st.lists(schema.instances, min_size=1, max_size=3)))
    return FuzzTool(tool, instances)


@st.composite
def tool_lists(draw: st.DrawFn, max_tools: int = 5) -> ToolList:
    """A server's tool list: unique names, plus now and then a duplicate name or a broken tool."""
    names = draw(st.lists(tool_names(), min_size=1, max_size=max_tools, unique=True))
    tools = [draw(fuzz_tools(name)) for name in names]
    rejected: set[str] = set()
    if draw(st.integers(0, 5)) == 0:  # a name served twice: `lock` keeps neither copy
        twin = draw(st.sampled_from(names))
        copy = draw(st.one_of(st.just(next(t for t in tools if t.name == twin)), fuzz_tools(twin)))
        tools.insert(draw(st.integers(0, len(tools))), FuzzTool(copy.tool, (), reject=True))
        rejected.add(twin)
    if draw(st.integers(0, 5)) == 0:
        name = draw(tool_names().filter(lambda n: n not in names))
        broken = draw(st.sampled_from(BROKEN_TOOLS))(name)
        tools.insert(draw(st.integers(0, len(tools))), FuzzTool(broken, (), reject=True))
        rejected.add(name)
    locked = frozenset(names) - rejected
    return ToolList(tuple(tools), locked, frozenset(rejected))
