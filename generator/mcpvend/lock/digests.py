"""Digests of lockfile content: SHA-256 over the RFC 8785 (JCS) canonical form of each value.

JCS is a published standard with implementations in many languages, so a digest in a lockfile
can be reproduced anywhere, not only by mcpvend. JCS treats every number as an IEEE 754 double
(as JavaScript does): an integer beyond 2**53 is canonicalized as the double it rounds to, which
the `rfc8785` package otherwise refuses to guess.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import rfc8785

DIGESTED_FIELDS = ("description", "inputSchema", "outputSchema", "annotations")
_SAFE_INTEGER = 2**53 - 1


class NumberOutOfRange(ValueError):
    """A value holds an integer no IEEE 754 double can stand for (10**400): it has no JCS form."""


def canonical(value: Any) -> bytes:
    """The JCS bytes of a JSON value."""
    return rfc8785.dumps(_as_doubles(value))


def digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical(value)).hexdigest()


def tool_digests(tool: Mapping[str, Any]) -> dict[str, str | None]:
    """Digests of the parts a reviewer cares about separately, and of the whole tool."""
    parts: dict[str, str | None] = {key: digest(tool[key]) if key in tool else None for key in DIGESTED_FIELDS}
    parts["tool"] = digest(tool)
    return parts


def _as_doubles(value: Any) -> Any:
    """`value` with every integer JCS cannot write exactly replaced by the double it stands for."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) <= _SAFE_INTEGER:
            return value
        try:
            return float(value)
        except OverflowError:
            digits = int(value.bit_length() * 0.30103) + 1  # str() itself refuses past 4,300 digits
            raise NumberOutOfRange(f"a number of about {digits} digits, beyond what JSON numbers hold") from None
    if isinstance(value, dict):
        return {key: _as_doubles(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_doubles(item) for item in value]
    return value
