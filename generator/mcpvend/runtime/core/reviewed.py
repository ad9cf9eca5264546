"""`TOOLS`: a generated server's reviewed tools as data, one immutable record per tool.

For code that works over tools rather than calling one by name: a framework adapter, an
approval list built from the annotations, documentation, a test that walks every tool. Each
record ties the lockfile's definition (what was reviewed) to what the package made of it (the
models, the wrapper method, the name a `ToolSet` gives it), so nobody reads `manifest.json`.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..client.manifest import load_manifest
from .names import provider_names

__all__ = ["ReviewedTool", "reviewed_tools"]


@dataclass(frozen=True)
class ReviewedTool:
    """One tool as reviewed in its lockfile, and the code generated for it.

    Frozen and hashable; the schemas and annotations are handed out as fresh copies (the
    reviewed JSON, in the order the server served it), so no caller can change them for another.
    """

    server: str
    name: str  # the wire name, as the server serves it
    provider: str  # the name a ToolSet of this server gives it (`server__tool`, see names.py)
    method: str  # the wrapper: `getattr(tools, entry.method)` on a connected `Tools`
    title: str | None
    description: str | None
    input_model: type[BaseModel]
    output_model: type[BaseModel] | None  # None: the tool has no outputSchema, the wrapper returns ToolResult
    definition_json: str = field(repr=False)  # the whole tool as reviewed, as JSON text

    @property
    def definition(self) -> dict[str, Any]:
        """The whole tool as reviewed: every field the server sent (`_meta`, `icons`, ... included)."""
        value: dict[str, Any] = json.loads(self.definition_json)
        return value

    @property
    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = self.definition["inputSchema"]
        return schema

    @property
    def output_schema(self) -> dict[str, Any] | None:
        schema = self.definition.get("outputSchema")
        return schema if isinstance(schema, dict) else None

    @property
    def annotations(self) -> dict[str, Any] | None:
        """The reviewed hints (`readOnlyHint`, `destructiveHint`, ...), as served; None when there are none."""
        hints = self.definition.get("annotations")
        return hints if isinstance(hints, dict) else None


def reviewed_tools(package: str) -> tuple[ReviewedTool, ...]:
    """The `TOOLS` of a generated server subpackage, in its lockfile's order (by wire name).

    `provider` is the name `toolset()` gives the tool beside this server's own: over several
    servers, only two names that would otherwise meet (`a__b`/`c` and `a`/`b__c`) differ.
    """
    manifest = load_manifest(package)
    models = importlib.import_module(f"{package}.models")
    providers = provider_names((manifest.server, tool["name"]) for tool in manifest.reviewed)
    records = []
    for item in manifest.tools:
        tool = item["tool"]
        records.append(
            ReviewedTool(
                server=manifest.server,
                name=tool["name"],
                provider=providers[(manifest.server, tool["name"])],
                method=item["method"],
                title=_text(tool.get("title")),
                description=_text(tool.get("description")),
                input_model=getattr(models, item["input"]),
                output_model=getattr(models, item["output"]) if item.get("output") else None,
                definition_json=json.dumps(tool, ensure_ascii=False),
            )
        )
    return tuple(records)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
