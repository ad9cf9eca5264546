"""What a report is made of: the findings between two sides (a lockfile and another, or its live server)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mcpvend.drift.compare import Finding

Format = Literal["text", "json", "markdown", "sarif"]
Command = Literal["diff", "lint"]


@dataclass(frozen=True)
class Section:
    """The findings between two sides, e.g. a lockfile and its live server."""

    old: str
    new: str
    findings: Sequence[Finding]
    ignored: Sequence[Finding] = ()  # reviewed exceptions: counted, never failing
    artifact: str | None = None  # the lockfile the findings are located in (SARIF), as given
    document: Mapping[str, Any] | None = None  # its content
