"""`generated.toolset(...)`: a `ToolSet` over the servers of a generated package, as its manifests describe them.

Nothing is started and nothing is read from the environment here: each server gets a `Connection`
that resolves its target (and the credentials it needs) when it first starts.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TextIO

from .audit.trail import AuditTrail
from .client.manifest import load_manifest
from .client.pinning import DEFAULT_PIN_TTL, Pinning
from .client.pool import DEFAULT_TIMEOUT, Connection, Pool
from .code.api import load as load_code_api
from .code.sandbox import CodeLimits
from .core.budget import MATERIALIZE_CAPS, Budget, RequestedMode
from .core.catalog import Catalog, Entry, Filter, RankerFactory
from .core.results import DEFAULT_MAX_CHARS, MediaStore
from .core.toolset import ToolSet
from .routing.rules import Router, Routing
from .textformats.choice import choose_format

ModelSize = Literal["small", "medium", "large"]


class PackageToolsets:
    """`generated.toolset(...)`: a `ToolSet` over servers of a generated package."""

    def __init__(self, package: str, subpackages: Sequence[str]) -> None:
        self.package = package
        self.subpackages = tuple(subpackages)

    def __call__(
        self,
        servers: Sequence[str] | None = None,
        *,
        mode: RequestedMode = "auto",
        context_window: int = Budget.context_window,
        budget_ratio: float = Budget.ratio,
        tool_limit: int = Budget.tool_limit,
        compact_tokens_per_tool: int | None = Budget.compact_tokens_per_tool,
        model_size: ModelSize = "medium",
        max_materialized: int | None = None,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        bundles: Mapping[str, Sequence[str]] | None = None,
        pinning: Pinning = "strict",
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float | None = None,
        pin_ttl: float = DEFAULT_PIN_TTL,
        env: Mapping[str, Mapping[str, str]] | None = None,
        headers: Mapping[str, Mapping[str, str]] | None = None,
        cwd: str | None = None,
        errlog: TextIO | None = None,
        max_result_chars: int = DEFAULT_MAX_CHARS,
        media_dir: str | None = None,
        ranker: RankerFactory | str | None = None,
        routes: Sequence[Mapping[str, Any]] = (),
        default_bundles: Sequence[str] | None = None,
        router: Router | None = None,
        bundle_descriptions: Mapping[str, str] | None = None,
        audit_dir: str | None = None,
        audit_arguments: bool = False,
        formats: Sequence[str] | None = None,
        primary: str | None = None,
        model_tool_calling: bool = True,
        allow_code: bool = False,
        code_limits: CodeLimits | None = None,
    ) -> ToolSet:
        """A toolset over `servers` (default: all), nothing started until the model calls a tool.

        `allow`/`deny` are `SERVER/TOOL` globs applied before any mode; `bundles` name groups of
        tools across servers (same globs) that routed mode lists as categories; `env`/`headers`
        give values by server name, as `connect()` takes them (`${VAR}` in them is expanded when
        that server starts). Nothing is read from the environment until a server starts, so a
        missing credential fails the calls to its own server only: `await ts.check()` fails fast.
        `timeout` bounds each call; `start_timeout` each start (default: the lockfile's, 30 s).
        `routes`, `default_bundles`, `router` and `bundle_descriptions` drive `ts.route(...)` (seed
        002's routing phase); `audit_dir` keeps its tool-calls.jsonl there (`audit_arguments`: with
        the arguments themselves, not only their digest).
        `formats`, `primary`, `model_tool_calling`: the tool-call format, chosen by seed 003's decision tree
        (`formats.choose_format`): native, code mode, or a text format (hermes, mistral, pythonic, json).
        `mode="code"` (or auto with `allow_code=True`) offers `run_code` over the package's stubs,
        in a pydantic-monty sandbox limited by `code_limits`.
        """
        manifests = {m.server: (sub, m) for sub in self.subpackages for m in [load_manifest(f"{self.package}.{sub}")]}
        chosen = list(manifests) if servers is None else list(dict.fromkeys(servers))
        unknown = [s for s in chosen if s not in manifests]
        if unknown:
            raise KeyError(f"no server named {unknown[0]!r} in {self.package} (it has: {', '.join(manifests)})")
        entries, connections = [], {}
        for server in chosen:
            sub, manifest = manifests[server]
            for item in manifest.tools:
                entries.append(
                    Entry(
                        server=server,
                        tool=item["tool"],
                        models=f"{self.package}.{sub}.models",
                        input_class=item.get("input"),
                        output_class=item.get("output"),
                    )
                )
            resolve = functools.partial(
                manifest.target, env=(env or {}).get(server), headers=(headers or {}).get(server), cwd=cwd
            )
            connections[server] = Connection(
                manifest,
                resolve,
                pinning=pinning,
                timeout=timeout,
                start_timeout=start_timeout,
                pin_ttl=pin_ttl,
                errlog=errlog,
            )
        catalog = Catalog(
            entries, servers=chosen, bundles=bundles, tool_filter=Filter(tuple(allow), tuple(deny)), ranker=ranker
        )
        budget = Budget(context_window, budget_ratio, tool_limit, compact_tokens_per_tool)
        routing = Routing(
            catalog, routes=routes, default_bundles=default_bundles, router=router, descriptions=bundle_descriptions
        )
        call_format = choose_format(formats, primary, model_tool_calling=model_tool_calling)
        code_api = load_code_api(self.package, [(s, manifests[s][0], manifests[s][1].tools) for s in chosen])
        return ToolSet(
            catalog,
            pool=Pool(connections),
            mode=mode,
            budget=budget,
            max_materialized=MATERIALIZE_CAPS[model_size] if max_materialized is None else max_materialized,
            max_result_chars=max_result_chars,
            media=MediaStore(media_dir),
            routing=routing,
            audit=None if audit_dir is None else AuditTrail(audit_dir, arguments=audit_arguments),
            call_format=call_format,
            code_api=code_api,
            code_limits=code_limits,
            allow_code=allow_code,
        )
