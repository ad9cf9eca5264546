"""Python names for untrusted wire names: valid, non-shadowing, and stable.

A name depends only on the wire name it comes from, so adding, removing or reordering
one tool cannot rename another. The one exception is a collision after sanitizing, and
then only the colliding names change: a name that is already its own wire name keeps it,
the others take a suffix derived from their own wire name.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping

from mcpvend.codegen.reserved import BASEMODEL_ATTRIBUTES, BUILTINS, KEYWORDS, SOFT_KEYWORDS

# Public names a generated `Tools` class defines, inherits or evaluates in its body: a tool method
# must not replace them. Everything `ToolsBase` holds is private and the class body evaluates only
# `_overload`, so no public name is taken; tests/test_naming.py holds this equal to the real class.
TOOLS_ATTRIBUTES: frozenset[str] = frozenset()
# Lower-case names the package root defines (templates/package_init.py.jinja): a subpackage of that
# name would replace them as an attribute of the package.
PACKAGE_NAMES = frozenset({"toolset", "from_wire", "hybrid"})
_SHADOWING = KEYWORDS | SOFT_KEYWORDS | BUILTINS | frozenset({"self", "cls", "arguments"})
_MODEL_ATTRIBUTES = BASEMODEL_ATTRIBUTES
_PROTECTED = ("model_validate", "model_dump")  # pydantic's protected namespaces
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")


def short_hash(text: str, length: int = 6) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def _words(text: str) -> list[str]:
    """ASCII words of any text: accents folded, camelCase and separators split, the rest dropped."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return [w for part in re.split(r"[^A-Za-z0-9]+", folded) for w in _WORD.findall(part)]


def snake(text: str, *, fallback: str) -> str:
    """A lower_snake identifier for `text`; `fallback` + a hash when nothing ASCII is left."""
    words = [w.lower() for w in _words(text)]
    name = "_".join(words) if words else f"{fallback}_{short_hash(text)}"
    return f"n{name}" if name[0].isdigit() else name


def pascal(text: str, *, fallback: str) -> str:
    words = _words(text)
    name = "".join(w[:1].upper() + w[1:] for w in words) if words else f"{fallback.title()}{short_hash(text)}"
    return f"N{name}" if name[0].isdigit() else name


def safe(name: str, reserved: Iterable[str] = ()) -> str:
    """`name`, with `_` appended while it is a keyword, builtin or other reserved word."""
    taken = _SHADOWING | frozenset(reserved)
    while name in taken:
        name += "_"
    return name


def method_names(wire_names: Iterable[str], renames: Mapping[str, str] | None = None) -> dict[str, str]:
    """The Python method name of each tool: the user's rename, else its snake-cased wire name."""
    renames = renames or {}
    candidates = {w: renames.get(w) or safe(snake(w, fallback="tool"), TOOLS_ATTRIBUTES) for w in wire_names}
    return disambiguate(candidates)


def class_names(method_names: Mapping[str, str]) -> dict[str, str]:
    """The class-name stem of each tool (its models are `<stem>Input` / `<stem>Output`)."""
    # datamodel-code-generator keeps alphanumeric PascalCase names as they are: no `_` in the suffix.
    return disambiguate({w: pascal(m, fallback="tool") for w, m in method_names.items()}, joiner="")


def disambiguate(candidates: Mapping[str, str], joiner: str = "_") -> dict[str, str]:
    """Make candidate names unique without letting one name's fate depend on an unrelated one."""
    groups: dict[str, list[str]] = {}
    for wire, name in candidates.items():
        groups.setdefault(name, []).append(wire)
    result: dict[str, str] = {}
    for name, wires in groups.items():
        for wire in wires:
            keep = len(wires) == 1 or wire == name
            suffix = short_hash(wire) if joiner else short_hash(wire).capitalize()
            result[wire] = name if keep else f"{name}{joiner}{suffix}"
    return result


def field_alias(property_name: str) -> str | None:
    """The Python field name for a property whose own name would shadow, or is not plain ASCII.

    Keywords, dashes, dots and leading digits are left to datamodel-code-generator, which
    handles them; it would keep `id`, `type`, `self`, `json` or `naïve` as they are, and pydantic
    warns on import about a field in its protected namespaces (`model_validate...`, `model_dump...`).
    """
    if not property_name.isascii():
        return _unprotected(safe(snake(property_name, fallback="field"), _MODEL_ATTRIBUTES))
    if property_name.startswith(_PROTECTED):
        return f"field_{property_name}"
    if property_name in KEYWORDS or property_name not in _SHADOWING | _MODEL_ATTRIBUTES:
        return None
    return safe(property_name, _MODEL_ATTRIBUTES)


def _unprotected(name: str) -> str:
    return f"field_{name}" if name.startswith(_PROTECTED) else name


def field_aliases(property_names: Iterable[str]) -> dict[str, str]:
    """The field name of every property that `field_alias` renames, for one server's models.

    datamodel-code-generator applies these everywhere and refuses one that equals another
    field's name (`naïve` and `naive` in one object), so an alias meeting another property's
    name, or its snake_case spelling, takes a suffix from its own wire name.
    """
    names = set(property_names)
    aliases = disambiguate({p: a for p in sorted(names) if (a := field_alias(p)) is not None})
    plain = names - aliases.keys()
    taken = plain | {snake(p, fallback="field") for p in plain}
    return {p: f"{a}_{short_hash(p)}" if a in taken else a for p, a in sorted(aliases.items())}


def subpackage(server: str) -> str:
    """The subpackage of a server: a module name that shadows nothing in the generated package."""
    return safe(snake(server, fallback="server"), {"_runtime", "models", "tools", "manifest", *PACKAGE_NAMES})
