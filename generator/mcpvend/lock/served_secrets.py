"""`lock` refuses a server that serves a value configured for it back, in any form that reads back as it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mcpvend.credentials import looks_like_credential
from mcpvend.errors import ServerError
from mcpvend.runtime.client.disguises import redact
from mcpvend.schema_walk import escape


def refuse_served_secrets(server: str, served: Mapping[str, Any], named: Mapping[str, str]) -> None:
    """A server that serves back a credential configured for it (`Authenticated as sk-live-...`, or its
    base64, hex, another case, zero-width characters between its letters) would get it written to its
    lockfile and to the generated code: refuse the lock, naming the variable and where.

    `served` is what the lockfile would keep, by where the server said it; `named` maps each configured value
    to the name the config gives it. Only credentials are searched for (`TZ = "UTC"` served back is harmless)."""
    secrets = {value: name for value, name in named.items() if looks_like_credential(name, value)}
    if not secrets:
        return
    everything = frozenset(secrets)
    for where, value in served.items():
        for pointer, text in _strings(value):
            if redact(text, everything) == text:
                continue
            name = next(n for secret, n in sorted(secrets.items()) if redact(text, frozenset({secret})) != text)
            raise ServerError(
                f"server '{server}': it serves the value of {name} back ({where}, at {pointer or '/'});"
                " not locked, so that the secret is not written (its lockfile is left as it was)"
            )


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    """Every string in a JSON value, keys included, with its JSON Pointer, in document order (a loop, not
    recursion: a schema nested deeper than Python's recursion limit is walked too)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            inner = [(f"{where}/{escape(str(key))}", key, child) for key, child in item.items()]
            stack += [pair for at, key, child in reversed(inner) for pair in ((at, child), (at, str(key)))]
        elif isinstance(item, list):
            stack += reversed([(f"{where}/{index}", child) for index, child in enumerate(item)])
