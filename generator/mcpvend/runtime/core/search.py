"""Offline, deterministic tool search: rank hundreds of tools for a query without a model.

A client that offers an LLM a `search_tools` meta-tool needs answers that do not depend on
the network, on an embedding model, or on the process: the same query over the same tools
gives the same hits and the same scores everywhere. BM25F over a few weighted fields does
that with the standard library only; a semantic ranker can be plugged in behind `Ranker`.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

# Hiragana, Katakana, CJK ideographs (Ext. A, unified, compatibility, Ext. B+) and Hangul: text
# with no spaces between words (or, for Hangul, short words), matched by characters and bigrams.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
_PIECE = re.compile(f"([{_CJK}]+)|([^\\W_{_CJK}]+)")  # a CJK run, or a run of other letters/digits
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")  # as in codegen/naming.py
_UNDOUBLE = re.compile(r"([b-df-hj-km-npqrtv-y])\1$")  # "getting" -> "gett" -> "get"; not ll/ss/zz
_STOPWORDS = """
    a am an and are as at be been being but by can could do does for from had has have how i if in into is it its me my
    no not of on or our please should so such than that the their then there these this those to too us was we were
    what when where which while who whom why will with would you your s t d m ll re ve
"""
# Small on purpose: "get", "list", "file" are what tools are about. The last few are what
# apostrophes leave behind ("nvidia's", "don't", "we'll").
STOPWORDS = frozenset(_STOPWORDS.split())
FIELDS = ("name", "title", "description", "parameters", "parameter_descriptions", "server")
# The name is what a tool is called by and says what it does in a few words; a description
# is long and often about something else (setup, caveats), so one of its words counts less.
DEFAULT_FIELD_WEIGHTS: Mapping[str, float] = {
    "name": 3.0,
    "title": 2.0,
    "description": 1.0,
    "parameters": 1.0,
    "parameter_descriptions": 1.0,
    "server": 1.0,
}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class SearchDocument:
    """The searchable text of one tool; `key` must be unique among the documents ranked together."""

    key: str
    name: str
    title: str = ""
    description: str = ""
    parameters: tuple[tuple[str, str], ...] = ()  # (parameter name, parameter description)
    server: str = ""

    @classmethod
    def from_tool(cls, key: str, tool: Mapping[str, Any], server: str = "") -> SearchDocument:
        """From a tool as served; fields of the wrong type count as missing (servers send garbage)."""
        tool = tool if isinstance(tool, Mapping) else {}
        annotations = tool.get("annotations")
        title = _str(tool.get("title")) or (_str(annotations.get("title")) if isinstance(annotations, Mapping) else "")
        schema = tool.get("inputSchema")
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        parameters = tuple(
            (name, _str(spec.get("description")) if isinstance(spec, Mapping) else "")
            for name, spec in (properties.items() if isinstance(properties, Mapping) else ())
            if isinstance(name, str)
        )
        return cls(key, _str(tool.get("name")), title, _str(tool.get("description")), parameters, server)

    def fields(self) -> dict[str, str]:
        """The text of each field in `FIELDS`."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "parameters": " ".join(name for name, _ in self.parameters),
            "parameter_descriptions": " ".join(description for _, description in self.parameters),
            "server": self.server,
        }


@dataclass(frozen=True)
class Hit:
    key: str
    score: float


class Ranker(Protocol):
    """Anything that ranks a fixed set of documents for a query: best first, ties by key."""

    def rank(self, query: str, limit: int) -> list[Hit]: ...


