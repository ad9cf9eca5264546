"""`mcpvend serve`: the generated toolset as an MCP server, so any MCP client gets the pinned tools.

The listing is the `ToolSet`'s (reviewed descriptions and schemas, in the chosen mode) and every
call goes through `ToolSet.call`: validated, forwarded under strict pinning, normalized. Routed
mode materializes nothing here: a materialized tool would change the listing for every client
of the process, so the listing stays fixed and a found tool is called through `call_tool` (or by
its name, which works in every mode).
"""

from __future__ import annotations

import base64
import contextlib
import importlib.util
import os
import signal
import socket
import sys
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mcpvend import __version__
from mcpvend.codegen.generate import generate
from mcpvend.config import Config, ServerConfig
from mcpvend.errors import MCPVendError
from mcpvend.relay import Relay, masked, relay_elicitation, relay_roots, relay_sampling
from mcpvend.runtime.client.disguises import redact
from mcpvend.runtime.client.logs import REDACTING_FILTER
from mcpvend.serve_eras import era_result, era_tools
from mcpvend.serve_options import ServeOptions

if TYPE_CHECKING:
    import mcp_types as types
    import uvicorn
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server

    from mcpvend.runtime.core.results import ModelResult
    from mcpvend.runtime.toolset import ToolSet

HTTP_PATH = "/mcp"
_GUIDE = {
    "direct": "Every tool is listed with its full input schema.",
    "compact": "Tools are listed by name and one line: call get_tool_schema before a tool whose arguments you "
    "do not know. A call with wrong arguments returns the schema.",
    "routed": "Find tools with search_tools, or list_categories then browse_category; read one with "
    "get_tool_schema; run it with call_tool (or by its name). Tools your searches find are added to your "
    "tool list.",
    "code": "One tool, run_code: write Python against the typed tools its description lists and await them "
    "(asyncio.gather for several); the value of the last expression comes back.",
}


class ServeError(MCPVendError):
    """The generated package cannot be served as it is."""


def serve(config: Config, options: ServeOptions, announce: Callable[[str], None]) -> None:
    """Serve until the client hangs up (stdio) or the process is interrupted (http)."""
    import anyio

    with warnings.catch_warnings():  # e.g. an audit trail that cannot be written: one line, as warnings here are
        warnings.showwarning = lambda message, *_: announce(f"warning: {message}")
        toolset = load_toolset(config, options)  # its audit trail records the plan already
        for line in missing_variables(config, options.servers):
            announce(line)
        _guard_logs(config, options.servers)
        if options.transport == "stdio":
            anyio.run(_serve_stdio, toolset, options, announce)
        else:
            anyio.run(_serve_http, toolset, options, announce)


def load_toolset(config: Config, options: ServeOptions) -> ToolSet:
    """The generated package's toolset; a stale package is refused, since it is not what was reviewed."""
    chosen = config.select(options.servers)  # names the config lacks fail here, with the config's own message
    report = generate(config, check=True)
    if report.status == "stale":
        raise ServeError(f"{config.output} is stale; run `mcpvend generate` before serving it")
    env, headers = _values(config, chosen)
    package = _import_package(config.output)
    # The package's vendored runtime is this repo's runtime, copied: its own classes, under another module path.
    routing = None
    if config.routing is not None:  # [routing] bundles are categories; no route is decided here (an MCP request
        bundles, descriptions = config.routing.bundles, config.routing.descriptions  # says nothing of its step)
        routing = package.RoutingOptions(bundles, descriptions=descriptions)
    try:
        toolset = package.toolset(
            list(options.servers) or None,
            mode=options.mode,
            budget=package.Budget(context_window=options.context_window),
            connection=package.ConnectionOptions(
                env=env,
                headers=headers,
                cwd=str(config.base_dir),
                errlog=sys.stderr,
                elicitation=relay_elicitation,
                sampling=relay_sampling,
                roots=relay_roots,
            ),
            search=package.SearchOptions(ranker=None if options.ranker == "auto" else options.ranker),
            routing=routing,
            audit=None if options.audit_dir is None else package.AuditOptions(options.audit_dir),
        )
    except Exception as exc:  # noqa: BLE001 - the vendored runtime's ConnectError is a class of its own
        raise ServeError(str(exc.args[0]) if exc.args else type(exc).__name__) from None
    return cast("ToolSet", toolset)


