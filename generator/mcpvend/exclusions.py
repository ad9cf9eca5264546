"""Keeping a project's own formatter and linter off the generated package.

The package is byte-stable output that `generate --check` compares; a formatter that rewrites it
makes it stale, and a linter with the project's own rules flags code nobody is meant to edit.
`mcpvend init` adds the exclusion to `pyproject.toml` for ruff and black: a line inserted under
an existing table, or a table appended. Anything it cannot do safely (the key is already set to
something else, the table is written as dotted keys, ruff reads a `ruff.toml`) it leaves alone and
says what to add.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpvend.errors import read_failure
from mcpvend.runtime.client import files
from mcpvend.runtime.client.files import write_atomic

PYPROJECT = "pyproject.toml"
_RUFF_FILES = ("ruff.toml", ".ruff.toml")  # ruff reads these instead of pyproject.toml when present


@dataclass(frozen=True)
class Exclusion:
    tool: str  # "ruff" | "black"
    key: str
    value: str  # the TOML value, as written
    covers: re.Pattern[str]  # matches a value that already leaves the output out


def exclusions(output: str) -> tuple[Exclusion, ...]:
    quoted = re.escape(output)
    return (
        Exclusion("ruff", "extend-exclude", f'["{output}"]', re.compile(rf"(^|/){quoted}/?\Z")),
        Exclusion("black", "extend-exclude", f'"^/{output}/"', re.compile(rf"{quoted}")),
    )


def exclude_output(project: Path, output: str = "generated") -> list[str]:
    """Add the exclusions to `project/pyproject.toml` (created if missing); one line of news per tool.

    A pyproject.toml that cannot be read or written is news too, not an error: the config that
    `init` was asked for is written already, and the exclusions can be added by hand.
    """
    path = project / PYPROJECT
    manual = (
        "add the exclusions of the documentation's 'Generated code and your tools' "
        f"(Reference: The generated package) to {path} yourself"
    )
    try:
        original = files.read_text(path) if path.exists() else ""
        tools = tomllib.loads(original).get("tool", {}) if original else {}
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{path}: cannot read ({read_failure(exc)}): {manual}"]
    except tomllib.TOMLDecodeError as exc:
        return [f"{path}: invalid TOML ({exc}), not changed: {manual}"]
    text, news = original, []
    for exclusion in exclusions(output):
        text, said = _exclude(project, text, tools if isinstance(tools, dict) else {}, exclusion)
        news.append(said)
    if text != original:
        tomllib.loads(text)  # what we write must still be TOML: an error here is ours, not the user's
        try:
            write_atomic(path, text)
        except OSError as exc:
            return [f"{path}: cannot write ({exc.strerror or exc}): {manual}"]
    return news


def _exclude(project: Path, text: str, tools: dict[str, Any], exclusion: Exclusion) -> tuple[str, str]:
    """`text` with the exclusion added, and what happened."""
    line = f"{exclusion.key} = {exclusion.value}"
    by_hand = f"add `{line}` under [tool.{exclusion.tool}] yourself"
    if exclusion.tool == "ruff" and (found := [n for n in _RUFF_FILES if (project / n).exists()]):
        return text, f"ruff: reads {found[0]}, not {PYPROJECT}: add `{line}` there yourself"
    settings = tools.get(exclusion.tool)
    if settings is None:
        before = text if not text or text.endswith("\n") else f"{text}\n"
        gap = "\n" if before else ""
        return f"{before}{gap}[tool.{exclusion.tool}]\n{line}\n", f"{exclusion.tool}: excluded in {PYPROJECT}"
    present = settings.get(exclusion.key) if isinstance(settings, dict) else None
    if present is not None:
        values = present if isinstance(present, list) else [present]
        if any(isinstance(v, str) and exclusion.covers.search(v) for v in values):
            return text, f"{exclusion.tool}: already excluded in {PYPROJECT}"
        return text, f"{exclusion.tool}: {exclusion.key} is set already: {by_hand}"
    header = re.search(rf"^\[tool\.{exclusion.tool}\][ \t]*(#.*)?$", text, flags=re.MULTILINE)
    if header is None:  # written as dotted keys or inline: no safe place for one more line
        return text, f"{exclusion.tool}: {by_hand}"
    end = header.end()
    return f"{text[:end]}\n{line}{text[end:]}", f"{exclusion.tool}: excluded in {PYPROJECT}"
