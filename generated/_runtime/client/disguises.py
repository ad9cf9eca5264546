# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The one masking rule: every form a secret takes on its way back, so that logs, results, errors and the audit
trail show `***` and `lock` refuses a server that serves one back.

A value comes back as sent, percent-encoded (a URL's userinfo, a query), JSON-escaped or in a repr; a
server may also serve it back in another case, as hex, as base64 (a `Basic` header carries `user:password`
so), or with invisible characters between its characters. A plain search misses all of those.
"""

from __future__ import annotations

import base64
import functools
import json
import re

# A disguised form of a shorter secret (and its hex and base64) would match ordinary words and identifiers.
_SHORTEST = 8
# Characters that show as nothing: zero-width (U+200B-U+200D, U+2060, U+FEFF), the soft hyphen, direction marks.
_INVISIBLE = "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]*"


def disguised_forms(secret: str) -> list[str]:
    """The secret, its hex and the base64 a text holding it has, at each of the three alignments it can take.

    The base64 of `...secret...` depends on where the secret starts within a 3-byte group: for each start,
    its whole groups give characters that do not depend on what surrounds it (their standard and URL-safe
    spellings). Padding falls outside them; case is left to the pattern.
    """
    data = secret.encode()
    forms = [secret, data.hex()]
    for skip in range(3):
        whole = data[skip : skip + (len(data) - skip) // 3 * 3]
        core = base64.b64encode(whole).decode("ascii")
        forms += [core, core.replace("+", "-").replace("/", "_")]
    return forms


@functools.lru_cache(maxsize=64)
def _disguised(secrets: frozenset[str]) -> re.Pattern[str] | None:
    forms = {form for secret in secrets if len(secret) >= _SHORTEST for form in disguised_forms(secret)}
    if not forms:
        return None
    ordered = sorted(forms, key=lambda f: (-len(f), f))  # longest first: an overlap cannot leave a piece
    return re.compile("|".join(_INVISIBLE.join(map(re.escape, form)) for form in ordered), re.IGNORECASE)


def redact(text: str, secrets: frozenset[str]) -> str:
    r"""Replace every secret value in a message by `***`, in any form it takes on the way.

    A value put into a URL comes back percent-encoded in log lines and error messages (httpx
    encodes `=` in userinfo, spaces everywhere), and one printed inside JSON comes back escaped
    (`\u00e9`, `\"`); a server may serve it back disguised: a plain search would miss those copies.
    """
    for pattern in (_escaped(secrets), _disguised(secrets)):
        if pattern is not None:
            text = pattern.sub("***", text)
    return text


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _forms(char: str) -> str:
    """A regex for one character of a secret: itself, percent-encoded (either case), or escaped."""
    if char in _UNRESERVED:
        return re.escape(char)
    forms = [re.escape(char), "(?i:" + re.escape("".join(f"%{b:02X}" for b in char.encode())) + ")"]
    escaped = json.dumps(char)[1:-1]  # \" \\ \u00e9 \n ...
    if escaped != char:
        forms.append("(?i:" + re.escape(escaped) + ")")
    if not char.isascii():
        forms.append("(?i:" + re.escape("".join(f"\\x{b:02x}" for b in char.encode())) + ")")  # a bytes repr
    if char == "'":
        forms.append(re.escape("\\'"))  # inside a Python repr
    if char == " ":
        forms.append(re.escape("+"))  # a query string's space
    return "(?:" + "|".join(forms) + ")"


@functools.lru_cache(maxsize=64)
def _escaped(secrets: frozenset[str]) -> re.Pattern[str] | None:
    """Each secret as sent and as escaped on the way (percent-encoded, JSON-escaped, in a repr)."""
    if not secrets:
        return None
    ordered = sorted(secrets, key=lambda s: (-len(s), s))  # longest first: an overlap cannot leak a piece
    return re.compile("|".join("".join(_forms(c) for c in secret) for secret in ordered))
