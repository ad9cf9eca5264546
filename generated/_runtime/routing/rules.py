# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Routing: which bundles of tools one step of an agent may use, and why (rules first, then a model router).

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..client.files import read_text
from ..core.catalog import Catalog
from ..core.steps import CONDITIONS, Decision, RouteInputs, RoutingError, check_bundles

RULE_KEYS = ("name", *CONDITIONS, "bundles")
LOGGER = logging.getLogger("mcpvend.routing")
# An async callable: a list of bundle names, or {"bundles": [...], "why": "..."} (a structured output).
Router = Callable[["RouteRequest"], Awaitable[Any]]


@dataclass(frozen=True)
class RoutingOptions:
    """Routing: `bundles` name groups of tools across servers (`SERVER/TOOL` globs; routed mode lists them as
    categories), `routes` map a step to bundles, `default_bundles` serve a step no rule matches, a model
    `router` decides what no rule does, `descriptions` tell that router what each bundle is for."""

    bundles: Mapping[str, Sequence[str]] | None = None
    routes: Sequence[Mapping[str, Any]] = ()
    default_bundles: Sequence[str] | None = None
    router: Router | None = None
    descriptions: Mapping[str, str] | None = None


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


class Routing:
    """The rules, the default and the model router of a toolset, over its full catalog."""

    def __init__(self, catalog: Catalog, options: RoutingOptions | None = None) -> None:
        options = options or RoutingOptions()
        self.catalog = catalog
        self.rules = parse_rules(options.routes, catalog.categories)
        known = catalog.categories
        default = options.default_bundles
        self.default = None if default is None else check_bundles(default, known, "default_bundles")
        if options.router is not None and not callable(options.router):
            raise RoutingError("router must be an async callable taking a RouteRequest")
        self.router = options.router
        self.descriptions = dict(options.descriptions or {})
        if unknown := [n for n in self.descriptions if n not in catalog.categories]:
            raise RoutingError(f"descriptions: unknown bundle {unknown[0]!r}")

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

    def decide_sync(self, inputs: RouteInputs) -> Decision:
        """Rules, then the default; with a model router configured, use `decide` (it may ask a model)."""
        if self.router is not None:
            raise RoutingError("this toolset has a model router: use `await ts.route(...)`")
        return self.by_rules(inputs) or self.fallback(inputs)

    async def decide(self, inputs: RouteInputs) -> Decision:
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


def load_routing(path: str | Path) -> RoutingOptions:
    """The `[routing]` table of an mcpvend.toml (or pyproject.toml's `[tool.mcpvend.routing]`), as `toolset()` takes it.

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
) -> RoutingOptions:
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
    default = None
    if "default_bundles" in table:
        default = list(check_bundles(table["default_bundles"], known, f"{where} default_bundles"))
    return RoutingOptions(bundles, list(routes), default, descriptions=descriptions)


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
