# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The toolset core's options, grouped: how tools are searched and found, and how results come back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .catalog import RankerFactory
from .results import DEFAULT_MAX_CHARS

ModelSize = Literal["small", "medium", "large"]
MATERIALIZE_CAPS: dict[ModelSize, int] = {"small": 2, "medium": 5, "large": 10}  # found tools in the prompt


@dataclass(frozen=True)
class SearchOptions:
    """How tools are found: the ranker (`"bm25"`, `"hybrid"`, or a factory), and how many found tools routed
    mode offers directly (`max_materialized`, else by `model_size`: a small model picks worse from many)."""

    ranker: RankerFactory | str | None = None
    model_size: ModelSize = "medium"
    max_materialized: int | None = None

    @property
    def materialized_cap(self) -> int:
        return MATERIALIZE_CAPS[self.model_size] if self.max_materialized is None else self.max_materialized


@dataclass(frozen=True)
class ResultOptions:
    """How results come back: cut to `max_chars` characters; images and audio kept in `media_dir` (else memory)."""

    max_chars: int = DEFAULT_MAX_CHARS
    media_dir: str | None = None
