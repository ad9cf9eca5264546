# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Tool specs for provider APIs as plain dicts, the meta-tools, and what each mode costs in tokens.

Plain dicts because the runtime must not depend on a provider SDK; built the same way every
time (fixed key order, reviewed text only) so that a provider's prompt cache keeps hitting.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from .catalog import Entry, summary

Format = Literal["openai", "openai-responses", "anthropic", "mcp"]
FORMATS: tuple[Format, ...] = ("openai", "openai-responses", "anthropic", "mcp")
Mode = Literal["direct", "compact", "routed", "code"]
CHARS_PER_TOKEN = 4  # a common estimate: len(json.dumps(spec)) // 4
COMPACT_TOKENS = 40  # what one tool costs in a compact listing at most, unless its name alone nearly does
COMPACT_MIN_CHARS = 24  # of description, which a tool keeps in a compact listing however long its name
# Compact mode lists a tool without its schema; the model may still call it with any object. That is
# open by JSON Schema's own rule, and providers send it as it is; but a framework or a strict mode
# closes an object that does not say it is open (then only `{}` can be sent), so wherever one of them
# may see it, it says so (`OPEN_ARGUMENTS`). The plain listing keeps the short form: each compact tool
# would otherwise cost 7 tokens more, most of what a one-line description leaves (issue 18).
OPEN_OBJECT: Mapping[str, Any] = {"type": "object"}
OPEN_ARGUMENTS: Mapping[str, Any] = {"type": "object", "additionalProperties": True}


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it, before it is put into one provider's format."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    title: str | None = None
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] | None = None

    def render(self, fmt: Format, *, strict: bool = False) -> dict[str, Any]:
        """`strict`: the input schema is in the provider's strict form (see `strict.py`), and the spec says so."""
        flag = {"strict": True} if strict else {}
        function = {"name": self.name, "description": self.description, "parameters": dict(self.input_schema)}
        if fmt == "openai":
            return {"type": "function", "function": {**function, **flag}}
        if fmt == "openai-responses":  # Responses makes a tool strict if it can, unless told: always say
            return {"type": "function", **function, "strict": strict}
        if fmt == "anthropic":
            return {"name": self.name, "description": self.description, "input_schema": dict(self.input_schema), **flag}
        if fmt == "mcp":
            spec: dict[str, Any] = {"name": self.name}
            if self.title is not None:
                spec["title"] = self.title
            spec["description"] = self.description
            spec["inputSchema"] = dict(self.input_schema)
            if self.output_schema is not None:
                spec["outputSchema"] = dict(self.output_schema)
            if self.annotations is not None:
                spec["annotations"] = dict(self.annotations)
            return spec
        raise ValueError(f"unknown tool spec format {fmt!r}; use one of {', '.join(FORMATS)}")


def opened(spec: ToolSpec) -> ToolSpec:
    """A compact placeholder as a framework or strict mode must get it: saying it is open, or they close it."""
    return replace(spec, input_schema=OPEN_ARGUMENTS) if spec.input_schema is OPEN_OBJECT else spec


def full_spec(entry: Entry) -> ToolSpec:
    """Direct mode: the reviewed description and schemas, in full."""
    title = entry.tool.get("title")
    annotations = entry.tool.get("annotations")
    return ToolSpec(
        name=entry.provider,
        description=entry.description,
        input_schema=entry.input_schema,
        title=title if isinstance(title, str) else None,
        output_schema=entry.output_schema,
        annotations=annotations if isinstance(annotations, Mapping) else None,
    )


def compact_spec(entry: Entry) -> ToolSpec:
    """Compact mode: name and one line; `get_tool_schema` gives the rest when the model needs it.

    The line is the description's first sentence, cut to what the name and the JSON around it
    leave of `COMPACT_TOKENS` as the spec is sent (`sent_chars`): a short name leaves room for more
    words, and a description in another script, whose every character is sent escaped (`\\u4e0a`),
    for fewer characters.
    """
    bare = ToolSpec(name=entry.provider, description="", input_schema=OPEN_OBJECT)
    room = COMPACT_TOKENS * CHARS_PER_TOKEN - sent_chars(bare)
    return replace(bare, description=_fitted(entry.description, max(room, COMPACT_MIN_CHARS)))