def _values(config: Config, chosen: list[ServerConfig]) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """Env and header values by server, as the config writes them.

    Lockfiles (and so the package) know env and header names only; the values are in the config.
    Their `${VAR}`s are expanded by the runtime when each server starts, so a variable that is not
    set fails the calls to its own server, not the whole `serve`.
    """
    env = {server.name: dict(server.env) for server in chosen if server.transport == "stdio"}
    headers = {server.name: dict(server.headers) for server in chosen if server.transport != "stdio"}
    return env, headers


def missing_variables(config: Config, servers: tuple[str, ...]) -> list[str]:
    """One line per server that cannot start as the environment is now (its tools will answer with an error)."""
    lines = []
    for server in config.select(servers):
        try:
            server.target(config.base_dir, os.environ)
        except MCPVendError as exc:
            lines.append(f"warning: {exc}: its tools will answer with an error until it is set")
    return lines


def _guard_logs(config: Config, servers: tuple[str, ...]) -> None:
    """Register every configured secret with the filter `-v` puts on the log handlers, before any call.

    The package's runtime guards the loggers it knows with a filter of its own (a copy of this
    module's, in its own `_runtime`); what else logs a result (the SSE layer logs each chunk it sends)
    reaches the handlers, and this one.
    """
    for server in config.select(servers):
        with contextlib.suppress(MCPVendError):  # a missing variable: that server never starts
            REDACTING_FILTER.add(frozenset(server.target(config.base_dir, os.environ)[1]))


