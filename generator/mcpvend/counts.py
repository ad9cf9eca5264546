"""Counts in words, for every line a person reads: `1 tool`, `13 tools`."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 finding`, `2 findings` (`many` where adding an `s` is wrong)."""
    return f"{count} {word if count == 1 else many or word + 's'}"
