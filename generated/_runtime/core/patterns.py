# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Schema patterns searched in time linear in the text, and the test for patterns that backtrack.

A backtracking engine (Python's `re`; the ECMA-262 engines servers validate with) can take time
exponential in the text when a loop of the pattern can split the same text in more than one way:
`^(a+)+$` against 30 `a`s and a `!` runs for minutes, and on the event loop it freezes every other
call. So a `pattern` is searched with pydantic-core's Rust engine (the `regex` crate: no
backtracking, time linear in the text); what it cannot compile (lookaround, backreferences, `\\Z`)
goes to `re` only when `backtracks` finds no such loop, and is otherwise refused with a reason.

Linear in the text, not free: the Rust engine's cost per character grows with the pattern's
compiled size, which counted repetitions multiply (`.{0,2000}!` takes seconds over 50,000 characters).

JSON Schema specifies ECMA-262 syntax; both engines here differ from it. `\\d`, `\\w`, `\\s` and `\\b`
are Unicode-aware (`^\\d$` matches `"٣"`; ECMA-262 is ASCII, as `re` was before, so nothing changes
there); `.` excludes only `\\n` (ECMA-262 also `\\r`, U+2028, U+2029); the Rust engine's `$` does not
match before a final `\\n` (ECMA-262's neither; `re`'s does, so `^[a-z]+$` no longer takes `"abc\\n"`);
and it reads `[[:alpha:]]` as a POSIX class and `&&`, `--`, `~~` in a class as set operations, where
`re` and ECMA-262 read characters.
"""

from __future__ import annotations

import functools
import math
import re
import re._constants as _re_constants  # type: ignore[import-not-found, unused-ignore]
import re._parser as _re_parser  # type: ignore[import-not-found, unused-ignore]
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Annotated, Any

# `re._parser` above: the tree `re` compiles (private, unchanged since 3.11), walked to find loops.
# Typeshed has no stubs for either module, so both are read as `Any`.
_c: Any = _re_constants
_parser: Any = _re_parser

_CHARS = frozenset({_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.CATEGORY})
_LOOPS = frozenset({_c.MAX_REPEAT, _c.MIN_REPEAT})  # a possessive repeat gives nothing back
_REPEATS = _LOOPS | {_c.POSSESSIVE_REPEAT}
_LOOKAROUND = frozenset({_c.ASSERT, _c.ASSERT_NOT})
_EVERY = (_c.IN, [(_c.NEGATE, None)])  # what a backreference may match: anything
_CATEGORIES = {
    _c.CATEGORY_DIGIT: re.compile(r"\d"),
    _c.CATEGORY_NOT_DIGIT: re.compile(r"\D"),
    _c.CATEGORY_SPACE: re.compile(r"\s"),
    _c.CATEGORY_NOT_SPACE: re.compile(r"\S"),
    _c.CATEGORY_WORD: re.compile(r"\w"),
    _c.CATEGORY_NOT_WORD: re.compile(r"\W"),
}
# Characters tried when asking whether two character sets share one: ASCII, a few others, and each
# set's own literals and range ends (two ranges overlap exactly when one holds the other's start).
_PROBES = frozenset(map(chr, range(128))) | frozenset("\u00a0\u00e9\u00df\u0130\u0663\u2028\u4e2d\U0001f600")
_WAYS = 10_000  # a bounded loop is flagged when its iterations can split a text more ways than this

Item = tuple[Any, Any]  # (opcode, argument): one node of `re`'s parse tree


class Unbounded(ValueError):
    """No engine here can search the pattern in bounded time (`str()`: the pattern and why)."""


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches somewhere in `text` (JSON Schema: unanchored); raises `Unbounded`."""
    return _searcher(pattern)(text)


def bounded(pattern: str) -> bool:
    """Whether `search` checks `pattern` rather than refusing every text: a model validated by pydantic would
    check the others with `re`, backtracking, so code generation leaves them to this module."""
    try:
        search(pattern, "")
    except Unbounded:
        return False
    except re.error:  # not a pattern at all: whoever compiles it says so
        return True
    return True


def holds_unbounded(schema: Any) -> bool:
    """Whether `schema` has a `pattern` that is not `bounded`: the generated model leaves it out, and the
    manifest marks the tool `checked` (its typed wrapper validates against the reviewed schema instead)."""
    return any(isinstance(p := node.get("pattern"), str) and not bounded(p) for node in objects(schema))


