"""RFC 6901 JSON Pointers, as `$ref`s use them: here in the runtime, which the generated package
carries on its own, and used from there by the generator's schema walker too."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote


def pointer_get(root: Any, pointer: str) -> Any:
    """The value at an RFC 6901 JSON Pointer (`/a/0/b`, URI-escaped or not), or None if there is none."""
    node: Any = root
    for token in pointer.split("/")[1:]:
        token = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node
