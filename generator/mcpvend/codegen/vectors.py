"""Each server's `vectors.json`: its tools embedded at generate time (`[search] semantic = true`).

The model loads only when a tool's text has no vector yet: a tool whose text and model are those
the file on disk records keeps its recorded vector, so a one-tool change embeds one tool, and an
unchanged server needs no model at all. `verify` (`generate --full`, CI) trusts no recorded
vector: it embeds every tool and keeps a recorded one only when it points the same way (so the
bytes stay those of the machine that first made them; floating-point kernels differ in the last bits).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcpvend.errors import MCPVendError
from mcpvend.runtime.core.search import SearchDocument
from mcpvend.runtime.semantic import vectors as files
from mcpvend.runtime.semantic.hybrid import RankerUnavailable, embedded_text, load_model, model_name

SAME_DIRECTION = 0.99  # cosine above which a recorded vector is the one this machine would make


def server_vectors(
    server: str, tools: Sequence[Mapping[str, Any]], recorded_path: Path, *, verify: bool, model: Path | None = None
) -> str:
    """The text of `server`'s vectors file for `tools` (as the manifest holds them); `model`: `[search] model`,
    a local copy of the upstream model's directory (None: mcpvend-minilm)."""
    name_of_model = model_name(model)
    texts = {str(t["name"]): embedded_text(SearchDocument.from_tool(str(t["name"]), t, server)) for t in tools}
    digests = {name: files.text_digest(text) for name, text in texts.items()}
    recorded = _recorded(recorded_path, name_of_model)
    kept = {name: vector for name, (digest, vector) in recorded.items() if digests.get(name) == digest}
    fresh = sorted(texts) if verify else sorted(set(texts) - set(kept))
    if fresh:
        for name, vector in zip(fresh, _embed(server, [texts[n] for n in fresh], model), strict=True):
            if name not in kept or _cosine(files.decode(kept[name]), vector) < SAME_DIRECTION:
                kept[name] = files.encode(vector)
    return files.Vectors(name_of_model, {name: (digests[name], kept[name]) for name in texts}).render()


def _recorded(path: Path, model: str) -> dict[str, tuple[str, str]]:
    """The vectors on disk made with `model`; none when there is no such file or it is not ours."""
    try:
        found = files.Vectors.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return dict(found.tools) if found.model == model else {}


def _embed(server: str, texts: list[str], directory: Path | None) -> Any:
    try:
        model = load_model(directory)
    except RankerUnavailable as exc:
        raise MCPVendError(
            f"server '{server}': {len(texts)} tool(s) need search vectors ([search] semantic = true), and {exc}"
        ) from None
    return model.embed(texts)


def _cosine(a: Any, b: Any) -> float:
    import numpy as np

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / scale if scale > 0 else 0.0