def _import_package(output: Path) -> Any:
    name = output.name
    loaded = sys.modules.get(name)
    if loaded is not None:
        if Path(getattr(loaded, "__file__", "") or "").parent.resolve() == output.resolve():
            return loaded
        raise ServeError(f"{output}: a module named {name!r} is already imported from elsewhere; rename the output")
    spec = importlib.util.spec_from_file_location(
        name, output / "__init__.py", submodule_search_locations=[str(output)]
    )
    if spec is None or spec.loader is None:
        raise ServeError(f"{output}/__init__.py cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ServeError(f"{output}/__init__.py failed to import: {exc}") from exc
    return module


def build_server(toolset: ToolSet, *, mask: bool = True) -> Server[Any]:
    """An MCP server whose tools are the toolset's specs and whose calls are the toolset's calls.

    Each client conversation gets its own view of the toolset (`ToolSet.session()`): in routed
    mode the tools its searches find join its own listing, announced to it alone with
    `notifications/tools/list_changed`, while every client shares the upstream servers.
    """
    import mcp_types as types
    from mcp.server.lowlevel import NotificationOptions, Server

    class ListChanging(Server[Any]):
        """Says, on every transport, that its tool list changes (a conversation's searches add tools)."""

        def create_initialization_options(
            self, notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
        ) -> Any:
            changes = notification_options or NotificationOptions(tools_changed=True)
            return super().create_initialization_options(changes, *args, **kwargs)

    conversations = _Conversations(toolset)
    relay = Relay(lambda: served_secrets(toolset, mask=mask))

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        specs = conversations.of(ctx).tool_specs("mcp")
        return types.ListToolsResult(
            tools=era_tools([types.Tool.model_validate(spec) for spec in specs], ctx.protocol_version)
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        conversation = conversations.of(ctx)
        listed = conversation.materialized
        result, question = await relay.call(ctx, params, lambda: conversation.call(params.name, params.arguments))
        if question is not None:  # the upstream asks this client something first
            return question
        if conversation.materialized != listed:
            await ctx.session.send_tool_list_changed()
        return era_result(to_call_result(conversation, result, mask=mask), ctx.protocol_version)

    return ListChanging(
        "mcpvend",
        version=__version__,
        instructions=instructions(toolset),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


class _Conversations:
    """One toolset view per client: the only client over stdio; over HTTP, each `Mcp-Session-Id`
    (a stateless request has none, and gets a view of its own). The newest 1,024 are kept."""

    LIMIT = 1024

    def __init__(self, toolset: ToolSet) -> None:
        self.toolset = toolset
        self.views: OrderedDict[str, ToolSet] = OrderedDict()

    def of(self, ctx: ServerRequestContext[Any]) -> ToolSet:
        request = ctx.request
        key = "stdio" if request is None else getattr(request, "headers", {}).get("mcp-session-id")
        if key is None:
            return self.toolset.session()
        view = self.views.pop(key, None) or self.toolset.session()
        self.views[key] = view
        while len(self.views) > self.LIMIT:
            self.views.popitem(last=False)
        return view


def instructions(toolset: ToolSet) -> str:
    servers = sorted({entry.server for entry in toolset.catalog.entries})
    return (
        f"Tools of {', '.join(servers) or 'no server'}, as reviewed in their lockfiles and pinned by mcpvend "
        f"({toolset.mode} mode). {_GUIDE[toolset.mode]}"
    )


def served_secrets(toolset: ToolSet, *, mask: bool) -> frozenset[str]:
    """The values masked in what serve sends: a proxy's callers are not its operators (off: a single user)."""
    return toolset.pool.secret_values() if toolset.pool is not None and mask else frozenset()


def to_call_result(toolset: ToolSet, result: ModelResult, *, mask: bool = True) -> types.CallToolResult:
    """The model's view of the call; images and audio go back as content, since an MCP client can show them."""
    import mcp_types as types

    secrets = served_secrets(toolset, mask=mask)
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=redact(result.text, secrets))]
    for ref in result.media:
        data = toolset.media.get(ref.sha256) if ref.kind in ("image", "audio") else None
        if data is None:
            continue
        encoded = base64.b64encode(data).decode("ascii")
        mime = ref.mime_type or "application/octet-stream"
        block = types.ImageContent if ref.kind == "image" else types.AudioContent
        content.append(block(type=ref.kind, data=encoded, mime_type=mime))  # type: ignore[arg-type]
    structured = None if result.is_error else result.structured  # any JSON value (2026-07-28): see serve_eras
    return types.CallToolResult(
        content=content, structured_content=masked(structured, secrets), is_error=result.is_error
    )


async def _warm(toolset: ToolSet, options: ServeOptions, announce: Callable[[str], None]) -> None:
    """`--warm`: start every upstream now, so that no client's first call pays for a start; one that
    cannot start is a warning, and is tried again on its first call."""
    if not options.warm:
        return
    try:
        await toolset.check()
    except Exception as exc:  # noqa: BLE001 - the vendored runtime's ConnectError is a class of its own
        announce(f"warning: {exc}")


async def _serve_stdio(toolset: ToolSet, options: ServeOptions, announce: Callable[[str], None]) -> None:
    """Serve until the client closes stdin or a signal comes, then close the upstreams first (see serve_stop)."""
    from mcp.server.stdio import stdio_server

    from mcpvend.serve_stop import Stop, UntilHangUp, close_upstreams

    stop = Stop()
    async with stop.watching(), stdio_server() as (read, write):
        try:
            with stop.scope:
                await _warm(toolset, options, announce)
                server = build_server(toolset, mask=options.mask_results)
                announce(f"serving {_summary(toolset)} on stdio")
                messages = UntilHangUp(read, stop.scope.cancel)
                await server.run(messages, write, server.create_initialization_options())
        finally:
            await close_upstreams(toolset)
            stop.die_if_signalled()


async def _serve_http(toolset: ToolSet, options: ServeOptions, announce: Callable[[str], None]) -> None:
    import uvicorn

    from mcpvend.serve_http import EXPOSED, http_app, is_loopback, shown
    from mcpvend.serve_stop import close_upstreams

    host = options.host
    try:
        listener = _listen(host, options.port)
        await _warm(toolset, options, announce)
        bound = listener.getsockname()[1]  # `--port 0` asks the OS for any free port
        app = http_app(build_server(toolset, mask=options.mask_results), options, bound, HTTP_PATH)
        web = _quiet_exit(uvicorn.Server)(uvicorn.Config(app, log_level="warning", lifespan="on"))
        if not is_loopback(host):
            announce(EXPOSED)
        announce(f"serving {_summary(toolset)} on http://{shown(host)}:{bound}{HTTP_PATH}")
        await web.serve(sockets=[listener])
    finally:
        await close_upstreams(toolset)


def _quiet_exit(base: type[uvicorn.Server]) -> type[uvicorn.Server]:
    """uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown, which would kill us before the
    upstream servers are stopped; this server shuts down the same way and then returns."""

    class Server(base):  # type: ignore[valid-type,misc]
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    return Server


def _listen(host: str, port: int) -> socket.socket:
    """Bind before serving, so a taken port is our one-line error rather than uvicorn's exit; and listen
    before the address is announced, so a client that connects at once waits in the backlog while
    uvicorn starts, instead of being refused."""
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY on accepted connections only for a socket that says TCP,
    # and without it Nagle's algorithm and delayed ACKs hold each response body about 40 ms.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(2048)  # uvicorn's own backlog
    except OSError as exc:
        listener.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return listener


def _summary(toolset: ToolSet) -> str:
    listed = len(toolset.tool_specs("mcp"))
    return f"{len(toolset.catalog.entries)} tools ({toolset.mode} mode, {listed} listed)"
