"""Errors that reach the user as one line and exit code 2."""

from __future__ import annotations

import unicodedata


class MCPVendError(Exception):
    """An error whose message is complete enough to show the user as it is."""


class ConfigError(MCPVendError):
    """The config file is missing, unreadable or says something we cannot use."""


class LockfileError(MCPVendError):
    """A lockfile is missing, corrupt, hand-edited or of a format we do not know."""


class ServerError(MCPVendError):
    """A server could not be started, spoke badly, or timed out."""


def read_failure(exc: OSError | UnicodeDecodeError) -> str:
    """Why a file could not be read, in a few words: the system's reason, or where it stops being UTF-8.

    The default texts repeat the path and the errno ("[Errno 21] Is a directory: '/x'"), or name a
    codec and a byte position nobody can act on; the caller already names the file.
    """
    if isinstance(exc, UnicodeDecodeError):
        data = bytes(exc.object)
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            return "it is UTF-16 text (it starts with a byte-order mark); save it as UTF-8"
        return f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
    return exc.strerror or str(exc)


def printable(text: str) -> str:
    """`text` safe for a terminal: control, format and bidi characters shown as escapes, lines kept.

    Messages quote what servers and files said (a stderr tail, a tool's name); raw, an escape
    sequence there could retitle the window, clear the screen or set the clipboard (OSC 52).
    """
    return "".join(
        c if c in "\n\t" or unicodedata.category(c) not in _HIDDEN else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF
        else f"\\U{ord(c):08x}"
        for c in text
    )  # fmt: skip


_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
