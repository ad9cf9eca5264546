# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Hybrid tool search: BM25F fused with a sentence embedding model, offline, and only when asked for.

BM25F scores a query that shares no word with a tool at zero ("what hour is it in Tokyo" never
reaches `get_current_time`). A sentence embedding model (all-MiniLM-L6-v2, run with numpy: see
`minilm`) puts paraphrases near each other; a weighted sum of both normalized scores keeps BM25F's
grip on exact words. The model is imported inside `load_model` only, so the runtime still needs
nothing but `mcp` unless a hybrid ranker is built. Tool vectors are made at `generate` and vendored
(`vectors`), so a ranker embeds only the query.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.search import BM25Ranker, Hit, SearchDocument, words
from . import minilm
from .vectors import decode, text_digest

Vendored = Mapping[tuple[str, str], tuple[str, str]]  # (server, tool name) -> (text digest, encoded vector)

DISTRIBUTION = minilm.DISTRIBUTION  # = the `semantic` extra of mcpvend
DEFAULT_ALPHA = 0.3  # the weight of BM25F: best mean recall on the LiveMCPBench tasks (bench/search.py)
DESCRIPTION_CHARS = 600  # what a tool does is said first; then come setup and caveats
TOOL_CHARS = 1_000  # of server, name, description and parameters together: each token embedded costs index time
QUERY_CHARS = 2_000  # a model may send a megabyte; each token embedded costs time
_DIGITS = 6  # scores are rounded so that a last-bit difference between BLAS kernels cannot reorder hits


class RankerUnavailable(ImportError):
    """The hybrid ranker's model cannot be loaded: the `semantic` extra is missing, or a file was refused."""


model_name = minilm.model_name  # `directory`: a local copy of the upstream model; None: mcpvend-minilm
MODEL = model_name()  # the default model's: vectors of another are not used with it


def _checked(alpha: float) -> float:
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1], not {alpha!r}")
    return alpha


def load_model(directory: Path | None = None) -> minilm.MiniLM:
    """The model, from its files only once each one's digest is checked; one per process and directory (it is
    read-only, and loading is most of a ranker's cost). `directory`: a local copy of the upstream model."""
    return _loaded(directory)


@functools.cache  # keyed by the directory however it was passed: load_model() is load_model(None)
def _loaded(directory: Path | None) -> minilm.MiniLM:
    try:
        return minilm.load(minilm.source(directory))
    except minilm.ModelUnavailable as exc:
        raise RankerUnavailable(f"the hybrid ranker cannot run: {exc}") from None


def embedded_text(document: SearchDocument) -> str:
    """What a tool is embedded as: its server and name in words, the start of its description, and its
    parameters' names (the server's words were worth +0.04 recall@10 on the tasks; bench/search.py)."""
    parameters = ", ".join(words(name) for name, _ in document.parameters)
    text = f"{words(document.server)} {words(document.name)}. {document.description[:DESCRIPTION_CHARS]}"
    text += f" Parameters: {parameters}." if parameters else ""
    return " ".join(text.split())[:TOOL_CHARS]


def _unit_rows(vectors: Any) -> Any:
    """Rows scaled to length 1 (a row of zeros, from text with no known token, stays zero)."""
    vectors = vectors.astype("float64")
    norms = (vectors * vectors).sum(axis=1, keepdims=True) ** 0.5
    norms[norms == 0] = 1.0
    return vectors / norms


def tool_vectors(documents: Sequence[SearchDocument], model: Any, vendored: Vendored) -> Any:
    """One unit row per document: vendored where its text is unchanged, embedded now otherwise."""
    import numpy as np  # type: ignore[import-not-found, unused-ignore]

    texts = [embedded_text(d) for d in documents]
    rows: list[Any] = [None] * len(texts)
    for i, (document, text) in enumerate(zip(documents, texts, strict=True)):
        digest, vector = vendored.get((document.server, document.name), ("", None))
        if vector is not None and digest == text_digest(text):
            rows[i] = decode(vector)
    missing = [i for i, row in enumerate(rows) if row is None]
    if missing:
        for i, row in zip(missing, _unit_rows(model.embed([texts[i] for i in missing])), strict=True):
            rows[i] = row
    return np.vstack(rows).astype("float64")


class HybridRanker:
    """`alpha` x BM25F score / best BM25F score + (1 - alpha) x cosine similarity, min-max scaled.

    Both parts are scaled to [0, 1] per query, so `alpha` means the same for every query: BM25F
    scores are unbounded and depend on the query's length, cosines bunch up near each other.
    Tool vectors are taken from `vendored` (made at `generate`) where the text they were made from
    is the text now, and computed here for the rest; a query costs one embedding and one matrix product.
    Hits are sorted by rounded score, then by key; a document scoring 0 is left out.
    """

    def __init__(
        self,
        documents: Sequence[SearchDocument],
        model: Any,
        *,
        alpha: float = DEFAULT_ALPHA,
        vendored: Vendored | None = None,
    ) -> None:
        self.documents = tuple(documents)
        self.alpha = _checked(alpha)
        self._bm25 = BM25Ranker(self.documents)  # also refuses duplicate keys
        self._model = model
        self._index = {d.key: i for i, d in enumerate(self.documents)}
        self._vectors = tool_vectors(self.documents, model, vendored or {}) if documents else None

    def rank(self, query: str, limit: int) -> list[Hit]:
        """The best `limit` documents for `query`, best first."""
        if limit <= 0 or self._vectors is None or not query.strip():
            return []
        count = len(self.documents)
        lexical = [0.0] * count
        found = self._bm25.rank(query, count)
        for hit in found:
            lexical[self._index[hit.key]] = hit.score / found[0].score
        cosines = self._vectors @ _unit_rows(self._model.embed([query[:QUERY_CHARS]]))[0]
        low, high = float(cosines.min()), float(cosines.max())
        semantic = ((cosines - low) / (high - low)).tolist() if high > low else [0.0] * count
        scores = [round(self.alpha * b + (1 - self.alpha) * s, _DIGITS) for b, s in zip(lexical, semantic, strict=True)]
        hits = [Hit(d.key, score) for d, score in zip(self.documents, scores, strict=True) if score > 0]
        hits.sort(key=lambda h: (-h.score, h.key))
        return hits[:limit]


def hybrid(
    alpha: float = DEFAULT_ALPHA, vendored: Vendored | None = None, model: str | Path | None = None
) -> Callable[[Sequence[SearchDocument]], HybridRanker]:
    """A factory of hybrid rankers, for `Catalog(ranker=...)` and `toolset(ranker=...)`.

    `model`: a local copy of the upstream all-MiniLM-L6-v2 directory, used in place of mcpvend-minilm
    (its files are checked against the upstream digests). The model is loaded here, so that a missing or
    refused model fails when the toolset is made, saying why, and not in the middle of a model's search.
    """
    alpha = _checked(alpha)
    loaded = load_model(None if model is None else Path(model))
    return functools.partial(HybridRanker, model=loaded, alpha=alpha, vendored=vendored)