def objects(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every JSON object in `value`, itself included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


@functools.lru_cache(maxsize=1024)
def _searcher(pattern: str) -> Callable[[str], bool]:
    """Compiled once: the Rust engine, else `re` for a pattern that cannot backtrack, else a refusal."""
    # Imported here: `lint` asks only `backtracks`.
    from pydantic import ConfigDict, StringConstraints, TypeAdapter

    constrained = Annotated[str, StringConstraints(pattern=pattern)]
    try:  # pydantic-core's engine, through pydantic: the package depends on pydantic, as `mcp` does
        return TypeAdapter(constrained, config=ConfigDict(regex_engine="rust-regex")).validator.isinstance_python
    except Exception:  # noqa: BLE001 - pydantic-core's SchemaError: lookaround, a backreference, an escape it lacks
        why = backtracks(pattern)
    if why is None:
        compiled = re.compile(pattern)
        return lambda text: compiled.search(text) is not None

    def refuse(text: str) -> bool:
        raise Unbounded(f"the pattern {pattern!r} cannot be checked in bounded time: {why}")

    return refuse


def backtracks(pattern: str) -> str | None:
    """Why a backtracking engine may take time exponential in the text on `pattern`, or None.

    Flagged: a loop (`*`, `+`, `{n,}`, or a count high enough) whose body can match the same text in
    more than one way, the next iteration taken into account: a part of varying length whose next
    character could also start what follows it (`(a+)+`, `(.*a){20}`, `(\\w+\\s?)*`, `(x\\d+\\d+)*`), or
    alternatives that match the same text or one a prefix of the other (`(a|a)*`, `(a|aa)*`, `(a|b|ab)*`).
    Not flagged: a loop whose parts are pinned by a character the varying part cannot take
    (`(\\d{1,3}\\.){3}`, `([a-z0-9]+-)*`, `"(?:\\\\.|[^"\\\\])*"`), and the quadratic cost of a plain `.*x`.
    A heuristic on `re`'s parse of the pattern (which merges `a|b` into `[ab]`, `ab|ac` into `a[bc]`):
    a pattern `re` cannot parse is not judged.
    """
    try:
        parsed = _parser.parse(pattern)
        found = _Tree(parsed.state).hazard(parsed)
    except (re.error, RecursionError, OverflowError):
        return None
    return "a repeated part can match the same text in more than one way (as in (a+)+ or (a|aa)*)" if found else None


class _Tree:
    """Questions about one parse tree (its flags and group widths live in its state)."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.flags: int = state.flags

    def hazard(self, items: Iterable[Item]) -> bool:
        """Whether a loop anywhere in `items` splits a text too many ways."""
        for op, av in items:
            if op in _LOOPS and av[1] > 1:
                body = list(_flat(av[2]))
                if self._many(self._ways(body, _first(body)[0]), av[1]):
                    return True
            if any(self.hazard(part) for part in _parts(op, av)):
                return True
        return False

    def _ways(self, items: Sequence[Item], follow: list[Item]) -> int:
        """How many ways (0: one) a match of `items` can end, when a match starting with `follow` comes next."""
        most = 0
        for index, (op, av) in enumerate(items):
            after, open_end = _first(items[index + 1 :])
            if open_end:
                after = after + follow
            if op in _LOOPS:
                body = list(_flat(av[2]))
                if av[1] > av[0] and self._overlap(_first(body)[0], after):
                    most = max(most, av[1] - av[0] + 1)
                most = max(most, self._ways(body, _first(body)[0] + after))
            elif op is _c.BRANCH or op is _c.GROUPREF_EXISTS:
                branches = [list(_flat(part)) for part in _parts(op, av)]
                if self._alike(branches, after):
                    most = max(most, len(branches))
                most = max([most, *(self._ways(branch, after) for branch in branches)])
        return most

    def _alike(self, branches: Sequence[Sequence[Item]], after: list[Item]) -> bool:
        """Whether two alternatives match one text, or one a prefix of the other with `after` taking the rest."""
        for i, a in enumerate(branches):
            for b in branches[i + 1 :]:
                low, high = self._width(a)
                if low == high and self._width(b) == (low, high):
                    if self._same(a, b):
                        return True
                    continue
                (first_a, empty_a), (first_b, empty_b) = _first(a), _first(b)
                starts_alike = empty_a or empty_b or self._overlap(first_a, first_b)
                if starts_alike and self._overlap([*_chars(a), *_chars(b)], after):
                    return True
        return False

    def _same(self, a: Sequence[Item], b: Sequence[Item]) -> bool:
        """Whether two alternatives of plain characters, of one length, can match one text."""
        shape_a, shape_b = _positions(a), _positions(b)
        return shape_a is not None and shape_b is not None and all(map(self._overlap, shape_a, shape_b))

    @staticmethod
    def _many(ways: int, count: int) -> bool:
        """Whether `count` iterations with `ways` choices each (0: one) split a text too many ways."""
        if ways < 2:
            return False
        return count >= _c.MAXREPEAT or ways >= _c.MAXREPEAT or count * math.log(ways) > math.log(_WAYS)

    def _width(self, items: Sequence[Item]) -> tuple[int, int]:
        low, high = _parser.SubPattern(self.state, list(items)).getwidth()
        return low, (_c.MAXREPEAT if high >= _c.MAXREPEAT else high)

    def _overlap(self, a: list[Item], b: list[Item]) -> bool:
        """Whether one character can be matched by a set in `a` and by one in `b`."""
        if not a or not b:
            return False
        probes = _PROBES | {chr(code) for code in _codes([*a, *b])}
        return any(self._takes(a, ch) and self._takes(b, ch) for ch in probes)

    def _takes(self, atoms: list[Item], ch: str) -> bool:
        cases = {ch, ch.lower(), ch.upper()} if self.flags & re.IGNORECASE else {ch}
        return any(_matches(atom, case, self.flags) for atom in atoms for case in cases if len(case) == 1)


def _parts(op: Any, av: Any) -> list[Sequence[Item]]:
    """The sequences nested in one node."""
    if op is _c.SUBPATTERN:
        return [av[3]]
    if op in _REPEATS:
        return [av[2]]
    if op is _c.BRANCH:
        return list(av[1])
    if op is _c.ATOMIC_GROUP:
        return [av]
    if op in _LOOKAROUND:
        return [av[1]]
    if op is _c.GROUPREF_EXISTS:
        return [av[1], av[2] or []]
    return []


def _positions(branch: Sequence[Item]) -> list[list[Item]] | None:
    """The character set at each position of a branch of plain characters (anchors aside), else None."""
    found: list[list[Item]] = []
    for op, av in _flat(branch):
        if op in _CHARS:
            found.append([(op, av)])
        elif op is not _c.AT and op not in _LOOKAROUND:
            return None
    return found


def _flat(items: Iterable[Item]) -> Iterator[Item]:
    """A sequence with its groups opened: `x(ab)c` is `xabc` as far as loops are concerned."""
    for op, av in items:
        if op is _c.SUBPATTERN:
            yield from _flat(av[3])
        else:
            yield op, av


def _first(items: Sequence[Item]) -> tuple[list[Item], bool]:
    """The character sets a match of `items` can start with, and whether it can be empty."""
    found: list[Item] = []
    for op, av in items:
        if op in _CHARS:
            return [*found, (op, av)], False
        if op is _c.GROUPREF:
            found.append(_EVERY)
            continue
        if op is _c.AT or op in _LOOKAROUND:
            continue
        empty = op in _REPEATS and av[0] == 0
        for part in _parts(op, av):
            atoms, part_empty = _first(part)
            found += atoms
            empty = empty or part_empty
        if not empty:
            return found, False
    return found, True


def _chars(items: Iterable[Item]) -> Iterator[Item]:
    """Every character set `items` can consume (not those only looked at)."""
    for op, av in items:
        if op in _CHARS:
            yield op, av
        elif op is _c.GROUPREF:
            yield _EVERY
        elif op not in _LOOKAROUND:
            for part in _parts(op, av):
                yield from _chars(part)


def _codes(atoms: Iterable[Item]) -> Iterator[int]:
    """The code points a set names: its literals and its ranges' ends."""
    for op, av in atoms:
        if op in (_c.LITERAL, _c.NOT_LITERAL):
            yield av
        elif op is _c.RANGE:
            yield from av
        elif op is _c.IN:
            yield from _codes(av)


def _matches(atom: Item, ch: str, flags: int) -> bool:
    op, av = atom
    if op is _c.LITERAL:
        return bool(ord(ch) == av)
    if op is _c.NOT_LITERAL:
        return bool(ord(ch) != av)
    if op is _c.ANY:
        return ch != "\n" or bool(flags & re.DOTALL)
    if op is _c.RANGE:
        return bool(av[0] <= ord(ch) <= av[1])
    if op is _c.CATEGORY:
        category = _CATEGORIES.get(av)
        return category is None or category.fullmatch(ch) is not None
    negated = bool(av) and av[0][0] is _c.NEGATE  # IN
    return negated != any(_matches(item, ch, flags) for item in av if item[0] is not _c.NEGATE)
