"""The runtime every generated package carries in `_runtime/`: mcpvend's own `runtime/`, copied as it is."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from mcpvend import __version__

RUNTIME = Path(__file__).resolve().parent.parent / "runtime"


def runtime_modules() -> list[str]:
    """Every module of the runtime, by path under it: what is there is what ships (no list kept by hand)."""
    found = []
    for folder, dirs, names in os.walk(RUNTIME):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        where = os.path.relpath(folder, RUNTIME).replace(os.sep, "/")
        found += [name if where == "." else f"{where}/{name}" for name in names if name.endswith(".py")]
    return sorted(found)


def runtime_header() -> str:
    """The one line a vendored module has above mcpvend's own: `diff -r` against a release shows only it."""
    return f"# Vendored from mcpvend {__version__} by `mcpvend generate`: do not edit.\n"


def runtime_sources() -> list[tuple[str, str]]:
    """Each runtime module's source as mcpvend holds it, for the fingerprint of `generate --check`."""
    return [(module, (RUNTIME / module).read_text(encoding="utf-8")) for module in runtime_modules()]


@cache
def vendored_runtime() -> dict[str, str]:
    """The runtime's modules as the package holds them: byte for byte, under one header line."""
    header = runtime_header()
    return {f"_runtime/{module}": header + source for module, source in runtime_sources()}
