"""Python names for untrusted wire names: valid, non-shadowing, and stable.

A name depends only on the wire name it comes from, so adding, removing or reordering
one tool cannot rename another. The one exception is a collision after sanitizing, and
then only the colliding names change: a name that is already its own wire name keeps it,
the others take a suffix derived from their own wire name. A suffixed name is checked again
like any other (it may be another tool's own name, or meet another suffixed one) and takes a
longer hash, then a count, until no two names meet.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping

from mcpvend.codegen.reserved import BASEMODEL_ATTRIBUTES, BUILTINS, KEYWORDS, SOFT_KEYWORDS
from mcpvend.runtime import PUBLIC

# Public names a generated `Tools` class defines, inherits or evaluates in its body: a tool method
# must not replace them. Everything `ToolsBase` holds is private and the class body evaluates only
# `_overload`, so no public name is taken; tests/test_naming.py holds this equal to the real class.
TOOLS_ATTRIBUTES: frozenset[str] = frozenset()
# Lower-case names the package root defines (templates/package_init.py.jinja: `toolset` and the runtime's
# lower-case exports): a subpackage of that name would replace them as an attribute of the package.
PACKAGE_NAMES = frozenset({"toolset", *(name for name in PUBLIC if name.islower())})
_SHADOWING = KEYWORDS | SOFT_KEYWORDS | BUILTINS | frozenset({"self", "cls", "arguments"})
_MODEL_ATTRIBUTES = BASEMODEL_ATTRIBUTES
_PROTECTED = ("model_validate", "model_dump")  # pydantic's protected namespaces
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")
# The hash a name takes at its first, second and later collisions (64: all of SHA-256); then a count.
_HASH_LENGTHS = (6, 12, 64)
# Where a model class name may go on after a stem: every class of a tool is `<stem>Input...` or `<stem>Output...`.
_MODEL_SUFFIX = re.compile(r"(?=Input|Output)")


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


def class_names(method_names: Mapping[str, str], taken: Iterable[str] = ()) -> dict[str, str]:
    """The class-name stem of each tool (its models are `<stem>Input` / `<stem>Output`); `taken` stems
    are those the code generator gave another tool's classes, which must move too."""
    # datamodel-code-generator keeps alphanumeric PascalCase names as they are: no `_` in the suffix.
    candidates = {w: pascal(m, fallback="tool") for w, m in method_names.items()}
    return disambiguate(candidates, joiner="", refused=frozenset(taken).__contains__, blocks=_model_prefixes)


def _model_prefixes(stem: str) -> list[str]:
    """The stems `stem` rules out for other tools: the classes of stem `A` are `AInput...` and `AOutput...`,
    nested ones included, so those of stem `AInputLeg` (`AInputLegInput`) could be `A`'s too. Only the
    shorter stem can move away from that (a hash suffix never holds `Input` or `Output`)."""
    return [stem[: found.start()] for found in _MODEL_SUFFIX.finditer(stem) if found.start()]


def suffixed(name: str, wire: str, level: int, joiner: str = "_") -> str:
    """`name` after its `level`-th collision (from 1): a hash of its own `wire`, longer each time, then numbered."""
    digest = short_hash(wire, _HASH_LENGTHS[min(level, len(_HASH_LENGTHS)) - 1])
    count = level - len(_HASH_LENGTHS) + 1
    suffix = f"{digest}{joiner}{count}" if count > 1 else digest
    return f"{name}{joiner}{suffix if joiner else suffix.capitalize()}"


def disambiguate(
    candidates: Mapping[str, str],
    joiner: str = "_",
    *,
    bases: Mapping[str, str] | None = None,
    refused: Callable[[str], bool] = lambda name: False,
    blocks: Callable[[str], Iterable[str]] = lambda name: (),
) -> dict[str, str]:
    """Make candidate names unique without letting one name's fate depend on an unrelated one.

    Each round checks every name again, suffixed ones too, until none meets another. A name that is
    `refused` or that another name `blocks` moves on; of equal names, all move on but the one with a
    claim of its own (see `_leaving`). Moving on is taking the next `suffixed` form of the wire's base
    (`bases`, else its candidate). Ends: each move gives a wire a name it has not had, and two wires
    could keep meeting only if their full SHA-256 hashes were equal.
    """
    base = bases or candidates
    levels = dict.fromkeys(candidates, 0)
    names = dict(candidates)
    while True:
        owners: dict[str, list[str]] = {}
        for wire, name in names.items():
            owners.setdefault(name, []).append(wire)
        blocked = {prefix for name in owners for prefix in blocks(name)}
        leaving = [
            wire
            for name, wires in owners.items()
            for wire in _leaving(name, wires, levels, refused=refused(name) or name in blocked)
        ]
        if not leaving:
            return names
        for wire in leaving:
            levels[wire] += 1
            names[wire] = suffixed(base[wire], wire, levels[wire], joiner)


def _leaving(name: str, wires: list[str], levels: Mapping[str, int], *, refused: bool) -> list[str]:
    """The wires that must give up `name`: all if it is refused; else, if several have it, all but the
    wire that is `name` itself, or else the only one that has it unsuffixed (if just one does)."""
    if refused:
        return wires
    if len(wires) == 1:
        return []
    unsuffixed = [wire for wire in wires if levels[wire] == 0]
    keeper = name if name in unsuffixed else unsuffixed[0] if len(unsuffixed) == 1 else None
    return [wire for wire in wires if wire != keeper]


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
    wanted = {p: a for p in sorted(names) if (a := field_alias(p)) is not None}
    plain = names - wanted.keys()
    taken = plain | {snake(p, fallback="field") for p in plain}
    return disambiguate(wanted, refused=taken.__contains__)


def subpackage(server: str) -> str:
    """The subpackage of a server: a module name that shadows nothing in the generated package."""
    return safe(snake(server, fallback="server"), {"_runtime", "models", "tools", "manifest", *PACKAGE_NAMES})


def subpackages(servers: Iterable[str]) -> dict[str, str]:
    """The subpackage of every server, all distinct and none holding `__`: code mode calls a tool
    `<subpackage>__<method>`, and no method starts with `_`, so no two servers' functions can meet.

    A suffix goes on the snake_case name (`models_abc123`, not `models__abc123`).
    """
    servers = list(servers)
    return disambiguate(
        {s: subpackage(s) for s in servers},
        bases={s: snake(s, fallback="server") for s in servers},
        refused=lambda name: "__" in name,
    )
