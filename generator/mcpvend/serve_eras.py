"""What `mcpvend serve` sends a client of a handshake era (2025-11-25 and before): only what that era can hold.

A 2026-07-28 server's reviewed tool may have any output schema and return any structured result;
2025-11-25 holds only objects, and the SDK sends nothing its era's schema rejects (the whole listing
would fail: `Handler returned an invalid result`). So such a client gets that tool without its output
schema, as a tool that declares none, and its results without structured content (their text carries
it); a tool that still does not fit is left out, with a warning on serve's stderr. The era's schema,
the SDK's own, decides what fits.
"""

from __future__ import annotations

import logging
from typing import TypeVar

import mcp_types as types
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

logger = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


def era_tools(tools: list[types.Tool], version: str) -> list[types.Tool]:
    """`tools` as a client of `version` can be given them: each as reviewed, else without its output schema."""
    if version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return tools
    kept = []
    for tool in tools:
        shapes = (tool, _without(tool, "output_schema"))
        fitting = next((t for t in shapes if _fits("tools/list", version, types.ListToolsResult(tools=[t]))), None)
        if fitting is None:
            logger.warning("tool %r left out of a %s client's listing: that era cannot describe it", tool.name, version)
        else:
            kept.append(fitting)
    return kept


def era_result(result: types.CallToolResult, version: str) -> types.CallToolResult:
    """`result` as a client of `version` can be given it: whole, else without its structured content."""
    if version not in HANDSHAKE_PROTOCOL_VERSIONS or _fits("tools/call", version, result):
        return result
    return _without(result, "structured_content")


def _without(model: M, name: str) -> M:
    return model.model_copy(update={name: None})


def _fits(method: str, version: str, result: BaseModel) -> bool:
    """Whether `version`'s schema of `method`'s result (the SDK's, which it checks before sending) takes `result`."""
    try:
        methods.validate_server_result(
            method, version, result.model_dump(by_alias=True, mode="json", exclude_none=True)
        )
    except ValidationError:
        return False
    return True
