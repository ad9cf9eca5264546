# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Seed 002's routing phase: which bundles of tools one step of an agent may use, and why.

Before a step that lets the model call tools, the program says what the step is (workflow, role,
step name, the user's intent). Rules map that to bundles: the fast path, the same answer every
time, readable in review. A model-based router decides only what no rule does, and its answer is
checked like any model output. The decision narrows the toolset for that step: a tool outside it
is in no spec, no search and no category, and a call to it is refused, so a step cannot reach
what its routing did not give it.
"""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypedDict

from ..client.files import read_text
from ..core.catalog import Ambiguous, Catalog, Entry

CONDITIONS = ("workflow", "role", "step", "intent")
RULE_KEYS = ("name", *CONDITIONS, "bundles")
LOGGER = logging.getLogger("mcpvend.routing")
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
class Rule:
    """Bundles for the steps whose inputs match: `workflow`, `role`, `step` exactly, `intent` by regex."""

    label: str  # how `why` and errors name it: its `name`, else routes[INDEX]
    bundles: tuple[str, ...]
    workflow: str | None = None
    role: str | None = None
    step: str | None = None
    intent: re.Pattern[str] | None = None

    def matches(self, inputs: RouteInputs) -> bool:
        exact = all(
            wanted is None or wanted == given
            for wanted, given in ((self.workflow, inputs.workflow), (self.role, inputs.role), (self.step, inputs.step))
        )
        if not exact or self.intent is None:
            return exact
        return inputs.intent is not None and self.intent.search(inputs.intent) is not None


@dataclass(frozen=True)
class Decision:
    """The bundles a step may use (None: every tool), in order, and why."""

    bundles: tuple[str, ...] | None
    why: str
    source: Source
    rules: tuple[str, ...] = ()  # the labels of the rules that matched
    error: str | None = None  # the model router's answer could not be used (the default applies)
    inputs: RouteInputs = field(default_factory=RouteInputs)


@dataclass(frozen=True)
class BundleInfo:
    """A bundle (or a server) as the model router reads it."""

    name: str
    kind: str  # "bundle" | "server"
    description: str
    tools: tuple[tuple[str, str], ...]  # (provider name, one-line summary)


@dataclass(frozen=True)
class RouteRequest:
    """What a model-based router gets: the step's inputs and the bundles it may choose from."""

    inputs: RouteInputs
    bundles: tuple[BundleInfo, ...]

    def as_json(self) -> dict[str, Any]:
        """The request as plain JSON, e.g. for the router model's prompt."""
        inputs = {key: getattr(self.inputs, key) for key in CONDITIONS if getattr(self.inputs, key) is not None}
        bundles = [
            {"name": b.name, "kind": b.kind, "description": b.description, "tools": [t for t, _ in b.tools]}
            for b in self.bundles
        ]
        return {"inputs": inputs, "bundles": bundles}

    def response_schema(self) -> dict[str, Any]:
        """A JSON Schema of the answer, for a provider's structured output: the bundle names, and why."""
        names = [b.name for b in self.bundles]
        return {
            "type": "object",
            "properties": {
                "bundles": {"type": "array", "items": {"type": "string", "enum": names}},
                "why": {"type": "string"},
            },
            "required": ["bundles", "why"],
            "additionalProperties": False,
        }


# An async callable: a list of bundle names, or {"bundles": [...], "why": "..."} (a structured output).
Router = Callable[[RouteRequest], Awaitable[Any]]


def check_bundles(names: object, known: Collection[str] | None, where: str) -> tuple[str, ...]:
    """`names` without duplicates, each a bundle or server `known` has (None: unchecked); else a `RoutingError`."""
    if isinstance(names, str) or not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
        raise RoutingError(f"{where}: bundles must be a list of bundle names")
    unknown = [] if known is None else [n for n in names if n not in known]
    if unknown:
        listed = ", ".join(sorted(known or ())) or "none"
        raise RoutingError(f"{where}: unknown bundle {unknown[0]!r} (known: {listed})")
    return tuple(dict.fromkeys(names))


def parse_rules(routes: object, known: Collection[str] | None, where: str = "routes") -> tuple[Rule, ...]:
    """Rules from plain data (`routes=`, or the config's `[[routing.routes]]`), checked against the bundles known."""
    if isinstance(routes, str | Mapping) or not isinstance(routes, Sequence):
        raise RoutingError(f"{where} must be a list of rules")
    return tuple(_rule(raw, known, f"{where}[{index}]") for index, raw in enumerate(routes))


def _rule(raw: object, known: Collection[str] | None, where: str) -> Rule:
    if not isinstance(raw, Mapping):
        raise RoutingError(f"{where}: a rule must be a table of {', '.join(RULE_KEYS)}")
    name = raw.get("name")
    if name is not None and not (isinstance(name, str) and name):
        raise RoutingError(f"{where}: 'name' must be a non-empty string")
    label = f"{where} ({name})" if name else where
    if unknown := sorted(set(raw) - set(RULE_KEYS)):
        raise RoutingError(f"{label}: unknown key {unknown[0]!r} (expected {', '.join(RULE_KEYS)})")
    conditions = {key: raw[key] for key in CONDITIONS if key in raw}
    if not conditions:
        raise RoutingError(f"{label}: a rule names at least one of {', '.join(CONDITIONS)} (else use default_bundles)")
    for key, value in conditions.items():
        if not isinstance(value, str) or not value:
            raise RoutingError(f"{label}: {key!r} must be a non-empty string")
    if "bundles" not in raw:
        raise RoutingError(f"{label}: a rule needs 'bundles'")
    bundles = check_bundles(raw["bundles"], known, label)
    intent = None
    if "intent" in conditions:
        try:
            intent = re.compile(conditions.pop("intent"), re.IGNORECASE)
        except re.error as exc:
            raise RoutingError(f"{label}: 'intent' is not a regular expression: {exc}") from None
    return Rule(name or where, bundles, intent=intent, **conditions)


def _why(rule: Rule) -> str:
    said = [f"{key}={getattr(rule, key)!r}" for key in ("workflow", "role", "step") if getattr(rule, key) is not None]
    if rule.intent is not None:
        said.append(f"intent=/{rule.intent.pattern}/")
    return f"{rule.label} ({', '.join(said)})"


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


class Routing:
    """The rules, the default and the model router of a toolset, over its full catalog."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        routes: Sequence[Mapping[str, Any]] = (),
        default_bundles: Sequence[str] | None = None,
        router: Router | None = None,
        descriptions: Mapping[str, str] | None = None,
    ) -> None:
        self.catalog = catalog
        self.rules = parse_rules(routes, catalog.categories)
        known = catalog.categories
        self.default = None if default_bundles is None else check_bundles(default_bundles, known, "default_bundles")
        if router is not None and not callable(router):
            raise RoutingError("router must be an async callable taking a RouteRequest")
        self.router = router
        self.descriptions = dict(descriptions or {})
        if unknown := [n for n in self.descriptions if n not in catalog.categories]:
            raise RoutingError(f"bundle_descriptions: unknown bundle {unknown[0]!r}")

    def by_rules(self, inputs: RouteInputs) -> Decision | None:
        """The decision of the rules that match, in rule order, or None when none does."""
        matched = [rule for rule in self.rules if rule.matches(inputs)]
        if not matched:
            return None
        bundles = tuple(dict.fromkeys(b for rule in matched for b in rule.bundles))
        why = "matched " + "; ".join(_why(rule) for rule in matched)
        return Decision(bundles, why, "rules", tuple(rule.label for rule in matched), inputs=inputs)

    def fallback(self, inputs: RouteInputs, error: str | None = None) -> Decision:
        """What a step gets when nothing decided: `default_bundles`, else every tool."""
        reason = f"the model router's answer was not used: {error}" if error else "no rule matched"
        if self.default is None:
            return Decision(None, f"{reason}; every tool (no default_bundles)", "default", error=error, inputs=inputs)
        return Decision(self.default, f"{reason}; default_bundles", "default", error=error, inputs=inputs)

    def decide(self, inputs: RouteInputs) -> Decision:
        """Rules, then the default; with a model router configured, use `adecide` (it may ask a model)."""
        if self.router is not None:
            raise RoutingError("this toolset has a model router: use `await ts.aroute(...)`")
        return self.by_rules(inputs) or self.fallback(inputs)

    async def adecide(self, inputs: RouteInputs) -> Decision:
        """Rules, then the model router for what no rule decides, then the default."""
        decided = self.by_rules(inputs)
        if decided is not None or self.router is None:
            return decided or self.fallback(inputs)
        try:
            answer = await self.router(self.request(inputs))
            bundles, why = self._answer(answer)
        except Exception as exc:  # noqa: BLE001 - a router that fails is an error decision, never a failed step
            error = str(exc) if isinstance(exc, RoutingError) else f"it raised {type(exc).__name__}: {exc}"
            LOGGER.warning("model router: %s", error)
            return self.fallback(inputs, error)
        return Decision(bundles, f"model router: {why}" if why else "model router", "router", inputs=inputs)

    def chosen(self, bundles: Sequence[str] | None) -> Decision:
        """The caller's own choice (`expose`, `tool_specs(bundles=...)`), checked like a rule's."""
        if bundles is None:
            return Decision(None, "every tool, as the caller asked", "caller")
        return Decision(check_bundles(bundles, self.catalog.categories, "bundles"), "as the caller asked", "caller")

    def request(self, inputs: RouteInputs) -> RouteRequest:
        infos = tuple(
            BundleInfo(
                name,
                category.kind,
                self.descriptions.get(name, ""),
                tuple((p, self.catalog.by_provider[p].summary) for p in category.providers),
            )
            for name, category in self.catalog.categories.items()
        )
        return RouteRequest(inputs, infos)

    def _answer(self, answer: object) -> tuple[tuple[str, ...], str]:
        """The router's bundles and reason; what a model wrote is checked before anything is exposed."""
        why: object = ""
        if isinstance(answer, Mapping):
            why = answer.get("why", "")
            if not isinstance(why, str):
                raise RoutingError("its 'why' is not a string")
            answer = answer.get("bundles")
        return check_bundles(answer, self.catalog.categories, "its answer"), str(why)

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


def load_routing(path: str | Path) -> dict[str, Any]:
    """The `[routing]` table of an mcpvend.toml (or pyproject.toml's `[tool.mcpvend.routing]`) as `toolset()` options.

    For a program that runs the generated package without mcpvend installed; the bundle names in
    its rules are checked when the toolset is made, against that toolset's bundles and servers.
    """
    path = Path(path)
    try:
        table = tomllib.loads(read_text(path))  # a FIFO, a device or a huge file is refused, not read forever
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RoutingError(f"{path}: cannot read: {exc}") from None
    if path.name == "pyproject.toml":
        table = table.get("tool", {}).get("mcpvend", {})
    return routing_options(table.get("routing", {}), where=f"{path}: [routing]")


def routing_options(
    table: object, *, where: str = "[routing]", servers: Collection[str] | None = None
) -> dict[str, Any]:
    """`bundles`, `bundle_descriptions`, `routes` and `default_bundles` from a `[routing]` table, checked.

    With `servers` (the config knows them), every bundle name in a rule or the default must be one
    of the table's bundles or a server; without, only the shape is checked here.
    """
    if not isinstance(table, Mapping):
        raise RoutingError(f"{where} must be a table")
    if unknown := sorted(set(table) - {"bundles", "routes", "default_bundles"}):
        raise RoutingError(f"{where}: unknown key {unknown[0]!r} (expected bundles, routes, default_bundles)")
    raw_bundles = table.get("bundles", {})
    if not isinstance(raw_bundles, Mapping):
        raise RoutingError(f"{where}: 'bundles' must be a table of bundle name to tool globs")
    bundles: dict[str, list[str]] = {}
    descriptions: dict[str, str] = {}
    for name, value in raw_bundles.items():
        bundles[name], description = _bundle(value, f"{where} bundles.{name}")
        if description:
            descriptions[name] = description
    known = None if servers is None else {*bundles, *servers}
    routes = table.get("routes", [])
    parse_rules(routes, known, f"{where} routes")
    options: dict[str, Any] = {"bundles": bundles, "bundle_descriptions": descriptions, "routes": list(routes)}
    if "default_bundles" in table:
        options["default_bundles"] = list(check_bundles(table["default_bundles"], known, f"{where} default_bundles"))
    return options


def _bundle(value: object, where: str) -> tuple[list[str], str]:
    """A bundle is a list of `SERVER/TOOL` globs, or a table with `tools` and a `description` for the router."""
    description: object = ""
    if isinstance(value, Mapping):
        if unknown := sorted(set(value) - {"tools", "description"}):
            raise RoutingError(f"{where}: unknown key {unknown[0]!r} (expected tools, description)")
        description = value.get("description", "")
        value = value.get("tools")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RoutingError(f"{where}: a bundle is a list of SERVER/TOOL globs (or a table with 'tools')")
    if not isinstance(description, str):
        raise RoutingError(f"{where}: 'description' must be a string")
    return list(value), description
