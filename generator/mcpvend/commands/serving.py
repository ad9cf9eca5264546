"""`serve`: the reviewed tools over MCP, to any MCP client, calls forwarded under pinning."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

import click

from mcpvend.commands.common import Command, Options, fail, load
from mcpvend.errors import MCPVendError

if TYPE_CHECKING:
    from mcpvend.runtime.core.budget import RequestedMode
    from mcpvend.serve_options import Transport

_HOST = r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(?:[0-9]{1,5}|\*))?"  # a Host value; `:*` is any port
_SHAPES = {
    "--allow-host": (_HOST, "HOST, HOST:PORT or HOST:*"),
    "--allow-origin": (rf"https?://{_HOST}", "an origin: http(s)://HOST[:PORT]"),
}


def _checked(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    """Each value in the shape the Host or Origin header has (the check is an exact match)."""
    pattern, shape = _SHAPES[param.opts[0]]
    for value in values:
        if not re.fullmatch(pattern, value):
            raise click.BadParameter(f"{value!r} is not {shape}", ctx, param)
    return values


@click.command(cls=Command)
@click.argument("servers", nargs=-1)
@click.option(
    "--mode", type=click.Choice(["auto", "direct", "compact", "routed", "code"]), default="auto", show_default=True
)
@click.option("--context-window", type=click.IntRange(min=1), default=128_000, show_default=True, help="For auto.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP only; anything but loopback is exposed.")
@click.option(
    "--allow-host", "allow_hosts", multiple=True, metavar="HOST", callback=_checked,
    help="HTTP only: also answer requests whose Host header is HOST (HOST:PORT, or HOST:* for any port), "
    "e.g. the name a reverse proxy is reached by. The bound address and loopback are always answered.",
)  # fmt: skip
@click.option(
    "--allow-origin", "allow_origins", multiple=True, metavar="ORIGIN", callback=_checked,
    help="HTTP only: also answer browser requests from ORIGIN (e.g. https://app.example.com).",
)  # fmt: skip
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="HTTP only; 0: any.")
@click.option(
    "--ranker",
    type=click.Choice(["auto", "bm25", "hybrid"]),
    default="auto",
    show_default=True,
    help="auto: hybrid where the package vendors search vectors; hybrid needs mcpvend[semantic].",
)
@click.option("--audit-dir", metavar="DIR", help="Append every call, search and route to DIR/tool-calls.jsonl.")
@click.option("--warm", is_flag=True, help="Start every upstream now, not on its first call.")
@click.option(
    "--session-idle", type=click.FloatRange(min=1), default=300.0, show_default=True, metavar="S",
    help="HTTP only: close a session unused for S seconds.",
)  # fmt: skip
@click.option(
    "--max-sessions", type=click.IntRange(min=1), default=1000, show_default=True, metavar="N",
    help="HTTP only: at most N sessions at once; one more closes the session idle longest.",
)  # fmt: skip
@click.option(
    "--unmasked-results", is_flag=True,
    help="Pass configured secrets in tool results and in questions on as sent (a single-user setup); masked "
    "by default.",
)  # fmt: skip
@click.pass_obj
def serve(
    options: Options,
    servers: tuple[str, ...],
    mode: str,
    context_window: int,
    transport: str,
    host: str,
    allow_hosts: tuple[str, ...],
    allow_origins: tuple[str, ...],
    port: int,
    ranker: str,
    audit_dir: str | None,
    warm: bool,
    session_idle: float,
    max_sessions: int,
    unmasked_results: bool,
) -> None:
    """Serve the reviewed tools over MCP, calls forwarded under pinning."""
    from mcpvend.serve import serve as run_serve
    from mcpvend.serve_options import ServeOptions

    chosen = ServeOptions(
        servers,
        cast("RequestedMode", mode),
        context_window,
        cast("Transport", transport),
        host,
        port,
        ranker,
        audit_dir=audit_dir,
        mask_results=not unmasked_results,
        warm=warm,
        session_idle=session_idle,
        max_sessions=max_sessions,
        allow_hosts=allow_hosts,
        allow_origins=allow_origins,
    )
    try:
        run_serve(load(options), chosen, announce=lambda line: click.echo(line, err=True))
    except MCPVendError as exc:
        fail(exc)
