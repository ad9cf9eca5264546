"""`generated.toolset(...)`: a `ToolSet` over the servers of a generated package, as its manifests describe them.

Nothing is started and nothing is read from the environment here: each server gets a `Connection`
that resolves its target (and the credentials it needs) when it first starts. This is where the
features meet the core: the ranker named in `SearchOptions`, routing, the audit trail, code mode's
stubs and the text formats are put together here and in `ToolSet`.
"""

from __future__ import annotations

import functools
import importlib.resources
import warnings
from collections.abc import Sequence
from pathlib import Path

from .audit.trail import AuditOptions
from .client.manifest import load_manifest
from .client.options import ConnectionOptions
from .client.pool import Connection, Pool
from .code.api import load as load_stubs
from .code.mode import CodeOptions
from .core.budget import Budget, RequestedMode
from .core.catalog import Catalog, Entry, Filter, RankerFactory
from .core.options import ResultOptions, SearchOptions
from .core.search import BM25Ranker
from .routing.rules import RoutingOptions
from .semantic import vectors
from .semantic.hybrid import RankerUnavailable, Vendored, hybrid, model_name
from .textformats.choice import TextOptions
from .toolset import ToolSet

RANKERS = ("bm25", "hybrid")


def ranker_factory(
    ranker: RankerFactory | str | None, vendored: Vendored | None = None, model: Path | None = None
) -> RankerFactory:
    """A ranker by name (`bm25`, or `hybrid`, which needs the semantic extra), or the factory given.

    The default (None) is the hybrid where the package vendors tool vectors (`[search] semantic`),
    and BM25F elsewhere, or where the model cannot be loaded or a file of it is refused: with one
    warning saying why. `model`: the upstream model's directory the package was generated with, if any.
    """
    if ranker is None and vendored is not None:
        try:
            return hybrid(vendored=vendored, model=model)
        except RankerUnavailable as exc:
            warnings.warn(f"tool search ranks with BM25F: {exc}", stacklevel=3)
            return BM25Ranker
    if ranker is None or ranker == "bm25":
        return BM25Ranker
    if ranker == "hybrid":
        return hybrid(vendored=vendored, model=model)
    if isinstance(ranker, str) or not callable(ranker):
        raise ValueError(f"unknown ranker {ranker!r}; use one of {', '.join(RANKERS)}, or a factory of a Ranker")
    return ranker


class PackageToolsets:
    """`generated.toolset(...)`: a `ToolSet` over servers of a generated package.

    `search_model`: where the package's search model is, relative to the package's directory, when it was
    generated with `[search] model` (a local copy of the upstream model); None: mcpvend-minilm's.
    """

    def __init__(self, package: str, subpackages: Sequence[str], search_model: str | None = None) -> None:
        self.package = package
        self.subpackages = tuple(subpackages)
        self.search_model = search_model

    @functools.cached_property
    def _model(self) -> Path | None:
        """The search model's directory, resolved from the package's (None: the installed mcpvend-minilm)."""
        if self.search_model is None:
            return None
        root = Path(str(importlib.resources.files(self.package)))
        return (root / self.search_model).resolve()

    def _vendored(self, subpackages: dict[str, str]) -> Vendored | None:
        """The tool vectors the servers' subpackages vendor, made with the model this runtime loads
        (None: the package vendors none, so it was not generated for semantic search)."""
        found: dict[tuple[str, str], tuple[str, str]] = {}
        made_any = False
        expected = model_name(self._model)
        for server, sub in subpackages.items():
            made = vectors.load(f"{self.package}.{sub}")
            made_any = made_any or made is not None
            if made is not None and made.model != expected:
                warnings.warn(
                    f"{self.package}/{sub}/{vectors.FILE} was made with {made.model}, not {expected}: its tools are "
                    "embedded by this process instead; run `mcpvend generate`",
                    stacklevel=3,
                )
            elif made is not None:
                found.update({(server, name): entry for name, entry in made.tools.items()})
        return found if made_any else None

    def __call__(
        self,
        servers: Sequence[str] | None = None,
        *,
        mode: RequestedMode = "auto",
        budget: Budget | None = None,
        connection: ConnectionOptions | None = None,
        search: SearchOptions | None = None,
        results: ResultOptions | None = None,
        routing: RoutingOptions | None = None,
        audit: AuditOptions | None = None,
        code: CodeOptions | None = None,
        text: TextOptions | None = None,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
    ) -> ToolSet:
        """A toolset over `servers` (default: all), nothing started until the model calls a tool.

        `mode`: "auto" (by `budget`: direct when the full schemas fit, compact when the listing does,
        else routed), "direct", "compact", "routed" or "code". `allow`/`deny` are `SERVER/TOOL` globs
        applied before any mode. Each option object groups one concern (see its class); nothing is read
        from the environment until a server starts, so a missing credential fails the calls to its own
        server only: `await ts.check()` fails fast.
        """
        connection, search = connection or ConnectionOptions(), search or SearchOptions()
        manifests = {m.server: (sub, m) for sub in self.subpackages for m in [load_manifest(f"{self.package}.{sub}")]}
        chosen = list(manifests) if servers is None else list(dict.fromkeys(servers))
        unknown = [s for s in chosen if s not in manifests]
        if unknown:
            raise KeyError(f"no server named {unknown[0]!r} in {self.package} (it has: {', '.join(manifests)})")
        entries, connections = [], {}
        for server in chosen:
            sub, manifest = manifests[server]
            models = f"{self.package}.{sub}.models"
            entries += [
                Entry(server, t["tool"], models=models, input_class=t.get("input"), output_class=t.get("output"))
                for t in manifest.tools
            ]
            resolve = functools.partial(
                manifest.target,
                env=(connection.env or {}).get(server),
                headers=(connection.headers or {}).get(server),
                cwd=connection.cwd,
            )
            connections[server] = Connection(
                manifest,
                resolve,
                pinning=connection.pinning,
                timeout=connection.timeout,
                start_timeout=connection.start_timeout,
                pin_ttl=connection.pin_ttl,
                errlog=connection.errlog,
                handlers=connection.handlers,
            )
        # Only the default and the hybrid use vendored vectors: `bm25` or a factory of one's own reads none.
        uses_vectors = search.ranker is None or search.ranker == "hybrid"
        vendored = self._vendored({s: manifests[s][0] for s in chosen}) if uses_vectors else None
        ranker = ranker_factory(search.ranker, vendored, self._model)
        catalog = Catalog(
            entries,
            servers=chosen,
            bundles=None if routing is None else routing.bundles,
            tool_filter=Filter(tuple(allow), tuple(deny)),
            ranker=ranker,
        )
        stubs = load_stubs(self.package, [(s, manifests[s][0], manifests[s][1].tools) for s in chosen])
        toolset = ToolSet(
            catalog,
            pool=Pool(connections),
            mode=mode,
            budget=budget,
            search=search,
            results=results,
            routing=routing,
            audit=audit,
            text=text,
            code=code,
            stubs=stubs,
        )
        if toolset.mode == "routed" and ranker is not BM25Ranker:
            # Routed mode searches, and a model-backed ranker has loaded its model already: building its index
            # here leaves the first search_tools call one query to embed (BM25F's index is cheap either way).
            catalog.index()
        return toolset
