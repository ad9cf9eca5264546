"""Before the pipeline: `init` writes the config; `login`, `logout` and `auth status` handle OAuth sign-in."""

from __future__ import annotations

import sys

import click

from mcpvend.commands.common import Command, Options, Pipeline, fail, load, relative, say
from mcpvend.counts import plural
from mcpvend.errors import MCPVendError


@click.command(cls=Command, reads_config=False)
@click.option("--from", "source", type=click.Path(readable=False), help="Client config.")
@click.option("--force", is_flag=True, help="Replace an existing mcpvend.toml.")
def init(source: str | None, force: bool) -> None:
    """Write mcpvend.toml from an .mcp.json or Claude Desktop config.

    No secret is copied; on a terminal it asks which servers to keep.
    """
    from pathlib import Path

    from mcpvend.init_config import init as run_init

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    ask = (lambda name: click.confirm(f"include server '{name}'?", default=True)) if interactive else None
    try:
        written = run_init(Path.cwd(), source=None if source is None else Path(source), force=force, choose=ask)
    except MCPVendError as exc:
        fail(exc)
    click.echo(
        f"wrote {relative(written.path)} from {written.source} ({plural(len(written.servers), 'server')})", err=True
    )
    for variable, where in sorted(written.variables.items()):
        click.echo(f"  set ${{{variable}}} in the environment: {where} was not copied", err=True)
    for news in written.exclusions:
        click.echo(f"  {news}", err=True)
    click.echo("next: mcpvend lock && mcpvend generate", err=True)


@click.command(cls=Command)
@click.argument("server")
@click.option("--no-browser", is_flag=True, help="Print the sign-in URL only; do not open a browser.")
@click.pass_obj
def login(options: Options, server: str, no_browser: bool) -> None:
    """Sign in to an OAuth server, for lock and the package to use.

    The tokens are kept in your config directory (mode 0600), never in the repository.
    """
    import asyncio

    from mcpvend.signin import login as run_login

    try:
        signed = asyncio.run(run_login(load(options), server, browser=not no_browser, say=say))
    except MCPVendError as exc:
        fail(exc)
    scopes = f" with scopes {signed.scopes}" if signed.scopes else ""
    click.echo(f"signed in to '{server}'{scopes}; tokens kept in {signed.path} (yours alone)", err=True)


@click.command(cls=Command)
@click.argument("server")
@click.pass_obj
def logout(options: Options, server: str) -> None:
    """Forget the tokens and registration kept for an OAuth server."""
    from mcpvend.signin import logout as run_logout

    try:
        forgot = run_logout(load(options), server)
    except MCPVendError as exc:
        fail(exc)
    click.echo(f"signed out of '{server}'" if forgot else f"'{server}' had no sign-in to forget", err=True)


@click.group(cls=Pipeline)
def auth() -> None:
    """Who is signed in to the config's OAuth servers (auth status)."""


@auth.command("status")
@click.argument("servers", nargs=-1)
@click.pass_obj
def auth_status(options: Options, servers: tuple[str, ...]) -> None:
    """Each OAuth server: signed in or not, the scopes granted, when the access token expires."""
    import time

    from mcpvend.signin import oauth_servers, status

    try:
        config = load(options)
        names = servers or tuple(oauth_servers(config))
        found = [status(config, name) for name in names]
    except MCPVendError as exc:
        fail(exc)
    if not found:
        click.echo("no server of the config signs in with OAuth", err=True)
    for one in found:
        if not one.signed_in:
            click.echo(f"{one.server}: not signed in (mcpvend login {one.server})")
            continue
        left = (
            "" if one.expires_at is None else f", access token expires in {max(0, int(one.expires_at - time.time()))}s"
        )
        click.echo(f"{one.server}: signed in{f' (scopes: {one.scopes})' if one.scopes else ''}{left}")
