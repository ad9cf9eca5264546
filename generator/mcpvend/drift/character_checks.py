"""Lint checks on characters and encodings: text a reviewer cannot see, or cannot read, but the model can.

Each check takes a text and yields `(start, end, message)` spans; `lint.py` names the rules.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import unquote_to_bytes

Span = tuple[int, int, str]  # start, end, message

_NOT_PLAIN = re.compile(r"[^\t\n\r\x20-\x7e]+")
_LETTERS = re.compile(r"[^\W\d_]+")
# Greek letters are also units and symbols (5μs, 2πr, ΔT): only those that pass for Latin ones count.
_GREEK_LOOKALIKES = frozenset("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧαικνορυ")
# A comment renders as nothing, in HTML and in Markdown (`[//]: # (...)`, `[comment]: <> (...)`).
_COMMENT = re.compile(
    r"<!--(?P<html>.*?)(?:-->|\Z)|^[ \t]*\[(?://|comment|_)\]:\s*(?:#|<>)\s*(?P<markdown>\(.*?\)|\".*?\"|'.*?')",
    re.DOTALL | re.MULTILINE | re.IGNORECASE,
)
# Runs long enough to hold a sentence: shorter ones are identifiers, hashes' prefixes, example tokens.
_BASE64 = re.compile(
    r"(?<![\w+/=-])(?:[A-Za-z0-9+/]{4}){4,}(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?(?![\w+/=-])"
)
_BASE64URL = re.compile(r"(?<![\w=-])(?:[A-Za-z0-9_-]{4}){4,}(?:[A-Za-z0-9_-]{2,3})?(?![\w=-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:(?:\\x|0x)?[0-9A-Fa-f]{2}){12,}(?![0-9A-Fa-f])")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2}){6,}")
_WORD = re.compile(r"[^\W\d_]{2,}")
_DECODED_URL = re.compile(r"\b(?:https?|wss?|ftp)://\S+", re.IGNORECASE)


def visible(text: str) -> str:
    """Text with every invisible, control or line-breaking character shown as an escape: a reviewer must see it."""
    return "".join(
        c if c == " " or c.isprintable() else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
        for c in text
    )


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf") or 0xE0000 <= ord(char) <= 0xE007F  # Cc: \n too


def invisible(text: str) -> Iterator[Span]:
    for match in _NOT_PLAIN.finditer(text):
        start = match.start()
        for hidden, group in itertools.groupby(match[0], key=_hidden):
            run = "".join(group)
            if hidden:
                names = sorted({unicodedata.name(c, f"U+{ord(c):04X}") for c in run})
                shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
                yield start, start + len(run), f"{len(run)} invisible character(s) ({shown}) hide text from a reviewer."
            start += len(run)


def mixed_scripts(text: str) -> Iterator[Span]:
    for match in _LETTERS.finditer(text):
        word = match[0]
        if word.isascii() or not any(unicodedata.name(c, "").startswith("LATIN") for c in word):
            continue
        if foreign := [c for c in word if unicodedata.name(c, "").startswith("CYRILLIC") or c in _GREEK_LOOKALIKES]:
            letters = ", ".join(f"{c} (U+{ord(c):04X})" for c in dict.fromkeys(foreign))
            yield match.start(), match.end(), f"'{word}' mixes Latin with look-alike letters {letters}."


def comments(text: str) -> Iterator[Span]:
    """Every comment with a word in it: a rendered description drops it, the model reads it."""
    for match in _COMMENT.finditer(text):
        inside = match["html"] if match["html"] is not None else match["markdown"]
        if _WORD.search(inside or ""):
            kind = "An HTML" if match["html"] is not None else "A Markdown"
            yield match.start(), match.end(), f"{kind} comment hides '{_shorten(inside)}' from a rendered view."


def encoded(text: str) -> Iterator[Span]:
    """Base64, hex and percent-encoded runs that decode to words or a URL: instructions a reviewer cannot read."""
    seen: set[tuple[int, int]] = set()
    for pattern, name, decode in _ENCODINGS:
        for match in pattern.finditer(text):
            if match.span() in seen or (decoded := decode(match[0])) is None or not _readable(decoded):
                continue
            seen.add(match.span())
            yield match.start(), match.end(), f"A {name} run decodes to '{_shorten(decoded)}'."


def _readable(decoded: str) -> bool:
    """Printable text of at least three words, or a URL: what an attacker encodes, unlike hashes and binary data."""
    if not all(c.isprintable() or c in "\n\t\r" for c in decoded):
        return False
    words = _WORD.findall(decoded)
    return bool(_DECODED_URL.search(decoded)) or (len(words) >= 3 and sum(map(len, words)) >= 0.6 * len(decoded))


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _base64(run: str) -> str | None:
    if run.isalpha() or run.isdigit():  # a long word or number, not an encoding
        return None
    try:
        return _utf8(base64.b64decode(run + "=" * (-len(run) % 4), validate=True))
    except (binascii.Error, ValueError):
        return None


def _base64url(run: str) -> str | None:
    if run.isalpha() or run.isdigit() or not any(c in "-_" for c in run):
        return None  # without '-' or '_' it is plain base64, already tried
    try:
        return _utf8(base64.urlsafe_b64decode(run + "=" * (-len(run) % 4)))
    except (binascii.Error, ValueError):
        return None


def _hex(run: str) -> str | None:
    return _utf8(bytes.fromhex(run.replace("\\x", "").replace("0x", "")))


def _percent(run: str) -> str | None:
    return _utf8(unquote_to_bytes(run))


_ENCODINGS = (
    (_BASE64, "base64", _base64),
    (_BASE64URL, "base64url", _base64url),
    (_HEX, "hex", _hex),
    (_PERCENT, "percent-encoded", _percent),
)


def _shorten(text: str, limit: int = 60) -> str:
    shown = visible(" ".join(text.split()))
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