def _fold(text: str) -> str:
    """Accents off ("naïve" -> "naive"), compatibility forms folded (full-width letters to ASCII)."""
    if text.isascii():
        return text
    stripped = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", stripped)  # recomposes Hangul syllables NFKD took apart


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light, conservative suffix stripper: plurals, "-ing", "-ed", then a final "e".

    It only has to map the forms of a word to one token, not to a real word: "create",
    "creates", "created" and "creating" all become "creat". Short words are left alone.
    """
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ing") and len(word) >= 6:
        word = _UNDOUBLE.sub(r"\1", word[:-3])
    elif word.endswith("ed") and len(word) >= 5:
        word = _UNDOUBLE.sub(r"\1", word[:-2])
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


def words(text: str) -> str:
    """A tool name as words, for a reader or an embedding model: "getUserID" -> "get user id".

    Split as `tokenize` splits, but nothing dropped or stemmed: a model knows "creating".
    """
    pieces = (m.group() for m in _PIECE.finditer(_fold(text)))
    return " ".join(w.casefold() for piece in pieces for w in (_CAMEL.findall(piece) if piece.isascii() else [piece]))


def tokenize(text: str) -> list[str]:
    """Search terms of any text, in order: the same function for tools and for queries.

    Names are split on separators and camelCase ("getUserID" -> get, user, id); words are
    lowercased, stopwords dropped and the rest stemmed. A run of CJK characters gives each
    character and each adjacent pair, so "网页内容" matches a query for "网页" or "内容".
    """
    tokens: list[str] = []
    for match in _PIECE.finditer(_fold(text)):
        cjk, other = match.groups()
        if cjk:
            for i, char in enumerate(cjk):
                tokens.append(char)
                if i + 1 < len(cjk):
                    tokens.append(cjk[i : i + 2])
            continue
        words = _CAMEL.findall(other) if other.isascii() else [other]
        tokens.extend(stem(w) for w in (w.casefold() for w in words) if w not in STOPWORDS)
    return tokens


class BM25Ranker:
    """BM25F (Robertson and Zaragoza's simple BM25F): field-weighted, length-normalized tf.

    A term's frequency in a document is the sum over fields of `weight * tf / norm`, where
    `norm = 1 - b + b * field length / mean field length`, so a long description does not
    drown a short name. That pseudo-frequency saturates once, with `k1`, across fields: a
    term that is in the name and in the description is not counted as two independent hits.
    IDF is Lucene's, `ln(1 + (N - df + 0.5) / (df + 0.5))`, which is never negative.

    Determinism: sums run in document, field and query order, never in set or hash order, so
    scores are bit-identical across processes; hits are sorted by score, then by key.
    A query term counts once however often the query repeats it.
    """

    def __init__(
        self,
        documents: Sequence[SearchDocument],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        field_weights: Mapping[str, float] | None = None,
    ) -> None:
        weights = {**DEFAULT_FIELD_WEIGHTS, **(field_weights or {})}
        if unknown := sorted(set(weights) - set(FIELDS)):
            raise ValueError(f"unknown search fields {unknown}; known: {list(FIELDS)}")
        if any(not w >= 0 for w in weights.values()) or not k1 >= 0 or not 0 <= b <= 1:
            raise ValueError("field weights and k1 must be >= 0, and b in [0, 1]")
        keys = [d.key for d in documents]
        if len(set(keys)) != len(keys):
            raise ValueError("document keys must be unique")
        self.documents = tuple(documents)
        self.k1 = k1
        tokenized = [{f: tokenize(text) for f, text in d.fields().items() if weights[f] > 0} for d in self.documents]
        count = max(len(tokenized), 1)
        mean = {f: sum(len(t.get(f, ())) for t in tokenized) / count for f in FIELDS}
        # postings[term] = [(document index, pseudo term frequency)], in document order.
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for index, fields in enumerate(tokenized):
            frequencies: dict[str, float] = {}
            for f, tokens in fields.items():
                norm = 1 - b + b * len(tokens) / mean[f] if mean[f] else 1.0
                for token in tokens:
                    frequencies[token] = frequencies.get(token, 0.0) + weights[f] / norm
            for token, frequency in frequencies.items():
                self._postings.setdefault(token, []).append((index, frequency))
        n = len(self.documents)
        self._idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self._postings.items()}

    def rank(self, query: str, limit: int) -> list[Hit]:
        """The best `limit` documents for `query`; documents that share no term with it are left out."""
        if limit <= 0:
            return []
        scores: dict[int, float] = {}
        for term in dict.fromkeys(tokenize(query)):  # each distinct term once, in query order
            idf = self._idf.get(term, 0.0)
            for index, frequency in self._postings.get(term, ()):
                scores[index] = scores.get(index, 0.0) + idf * frequency / (self.k1 + frequency)
        hits = [Hit(self.documents[i].key, s) for i, s in scores.items() if s > 0]
        hits.sort(key=lambda h: (-h.score, h.key))
        return hits[:limit]
