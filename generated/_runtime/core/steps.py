# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Steps: which of a toolset's tools one step of a conversation may use (a routing decision), and the view it gets.

What decides the bundles (rules, a model router: the routing feature) is not here; what every
toolset needs is: a step's view of the catalog, and the answer for a tool that exists but that
the step was not given. A tool outside the step is in no spec, no search and no category, and a
call to it is refused, so a step cannot reach what its decision did not give it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypedDict

from .catalog import Ambiguous, Catalog, Entry

CONDITIONS = ("workflow", "role", "step", "intent")
Source = Literal["rules", "router", "default", "caller"]


class RoutingError(ValueError):
    """A rule, bundle or router answer that cannot be used; the message names which and why."""


class StepInputs(TypedDict, total=False):
    """`route()`'s keyword arguments (see `RouteInputs`)."""

    workflow: str | None
    role: str | None
    step: str | None
    intent: str | None


@dataclass(frozen=True)
class RouteInputs:
    """What the program knows about the step ahead; `intent` is usually the user's message."""

    workflow: str | None = None
    role: str | None = None
    step: str | None = None
    intent: str | None = None

    def __post_init__(self) -> None:
        for key in CONDITIONS:
            if not isinstance(getattr(self, key), str | None):
                raise TypeError(f"route(): {key} must be a string or None, not {type(getattr(self, key)).__name__}")


@dataclass(frozen=True)
class Decision:
    """The bundles a step may use (None: every tool), in order, and why."""

    bundles: tuple[str, ...] | None
    why: str
    source: Source
    rules: tuple[str, ...] = ()  # the labels of the rules that matched
    error: str | None = None  # the model router's answer could not be used (the default applies)
    inputs: RouteInputs = field(default_factory=RouteInputs)


def check_bundles(names: object, known: Collection[str] | None, where: str) -> tuple[str, ...]:
    """`names` without duplicates, each a bundle or server `known` has (None: unchecked); else a `RoutingError`."""
    if isinstance(names, str) or not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
        raise RoutingError(f"{where}: bundles must be a list of bundle names")
    unknown = [] if known is None else [n for n in names if n not in known]
    if unknown:
        listed = ", ".join(sorted(known or ())) or "none"
        raise RoutingError(f"{where}: unknown bundle {unknown[0]!r} (known: {listed})")
    return tuple(dict.fromkeys(names))


class StepCatalog(Catalog):
    """The full catalog as one step sees it: only the chosen tools, under the same names, searched by the same index.

    A view rather than a new `Catalog`: provider names grow longer hashes only when two tools meet,
    so a catalog of fewer tools could name one differently, and a new index would be built again
    (the hybrid ranker embeds every tool) for each step.
    """

    def __init__(self, full: Catalog, providers: Collection[str]) -> None:  # a view: Catalog.__init__ is not run
        self.full = full
        self.entries = tuple(e for e in full.entries if e.provider in providers)
        self.by_provider = {e.provider: e for e in self.entries}
        self.categories = {}
        for name, category in full.categories.items():
            kept = tuple(p for p in category.providers if p in self.by_provider)
            if kept:
                self.categories[name] = replace(category, providers=kept)

    def resolve(self, name: str) -> Entry | None:
        try:
            entry = self.full.resolve(name)
        except Ambiguous as exc:
            visible = [c for c in exc.candidates if c in self.by_provider]
            if len(visible) > 1:
                raise Ambiguous(name, visible) from None
            return self.by_provider[visible[0]] if visible else None
        return entry if entry is not None and entry.provider in self.by_provider else None

    def search(self, query: str, limit: int) -> list[Entry]:
        ranked = self.full.search(query, len(self.full.entries))
        return [e for e in ranked if e.provider in self.by_provider][: max(limit, 0)]


class Steps:
    """A toolset's full catalog, and what one step's decision makes of it."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def chosen(self, bundles: Sequence[str] | None) -> Decision:
        """The caller's own choice (`expose`), checked like a rule's."""
        if bundles is None:
            return Decision(None, "every tool, as the caller asked", "caller")
        return Decision(check_bundles(bundles, self.catalog.categories, "bundles"), "as the caller asked", "caller")

    def view(self, decision: Decision) -> Catalog:
        """The catalog a step sees under `decision`."""
        if decision.bundles is None:
            return self.catalog
        chosen = {p for name in decision.bundles for p in self.catalog.categories[name].providers}
        return StepCatalog(self.catalog, chosen)

    def hidden(self, name: str, decision: Decision | None) -> Entry | None:
        """The tool `name` means when it exists but `decision` leaves it out (else None)."""
        if decision is None or decision.bundles is None:
            return None
        try:
            return self.catalog.resolve(name)
        except Ambiguous:
            return None

    def denial(self, entry: Entry, decision: Decision | None) -> str:
        active = ", ".join(decision.bundles or () if decision is not None else ()) or "none"
        return f"tool '{entry.provider}' is not available in this step; the active bundles are: {active}"