def sent_chars(spec: ToolSpec) -> int:
    """The characters of a spec as a provider receives it: compact JSON, every non-ASCII character escaped."""
    return len(json.dumps(spec.render("openai"), separators=(",", ":")))


def _fitted(description: str | None, room: int) -> str:
    """The longest one-line summary whose escaped JSON string fits `room` characters."""

    def cost(text: str) -> int:
        return len(json.dumps(text)) - 2  # without the quotes

    longest, shortest = room, 1
    if cost(text := summary(description, longest)) <= room:
        return text
    while shortest < longest:  # the summary grows with its limit: the largest limit that fits
        middle = (shortest + longest + 1) // 2
        shortest, longest = (middle, longest) if cost(summary(description, middle)) <= room else (shortest, middle - 1)
    return summary(description, shortest)


def _schema(properties: Mapping[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema


_NAME = {"type": "string", "description": "The tool's name as listed (e.g. `server__tool`)."}
GET_TOOL_SCHEMA = ToolSpec(
    "get_tool_schema",
    "Get the full description and JSON Schema of a tool's arguments. Call it before calling a tool you "
    "have not used yet.",
    _schema({"name": _NAME}, ["name"]),
)
META_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "search_tools",
        "Search the available tools by what they do. Returns tool names and one-line descriptions, best first.",
        _schema(
            {
                "query": {"type": "string", "description": "What you want to do, in a few words."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            },
            ["query"],
        ),
    ),
    ToolSpec(
        "list_categories",
        "List the tool categories (servers and bundles) with how many tools each has.",
        _schema({}),
    ),
    ToolSpec(
        "browse_category",
        "List the tools of one category, a page at a time, with one-line descriptions.",
        _schema(
            {
                "category": {"type": "string", "description": "A category name from list_categories."},
                "page": {"type": "integer", "minimum": 1, "default": 1},
            },
            ["category"],
        ),
    ),
    GET_TOOL_SCHEMA,
    ToolSpec(
        "call_tool",
        "Call a tool by name with its arguments (see get_tool_schema for what they must be).",
        _schema(
            {
                "name": _NAME,
                "arguments": {**OPEN_ARGUMENTS, "description": "The tool's arguments."},
            },
            ["name"],
        ),
    ),
)
META_NAMES = frozenset(spec.name for spec in META_TOOLS)
CALL_TOOL = META_TOOLS[-1]

# A provider's own tool search, sent (never deferred) beside tools marked `defer_loading`; the type
# names are version-stamped by the providers, which take up to 10,000 tools in a catalog.
PROVIDER_TOOL_SEARCH: Mapping[str, Mapping[str, str]] = {
    "anthropic": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "openai-responses": {"type": "tool_search"},
}
MAX_DEFERRED_TOOLS = 10_000


def with_tool_search(rendered: Sequence[dict[str, Any]], fmt: Format) -> list[dict[str, Any]]:
    """Rendered specs marked for the provider's tool search to load on demand, after that search tool."""
    search = PROVIDER_TOOL_SEARCH.get(fmt)
    if search is None:
        known = " and ".join(PROVIDER_TOOL_SEARCH)
        raise ValueError(f"deferred tool specs are for {known} (their own tool search), not {fmt!r}")
    if len(rendered) > MAX_DEFERRED_TOOLS:
        raise ValueError(f"{len(rendered)} tools: a provider's tool search takes at most {MAX_DEFERRED_TOOLS}")
    return [dict(search), *({**spec, "defer_loading": True} for spec in rendered)]


def tokens(specs: Sequence[ToolSpec]) -> int:
    """Estimated prompt tokens: `json.dumps` of each spec in OpenAI form, 4 characters a token (a common estimate)."""
    return sum(len(json.dumps(s.render("openai"), ensure_ascii=False)) // CHARS_PER_TOKEN for s in specs)
