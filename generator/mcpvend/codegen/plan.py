"""Everything the templates print, decided before any template runs: names, types, literals."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcpvend.codegen.models import Field, Models


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str
    default: str | None  # None: required

    def source(self) -> str:
        return f"{self.name}: {self.annotation}" + ("" if self.default is None else f" = {self.default}")


@dataclass(frozen=True)
class ToolPlan:
    """One wrapper method."""

    wire_name: str
    method: str
    stem: str
    input_class: str
    output_class: str | None
    root_input: str | None  # the root type when the input model is a RootModel
    params: tuple[Param, ...]
    docstring: str | None  # a Python string literal whose value is the reviewed description

    @property
    def wire_literal(self) -> str:
        return repr(self.wire_name)

    @property
    def returns(self) -> str:
        return self.output_class or "ToolResult"

    @property
    def keyword_signature(self) -> str:
        """The keyword-only part of the signature: required parameters first."""
        ordered = [p for p in self.params if p.default is None] + [p for p in self.params if p.default is not None]
        return ", ".join(["*", *(p.source() for p in ordered)]) if ordered else ""

    @property
    def classes(self) -> list[str]:
        return [self.input_class] + ([self.output_class] if self.output_class else [])


def tool_plans(
    tools: list[dict[str, Any]], methods: Mapping[str, str], stems: Mapping[str, str], models: Models
) -> list[ToolPlan]:
    """The wrapper of each tool; `methods` and `stems` come from `naming`, by wire name."""
    plans = []
    for tool in tools:
        stem = stems[tool["name"]]
        input_class = models.input_class(stem)
        fields = models.fields[input_class]
        root = fields[0].annotation if models.is_root(input_class) else None
        description = tool.get("description")
        plans.append(
            ToolPlan(
                wire_name=tool["name"],
                method=methods[tool["name"]],
                stem=stem,
                input_class=input_class,
                output_class=models.output_class(stem) if isinstance(tool.get("outputSchema"), dict) else None,
                root_input=root,
                params=() if root else tuple(_param(f) for f in fields),
                docstring=docstring_literal(description) if isinstance(description, str) else None,
            )
        )
    return plans


# What the wrapper module's template uses whatever the tools are.
_TEMPLATE_IMPORTS = {
    "collections.abc": {"Mapping"},
    "contextlib": {"AbstractAsyncContextManager"},
}


def import_lines(plans: list[ToolPlan], models: Models) -> list[list[str]]:
    """The import groups (standard library, third party) the wrapper module needs, sorted like isort.

    `overload` is imported as `_overload`: the class body evaluates it after each method, so a tool
    method of that name would replace it for the methods below.
    """
    used = set().union(*(_names(plan) for plan in plans))
    by_module: dict[str, set[str]] = {module: set(names) for module, names in _TEMPLATE_IMPORTS.items()}
    renamed: dict[str, set[str]] = {}
    if any(plan.root_input is None for plan in plans):
        by_module.setdefault("typing", set()).add("Any")
        renamed.setdefault("typing", set()).add("overload as _overload")
    for name in used - models.classes:
        if name in models.imports:
            by_module.setdefault(models.imports[name], set()).add(name)
    groups: list[list[str]] = [[], []]
    for module in sorted(by_module.keys() | renamed.keys()):
        group = groups[0] if module.split(".")[0] in sys.stdlib_module_names else groups[1]
        if by_module.get(module):
            group.append(f"from {module} import {', '.join(sorted(by_module[module], key=isort_key))}")
        group += [f"from {module} import {name}" for name in sorted(renamed.get(module, ()))]
    return groups


def runtime_imports(plans: list[ToolPlan]) -> list[str]:
    """What the wrapper module imports from the vendored runtime."""
    return sorted(
        {"ElicitationFnT", "InputHandlers", "ListRootsFnT", "Pinning", "SamplingFnT", "ToolsBase", "open_tools"}
        | ({"ToolResult"} if any(not p.output_class for p in plans) else set()),
        key=isort_key,
    )


def model_imports(plans: list[ToolPlan], models: Models) -> list[str]:
    """The classes the wrapper module imports from `.models`, sorted."""
    names = {c for plan in plans for c in plan.classes}
    names |= set().union(*(_names(plan) for plan in plans)) & models.classes
    return sorted(names, key=isort_key)


def isort_key(name: str) -> tuple[int, list[str | int], str]:
    """How isort and ruff order imported names: CONSTANTS, Classes, functions; then case-insensitively, naturally."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    natural: list[str | int] = [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name.lower())]
    return kind, natural, name


def _names(plan: ToolPlan) -> set[str]:
    """Every name the signature of a wrapper mentions."""
    texts = [p.annotation for p in plan.params] + ([plan.root_input] if plan.root_input else [])
    return {n.id for text in texts for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}


def _param(field: Field) -> Param:
    """A signature parameter for a model field: an optional one also takes None, meaning "not given".

    The model may refuse None (a property that is not nullable): the wrapper leaves a None out of
    the call, and the server applies its own default. A default that is not an immutable literal
    becomes None too: a mutable default in a signature would be shared between calls.
    """
    if field.default is None:
        return Param(field.name, field.annotation, None)
    default = field.default if _immutable_literal(field.default) else "None"
    return Param(field.name, _optional(field.annotation), default)


def _immutable_literal(source: str) -> bool:
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError):
        return False
    return _immutable(value)


def _immutable(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return value is None or isinstance(value, str | bytes | int | float | complex | bool)


def _optional(annotation: str) -> str:
    node = ast.parse(annotation, mode="eval").body
    members: list[ast.expr] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members.append(node.right)
        node = node.left
    members.append(node)
    has_none = any(isinstance(m, ast.Constant) and m.value is None for m in members)
    return annotation if has_none else f"{annotation} | None"


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def docstring_literal(text: str) -> str:
    """A one-line triple-quoted literal whose value is exactly `text`, whatever it holds.

    Everything that could end the literal, be invisible in review, or be changed by black's
    docstring handling (line breaks, leading and trailing blanks) is written as an escape.
    """
    body = "".join(_ESCAPES.get(char, char if char.isprintable() else escape(char)) for char in text)
    body = re.sub(r"^ +| +$", lambda m: "\\x20" * len(m.group()), body)
    # Black puts a space before the closing quotes of a docstring that ends in a quote or backslash.
    body = re.sub(r'(\\"|\\\\)$', lambda m: "\\x22" if m.group() == '\\"' else "\\x5c", body)
    return f'"""{body}"""'


def comment_text(text: str) -> str:
    """`text` for a `#` comment: anything that could end the line (and so start a statement) or hide in it
    is written as an escape (`\\n`, `\\u200b`), like the text of a docstring."""
    return "".join(char if char.isprintable() else escape(char) for char in text)


def escape(char: str) -> str:
    """A character as the escape a Python string literal would write for it."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
