"""A lockfile's `source` field by field: what runs (command, args, cwd, env) or where credentials go (url,
headers, token, auth), compared so that each change names its field (`source.args[1]`) and shows its old and
new values with every literal credential masked.

Used by `diff` (two lockfiles) and by `generate --check` and `lint` (the config against its lockfile).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mcpvend.credentials import masked_source

# Fields that only say how long to wait, or which credentials listed the tools: worth a note, not a review.
MINOR_FIELDS = frozenset({"timeout", "listedWith"})


@dataclass(frozen=True)
class FieldChange:
    """One changed field of a source: its name as a reviewer reads it, and its values as a report may show them."""

    field: str  # "command", "args[1]", "url", "envValues.TZ", "headers", "auth.scopes", ...
    pointer: str  # RFC 6901 inside the lockfile: "/source/args/1"
    old: Any  # masked: a literal credential is "***"; None when the field was not there
    new: Any

    @property
    def minor(self) -> bool:
        return self.field.split(".", 1)[0].split("[", 1)[0] in MINOR_FIELDS


def changes(
    old: Mapping[str, Any], new: Mapping[str, Any], *, ignore: frozenset[str] = frozenset()
) -> list[FieldChange]:
    """Every field that differs between two sources, in a stable order; `ignore` leaves top-level keys out."""
    raw_old, raw_new = dict(old), dict(new)
    shown_old, shown_new = masked_source(raw_old), masked_source(raw_new)
    found: list[FieldChange] = []
    for key in sorted((raw_old.keys() | raw_new.keys()) - ignore):
        a, b = raw_old.get(key), raw_new.get(key)
        if _same(a, b):
            continue
        if key == "args" and isinstance(a, list) and isinstance(b, list):
            found += _list_changes(key, a, b, shown_old[key], shown_new[key])
        elif isinstance(a, Mapping) and isinstance(b, Mapping):
            found += _mapping_changes(key, a, b, shown_old[key], shown_new[key])
        else:
            found.append(FieldChange(key, f"/source/{key}", shown_old.get(key), shown_new.get(key)))
    return found


def _list_changes(
    key: str, a: list[Any], b: list[Any], shown_a: list[Any], shown_b: list[Any]
) -> Iterator[FieldChange]:
    """Arguments by position, aligned as a diff aligns lines: one inserted argument is one change, not a shift."""
    matcher = difflib.SequenceMatcher(a=[_dump(x) for x in a], b=[_dump(x) for x in b], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        at = j1 if op != "delete" else i1
        span = max(i2 - i1, j2 - j1)
        name = f"{key}[{at}]" if span == 1 else f"{key}[{at}:{at + span}]"
        old = None if op == "insert" else _one(shown_a[i1:i2])
        new = None if op == "delete" else _one(shown_b[j1:j2])
        yield FieldChange(name, f"/source/{key}/{at}", old, new)


def _mapping_changes(
    key: str, a: Mapping[str, Any], b: Mapping[str, Any], shown_a: Mapping[str, Any], shown_b: Mapping[str, Any]
) -> Iterator[FieldChange]:
    for inner in sorted(a.keys() | b.keys()):
        if not _same(a.get(inner), b.get(inner)):
            pointer = f"/source/{key}/{inner.replace('~', '~0').replace('/', '~1')}"
            yield FieldChange(f"{key}.{inner}", pointer, shown_a.get(inner), shown_b.get(inner))


def _one(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else values


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _same(a: Any, b: Any) -> bool:
    return _dump(a) == _dump(b)
