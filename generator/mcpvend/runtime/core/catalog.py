"""The reviewed tools a `ToolSet` offers: filtered, named for providers, grouped and searchable.

Pure data: nothing here connects to a server, so the same catalog serves a live toolset, a
token estimate over a corpus, and tests. Every list is kept in provider-name order, which is
what makes tool specs byte-stable.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from .names import provider_names
from .search import BM25Ranker, Ranker, SearchDocument

SUMMARY_CHARS = 120
RankerFactory = Callable[[Sequence[SearchDocument]], Ranker]
_SENTENCE_END = re.compile("(?<=[.!?])\\s|(?<=[\u3002\uff01\uff1f])")  # CJK full stops need no space


def summary(description: str | None, limit: int = SUMMARY_CHARS) -> str:
    """One line for a listing: the first sentence of the first paragraph, at most `limit` characters.

    A longer sentence is cut at the last space that keeps at least half of it (text with no
    spaces, such as Chinese, at `limit`), and ends with "…" so the model knows there is more.
    """
    text = " ".join((description or "").strip().split("\n\n")[0].split())
    text = _SENTENCE_END.split(text, maxsplit=1)[0]
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space >= limit // 2 else head).rstrip(" ,;:-") + "…"


@dataclass(frozen=True)
class Entry:
    """One reviewed tool of one server, as the model will know it."""

    server: str
    tool: Mapping[str, Any]  # the tool as reviewed in the lockfile
    provider: str = ""  # the provider-safe name, set by the catalog
    models: str | None = None  # the generated models module, when the tool came from a generated package
    input_class: str | None = None
    output_class: str | None = None

    @property
    def name(self) -> str:
        return str(self.tool["name"])

    @property
    def description(self) -> str:
        value = self.tool.get("description")
        return value if isinstance(value, str) else ""

    @property
    def input_schema(self) -> Mapping[str, Any]:
        schema = self.tool.get("inputSchema")
        return schema if isinstance(schema, Mapping) else {"type": "object"}

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        schema = self.tool.get("outputSchema")
        return schema if isinstance(schema, Mapping) else None

    @property
    def retry_safe(self) -> bool:
        """May a call that was cut short be sent again? Only if the reviewed annotations say so."""
        hints = self.tool.get("annotations")
        return isinstance(hints, Mapping) and (hints.get("readOnlyHint") is True or hints.get("idempotentHint") is True)

    @property
    def summary(self) -> str:
        return summary(self.description)


@dataclass(frozen=True)
class Filter:
    """Allow/deny globs over `SERVER/TOOL` (a pattern without `/` means every tool of those servers).

    A tool is offered when it matches an `allow` pattern (or `allow` is empty) and no `deny` one.
    """

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @staticmethod
    def _matches(pattern: str, server: str, tool: str) -> bool:
        server_glob, _, tool_glob = pattern.partition("/")
        return fnmatch.fnmatchcase(server, server_glob) and fnmatch.fnmatchcase(tool, tool_glob or "*")

    def allows(self, server: str, tool: str) -> bool:
        allowed = not self.allow or any(self._matches(p, server, tool) for p in self.allow)
        return allowed and not any(self._matches(p, server, tool) for p in self.deny)


@dataclass(frozen=True)
class Category:
    """A server, or a user-defined bundle of tools across servers."""

    name: str
    kind: str  # "server" | "bundle"
    providers: tuple[str, ...] = field(default=())


class Ambiguous(LookupError):
    """A bare tool name that several servers serve."""

    def __init__(self, name: str, candidates: Sequence[str]) -> None:
        self.candidates = tuple(candidates)
        super().__init__(f"tool name {name!r} is served by several servers: use one of {', '.join(candidates)}")


class Catalog:
    """Every offered tool by provider name, the categories, and a search index built on first use."""

    def __init__(
        self,
        entries: Iterable[Entry],
        *,
        servers: Sequence[str] | None = None,
        bundles: Mapping[str, Sequence[str]] | None = None,
        tool_filter: Filter | None = None,
        ranker: RankerFactory | None = None,
    ) -> None:
        tool_filter = tool_filter or Filter()
        kept = [e for e in entries if tool_filter.allows(e.server, e.name)]
        names = provider_names((e.server, e.name) for e in kept)
        named = sorted((replace(e, provider=names[(e.server, e.name)]) for e in kept), key=lambda e: e.provider)
        self.entries: tuple[Entry, ...] = tuple(named)
        self.by_provider: dict[str, Entry] = {e.provider: e for e in self.entries}
        self._by_wire: dict[str, list[str]] = {}
        for entry in self.entries:
            self._by_wire.setdefault(entry.name, []).append(entry.provider)
            self._by_wire.setdefault(f"{entry.server}.{entry.name}", []).append(entry.provider)
            self._by_wire.setdefault(f"{entry.server}/{entry.name}", []).append(entry.provider)
        server_names = sorted(set(servers if servers is not None else (e.server for e in self.entries)))
        self.categories: dict[str, Category] = {
            s: Category(s, "server", tuple(e.provider for e in self.entries if e.server == s)) for s in server_names
        }
        for bundle, patterns in sorted((bundles or {}).items()):
            if bundle in self.categories:
                raise ValueError(f"bundle {bundle!r} has the name of a server")
            wanted = Filter(allow=tuple(patterns))
            self.categories[bundle] = Category(
                bundle, "bundle", tuple(e.provider for e in self.entries if wanted.allows(e.server, e.name))
            )
        self._ranker_factory = ranker or BM25Ranker  # the semantic feature offers another (see package.py)

    def resolve(self, name: str) -> Entry | None:
        """The tool a model meant: its provider name, `server.tool`, `server/tool`, or a bare wire name.

        Raises `Ambiguous` for a bare wire name that several servers serve.
        """
        if name in self.by_provider:
            return self.by_provider[name]
        candidates = self._by_wire.get(name, [])
        if len(candidates) > 1:
            raise Ambiguous(name, candidates)
        return self.by_provider[candidates[0]] if candidates else None

    @cached_property
    def _ranker(self) -> Ranker:
        documents = [SearchDocument.from_tool(e.provider, e.tool, e.server) for e in self.entries]
        return self._ranker_factory(documents)

    def search(self, query: str, limit: int) -> list[Entry]:
        return [self.by_provider[hit.key] for hit in self._ranker.rank(query, limit)]

    def index(self) -> None:
        """Build the search index now rather than at the first search (which then costs one query)."""
        _ = self._ranker
