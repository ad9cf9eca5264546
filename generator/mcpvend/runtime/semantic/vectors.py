"""Tool vectors made at `generate` and vendored with the package, so no search pays to embed the catalog.

Each server's subpackage gets a `vectors.json`: the model that made the vectors, and per tool the
digest of the text that was embedded and the vector, int8 (one byte per dimension, scaled to its
largest component: only directions count for cosine similarity), base64. One line per tool, so a
one-tool change is a one-line diff. A vector is used only when its model is the model loaded and
its digest is that of the text the runtime would embed now; any other tool is embedded on the spot.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.resources
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FILE = "vectors.json"
FORMAT = 1


def text_digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode(vector: Any) -> str:
    """A float vector as int8 bytes in base64, scaled so that its largest component is +-127."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    values = np.asarray(vector, dtype=np.float64)
    peak = float(np.abs(values).max()) if values.size else 0.0
    scaled = np.rint(values * (127.0 / peak)) if peak > 0 else np.zeros_like(values)
    return base64.b64encode(scaled.astype(np.int8).tobytes()).decode("ascii")


def decode(text: str) -> Any:
    """The float32 unit vector of an `encode`d one (a vector of zeros stays zero)."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    values = np.frombuffer(base64.b64decode(text, validate=True), dtype=np.int8).astype(np.float32)
    norm = float(np.sqrt((values * values).sum()))
    return values / norm if norm > 0 else values


@dataclass(frozen=True)
class Vectors:
    """One server's vendored vectors: `tools` maps a tool name to (text digest, encoded vector)."""

    model: str
    tools: Mapping[str, tuple[str, str]]

    def render(self) -> str:
        """The file's text: sorted, one tool per line, byte-stable."""
        lines = [
            f"    {json.dumps(name, ensure_ascii=False)}: {json.dumps([digest, vector])}"
            for name, (digest, vector) in sorted(self.tools.items())
        ]
        body = ",\n".join(lines)
        tools = "{\n" + body + "\n  }" if lines else "{}"
        return f'{{\n  "format": {FORMAT},\n  "model": {json.dumps(self.model)},\n  "tools": {tools}\n}}\n'

    @classmethod
    def parse(cls, text: str, where: str) -> Vectors:
        """The vectors in `text`; `where` names the file in the error of a file that is not such a file."""
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT or not isinstance(data.get("model"), str):
                raise ValueError(f"format {data.get('format')!r} is not {FORMAT}")
            tools = {str(name): (str(digest), str(vector)) for name, (digest, vector) in data["tools"].items()}
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"{where} is not a vectors file mcpvend wrote ({exc}): run `mcpvend generate`") from None
        return cls(data["model"], tools)


@functools.cache
def load(package: str) -> Vectors | None:
    """The vectors vendored in `package` (a server's subpackage), or None when it has none; read once
    per process, since a package's files do not change under it and toolset() may be called per conversation."""
    resource = importlib.resources.files(package).joinpath(FILE)
    try:
        text = resource.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    return Vectors.parse(text, f"{package.replace('.', '/')}/{FILE}")
