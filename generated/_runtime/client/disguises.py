# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The forms a secret takes when a server disguises it, so that `lock` refuses them and logs mask them.

`targets.redact` finds a value as sent and as escaped on the way (percent-encoded, JSON-escaped). A server
may also serve it back in another case, as hex, as base64 (a `Basic` header carries `user:password` so), or
with invisible characters between its characters: all of these read back as the secret, and a plain search
misses them. One pattern per set of secrets finds them all in the text as it is, so that the same rule can
both refuse (`lock`) and replace (`logs`).
"""

from __future__ import annotations

import base64
import functools
import re

from .targets import redact

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
def _pattern(secrets: frozenset[str]) -> re.Pattern[str] | None:
    forms = {form for secret in secrets if len(secret) >= _SHORTEST for form in disguised_forms(secret)}
    if not forms:
        return None
    ordered = sorted(forms, key=lambda f: (-len(f), f))  # longest first: an overlap cannot leave a piece
    return re.compile("|".join(_INVISIBLE.join(map(re.escape, form)) for form in ordered), re.IGNORECASE)


def mask(text: str, secrets: frozenset[str]) -> str:
    """`text` with every secret replaced by `***`: as `redact` finds it, and in each disguised form."""
    text = redact(text, secrets)
    pattern = _pattern(secrets)
    return text if pattern is None else pattern.sub("***", text)
