"""The `slow-pattern` lint rule: schema patterns a backtracking regex engine may take exponential time on.

The generated runtime searches patterns in linear time (runtime/core/patterns.py), but the server
validates the same arguments with its own engine, usually a backtracking one (JavaScript's, Python's
`re`), and other clients of the lockfile may too: `^(a+)+$` and a 30-character argument can hold
either for minutes. The test is the runtime's own (`patterns.backtracks`), so lint flags exactly the
patterns the runtime would refuse to hand to `re`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mcpvend.runtime.core.patterns import backtracks
from mcpvend.schema_walk import escape, walk


def slow_patterns(tool: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    """`(JSON Pointer, pattern, why)` for each `pattern` and `patternProperties` key that backtracks."""
    for key in ("inputSchema", "outputSchema"):
        for pointer, node in walk(tool.get(key), f"/{key}"):
            found = [(f"{pointer}/pattern", node.get("pattern"))]
            if isinstance(keyed := node.get("patternProperties"), Mapping):
                found += [(f"{pointer}/patternProperties/{escape(str(p))}", p) for p in keyed]
            for where, pattern in found:
                if isinstance(pattern, str) and (why := backtracks(pattern)) is not None:
                    yield where, pattern, why
