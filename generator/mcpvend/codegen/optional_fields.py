"""Optional properties written as the schema says: left out, or null only where null is allowed.

datamodel-code-generator (`strict_nullable`, `use_missing_sentinel`) decides which fields may be
left out without a default: it types them `T | MISSING = MISSING`, and `T` holds None exactly
when the schema admits null. pyright cannot read pydantic's sentinel (see
`runtime/wrappers/nullability.py`), so each such field is rewritten here:

    x: T | None | MISSING = MISSING  ->  x: T | None = None            (nullable; also `Any`: the schema `{}`)
    x: T | MISSING = MISSING         ->  x: T | None = _not_nullable() (None stands for "left out")

The rewrite edits the generator's text in place (no re-rendering), so everything else it wrote
stays as written; black formats the module afterwards.
"""

from __future__ import annotations

import ast

from mcpvend.errors import MCPVendError

SENTINEL = "MISSING"
# Imported under a private name: a class body evaluates defaults in its own namespace, where an
# earlier field (a property named `not_nullable`) would shadow it; field names never start with `_`.
MARKER = "_not_nullable"
MARKER_IMPORT = f"from .._runtime.wrappers.nullability import not_nullable as {MARKER}"


def rewrite_missing(source: str) -> str:
    """`source` with every `MISSING` field rewritten, its import dropped, and the marker imported if used."""
    text = _Text(source)
    edits: list[tuple[tuple[int, int], str]] = []
    marked = False
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and any(alias.name == SENTINEL for alias in node.names):
            edits.append((text.span(node), _without_sentinel(node)))
        elif isinstance(node, ast.AnnAssign) and node.value is not None and _is_sentinel(node.value):
            union = node.annotation
            if isinstance(union, ast.Subscript) and text[union.value] == "Annotated":
                union = union.slice.elts[0] if isinstance(union.slice, ast.Tuple) else union.slice
            kind, nullable = _union(text, union)
            marked |= not nullable
            edits += [(text.span(union), kind), (text.span(node.value), "None" if nullable else f"{MARKER}()")]
    rewritten = text.replaced(edits)
    if marked:
        rewritten = _import_marker(rewritten)
    if any(isinstance(n, ast.Name) and n.id == SENTINEL for n in ast.walk(ast.parse(rewritten))):
        raise MCPVendError("datamodel-code-generator wrote MISSING where mcpvend does not expect it")
    return rewritten


def _is_sentinel(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == SENTINEL


def _union(text: _Text, node: ast.expr) -> tuple[str, bool]:
    """`T | MISSING` as `T | None`, and whether null is a value of `T` (None in it, or `Any`: the schema `{}`)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and _is_sentinel(node.right)):
        raise MCPVendError(f"datamodel-code-generator wrote an unexpected optional field type: {ast.unparse(node)}")
    members: list[ast.expr] = []
    rest: ast.expr = node.left
    while isinstance(rest, ast.BinOp) and isinstance(rest.op, ast.BitOr):
        members.append(rest.right)
        rest = rest.left
    members.append(rest)
    if any(isinstance(m, ast.Constant) and m.value is None for m in members):
        return text[node.left], True
    return f"{text[node.left]} | None", any(isinstance(m, ast.Name) and m.id == "Any" for m in members)


def _without_sentinel(node: ast.ImportFrom) -> str:
    names = [alias for alias in node.names if alias.name != SENTINEL]
    return f"from {node.module} import {', '.join(ast.unparse(a) for a in names)}" if names else ""


def _import_marker(source: str) -> str:
    """The marker's import, as its own block after the module's last import (isort's local section)."""
    tree = ast.parse(source)
    last = max(n.end_lineno or n.lineno for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom))
    lines = source.splitlines(keepends=True)
    return "".join(lines[:last]) + f"\n{MARKER_IMPORT}\n" + "".join(lines[last:])


class _Text:
    """Source text addressed as `ast` addresses it: lines, and columns in UTF-8 bytes."""

    def __init__(self, source: str) -> None:
        self.data = source.encode("utf-8")
        self.starts = [0] + [i + 1 for i, byte in enumerate(self.data) if byte == 0x0A]

    def span(self, node: ast.expr | ast.stmt) -> tuple[int, int]:
        end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
        return self.starts[node.lineno - 1] + node.col_offset, self.starts[end_line - 1] + end_col

    def __getitem__(self, node: ast.expr | ast.stmt) -> str:
        start, end = self.span(node)
        return self.data[start:end].decode("utf-8")

    def replaced(self, edits: list[tuple[tuple[int, int], str]]) -> str:
        data = self.data
        for (start, end), text in sorted(edits, reverse=True):  # from the end: earlier offsets stay valid
            data = data[:start] + text.encode("utf-8") + data[end:]
        return data.decode("utf-8")
