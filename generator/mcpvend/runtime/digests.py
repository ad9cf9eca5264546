"""Digests over canonical JSON: the same bytes at lock time and at run time (pinning)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

DIGESTED_FIELDS = ("description", "inputSchema", "outputSchema", "annotations")


def canonical(value: Any) -> bytes:
    """The one byte form digests are taken over: sorted keys, compact, UTF-8, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical(value)).hexdigest()


def tool_digests(tool: Mapping[str, Any]) -> dict[str, str | None]:
    """Digests of the parts a reviewer cares about separately, and of the whole tool."""
    parts: dict[str, str | None] = {key: digest(tool[key]) if key in tool else None for key in DIGESTED_FIELDS}
    parts["tool"] = digest(tool)
    return parts
