"""Hybrid tool search: BM25F fused with static word embeddings, offline, and only when asked for.

BM25F scores a query that shares no word with a tool at zero ("what hour is it in Tokyo" never
reaches `get_current_time`). A static embedding model (wordllama: one vector per token, averaged;
no torch, its weights inside its wheel) puts paraphrases near each other; a weighted sum of both
normalized scores keeps BM25F's grip on exact words. wordllama is imported inside `load_model`
only, so the runtime still needs nothing but `mcp` unless a hybrid ranker is built.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.search import BM25Ranker, Hit, SearchDocument, words

WORDLLAMA = "wordllama==0.4.0.post1"  # = the `semantic` extra of mcpvend
DEFAULT_ALPHA = 0.4  # the weight of BM25F: best mean recall on the LiveMCPBench tasks (bench/search.py)
DESCRIPTION_CHARS = 600  # what a tool does is said first; then come setup and caveats
TOOL_CHARS = 1_000  # of name, title, description and parameters together: each token embedded costs index time
QUERY_CHARS = 2_000  # a model may send a megabyte; each token embedded costs memory
_DIGITS = 9  # scores are rounded so that a last-bit difference between BLAS kernels cannot reorder hits


class RankerUnavailable(ImportError):
    """The hybrid ranker's model cannot be loaded: wordllama is missing, another release, or broken."""


def _unavailable(why: str) -> RankerUnavailable:
    return RankerUnavailable(f"the hybrid ranker needs {WORDLLAMA} ({why}): pip install {WORDLLAMA}")


def _checked(alpha: float) -> float:
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1], not {alpha!r}")
    return alpha


@functools.cache
def load_model() -> Any:
    """wordllama's default model (l2_supercat, 256 dimensions), from the files in its wheel only.

    As released, `WordLlama.load()` looks for the bundled tokenizer in `wordllama/tokenizer/`
    while the wheel has it in `wordllama/tokenizers/`, misses, and downloads it from Hugging Face
    with no timeout. With `cache_dir` set to the package's own directory, the weights and the
    tokenizer both resolve there, and `disable_download=True` turns any miss into an error, never
    a request. One model per process: it is read-only, and loading it is most of a ranker's cost.
    """
    root = logging.getLogger()
    level, handlers = root.level, root.handlers[:]
    try:
        import wordllama  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError as exc:
        raise _unavailable(f"it cannot be imported: {exc}") from None
    finally:  # wordllama calls logging.basicConfig(level=INFO) on import: the root logger is the application's
        root.setLevel(level)
        root.handlers[:] = handlers
    version = getattr(wordllama, "__version__", "unknown")
    if version != WORDLLAMA.split("==")[1]:
        raise _unavailable(f"found {version}, whose offline load path is not known")
    directory = Path(str(wordllama.__file__)).parent  # typed `str | None` where wordllama is not installed
    try:
        return wordllama.WordLlama.load(config="l2_supercat", dim=256, cache_dir=directory, disable_download=True)
    except (OSError, ValueError) as exc:
        raise _unavailable(f"its bundled model in {directory} cannot be loaded: {exc}") from None


def embedded_text(document: SearchDocument) -> str:
    """What a tool is embedded as: its name in words, title, the start of its description, its parameters."""
    parameters = " ".join(f"{words(name)} {description}" for name, description in document.parameters)
    parts = (words(document.name), document.title, document.description[:DESCRIPTION_CHARS], parameters)
    return " ".join(". ".join(part for part in parts if part).split())[:TOOL_CHARS]


def _unit_rows(vectors: Any) -> Any:
    """Rows scaled to length 1 (a row of zeros, from text with no known token, stays zero)."""
    vectors = vectors.astype("float64")
    norms = (vectors * vectors).sum(axis=1, keepdims=True) ** 0.5
    norms[norms == 0] = 1.0
    return vectors / norms


class HybridRanker:
    """`alpha` x BM25F score / best BM25F score + (1 - alpha) x cosine similarity, min-max scaled.

    Both parts are scaled to [0, 1] per query, so `alpha` means the same for every query: BM25F
    scores are unbounded and depend on the query's length, cosines bunch up near each other.
    Tool vectors are computed once, here; a query costs one embedding and one matrix product.
    Hits are sorted by rounded score, then by key; a document scoring 0 is left out.
    """

    def __init__(self, documents: Sequence[SearchDocument], model: Any, *, alpha: float = DEFAULT_ALPHA) -> None:
        self.documents = tuple(documents)
        self.alpha = _checked(alpha)
        self._bm25 = BM25Ranker(self.documents)  # also refuses duplicate keys
        self._model = model
        self._index = {d.key: i for i, d in enumerate(self.documents)}
        self._vectors = _unit_rows(model.embed([embedded_text(d) for d in self.documents])) if documents else None

    def rank(self, query: str, limit: int) -> list[Hit]:
        """The best `limit` documents for `query`, best first."""
        if limit <= 0 or self._vectors is None:
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


def hybrid(alpha: float = DEFAULT_ALPHA) -> Callable[[Sequence[SearchDocument]], HybridRanker]:
    """A factory of hybrid rankers, for `Catalog(ranker=...)` and `toolset(ranker=...)`.

    The model is loaded here, so that a missing wordllama fails when the toolset is made, with
    how to install it, and not in the middle of a model's search.
    """
    alpha = _checked(alpha)
    return functools.partial(HybridRanker, model=load_model(), alpha=alpha)
