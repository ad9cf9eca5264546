"""One conversation's own state over a shared toolset: the tools it found, and the routing step it is in.

A toolset (its servers, catalog, plan, media store, sandbox) serves many conversations at once; what
one conversation's searches found, and which bundles its current step may use, must not change what
another one sees. So that state lives here, one object per conversation, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Sequence

from .catalog import Ambiguous, Catalog, Entry
from .seams import Observer, RouteObservation
from .steps import Decision, Steps


class Conversation:
    """The tools a conversation found (routed mode offers them directly) and its current step's view."""

    def __init__(self, steps: Steps, observer: Observer, *, max_materialized: int, routed: bool) -> None:
        self.steps = steps
        self.observer = observer
        self.max_materialized = max_materialized
        self.routed = routed  # materializing changes the listing (and is recorded) only in routed mode
        self.catalog: Catalog = steps.catalog  # as the current step sees it
        self.decision: Decision | None = None  # the current step's, once one was decided
        self._recent: list[str] = []  # materialized provider names, most recently found first

    @property
    def materialized(self) -> tuple[str, ...]:
        """The found tools offered directly, in spec order (those of this step's bundles, up to the cap)."""
        found = [name for name in self._recent if name in self.catalog.by_provider]
        return tuple(sorted(found[: self.max_materialized]))

    def search(self, query: str, limit: int) -> list[Entry]:
        hits = self.catalog.search(query, limit)
        self.observer.search(query, limit, [e.provider for e in hits])
        return hits

    def materialize(self, providers: Sequence[str]) -> None:
        """Offer these tools first (within the cap), as if a search had just found them."""
        offered = self.materialized
        self._recent = [*providers, *(name for name in self._recent if name not in providers)]
        if self.routed and self.materialized != offered:
            self.observer.materialize(self.materialized)

    def reset(self) -> None:
        self._recent = []

    def step(self, decision: Decision, record: RouteObservation) -> Decision:
        self.decision, self.catalog = decision, self.steps.view(decision)
        record.done(decision, len(self.catalog.entries))
        return decision

    def lookup(self, name: str) -> tuple[Entry | None, str]:
        """The tool a name the model wrote stands for, or why there is none (said for the model to act on)."""
        try:
            entry = self.catalog.resolve(name)
        except Ambiguous as exc:
            return None, str(exc)
        if entry is not None:
            return entry, ""
        if (hidden := self.hidden(name)) is not None:  # a tool this step was not given
            return None, self.steps.denial(hidden, self.decision)
        close = [e.provider for e in self.catalog.search(name, 3)]
        hint = f"; did you mean {', '.join(close)}?" if close else "; use search_tools or list_categories"
        return None, f"there is no tool named {name!r}{hint}"

    def hidden(self, name: str) -> Entry | None:
        """The tool `name` means when it exists but this step was not given it."""
        return self.steps.hidden(name, self.decision)
