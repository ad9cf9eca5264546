# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""What the meta-tools answer (search_tools, list_categories, browse_category, get_tool_schema),
from the catalog as the current step sees it: plain data the toolset hands the model as JSON.

`call_tool` is not here: it is a call, and the toolset runs it like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .catalog import Catalog, Entry

PAGE_SIZE = 20


class Wrong(Exception):
    """A meta-tool call the model can correct (an unknown category, page or tool)."""


def answer(
    name: str,
    arguments: Mapping[str, Any],
    catalog: Catalog,
    *,
    search: Callable[[str, int], list[Entry]],
    lookup: Callable[[str], tuple[Entry | None, str]],
) -> dict[str, Any]:
    """The answer to one meta-tool call whose arguments are valid; raises `Wrong`."""
    if name == "search_tools":
        listing = [_listing(e) for e in search(arguments["query"], arguments.get("limit", 10))]
        found: dict[str, Any] = {"tools": listing}
        if not listing:
            found["hint"] = "no tool matched: try other words, or list_categories and browse_category"
        return found
    if name == "list_categories":
        return {
            "categories": [
                {"name": c.name, "kind": c.kind, "tools": len(c.providers)} for c in catalog.categories.values()
            ]
        }
    if name == "browse_category":
        return _browse(catalog, arguments["category"], arguments.get("page", 1))
    entry, problem = lookup(arguments["name"])
    if entry is None:
        raise Wrong(problem)
    return _schema(entry)


def _listing(entry: Entry) -> dict[str, str]:
    return {"name": entry.provider, "description": entry.summary}


def _browse(catalog: Catalog, category: str, page: int) -> dict[str, Any]:
    found = catalog.categories.get(category)
    if found is None:
        raise Wrong(f"unknown category {category!r}; the categories are: {', '.join(catalog.categories)}")
    pages = max(1, -(-len(found.providers) // PAGE_SIZE))
    if page > pages:
        raise Wrong(f"category {category!r} has {pages} page(s); page {page} does not exist")
    names = found.providers[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    tools = [_listing(catalog.by_provider[n]) for n in names]
    return {"category": category, "page": page, "pages": pages, "tools": tools}


def _schema(entry: Entry) -> dict[str, Any]:
    schema: dict[str, Any] = {"name": entry.provider, "description": entry.description}
    schema["inputSchema"] = entry.input_schema
    if entry.output_schema is not None:
        schema["outputSchema"] = entry.output_schema
    if isinstance(entry.tool.get("annotations"), Mapping):
        schema["annotations"] = entry.tool["annotations"]
    return schema
