"""The `mcpvend` command: parse options, call one library function, map the result to an exit code."""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

import click

from mcpvend import __version__
from mcpvend.counts import plural
from mcpvend.errors import ConfigError, MCPVendError, printable

if TYPE_CHECKING:
    from mcpvend.config import Config
    from mcpvend.drift.compare import FailOn
    from mcpvend.drift.section import Format
    from mcpvend.runtime.core.budget import RequestedMode
    from mcpvend.serve import Transport


@dataclass(frozen=True)
class Options:
    """The global options, from before the command's name and after it."""

    config: Path | None = None
    lockfiles: Path | None = None
    output: Path | None = None
    verbose: bool = False


def _fail(exc: MCPVendError) -> NoReturn:
    click.echo(f"error: {printable(str(exc))}", err=True)
    sys.exit(2)


def _take(ctx: click.Context, param: click.Parameter, value: Path | bool | None) -> None:
    """Record a global option; given both before and after the command, the two must agree."""
    options = ctx.ensure_object(Options)
    if value is None or value is False or param.name is None:
        return
    earlier = getattr(options, param.name)
    if earlier not in (None, False) and earlier != value:
        flag = param.opts[-1]
        raise click.UsageError(
            f"{flag} given before and after '{ctx.info_name}' with different values: {earlier} and {value}", ctx
        )
    given: dict[str, Any] = {param.name: value}
    ctx.obj = replace(options, **given)


# Paths are checked where they are used, so that a bad one gets our one-line error, not click's usage text.
_PATH = click.Path(path_type=Path, readable=False)
_GLOBAL_OPTIONS: dict[str, tuple[list[str], dict[str, Any]]] = {
    "config": (["--config"], {"type": _PATH, "help": "mcpvend.toml, pyproject.toml or .mcp.json"}),
    "lockfiles": (["--lockfiles"], {"type": _PATH, "help": "Lockfile directory."}),
    "output": (["--output"], {"type": _PATH, "help": "Generated package directory."}),
    "verbose": (["-v", "--verbose"], {"is_flag": True, "help": "Show the MCP SDK's own log messages."}),
}


def _global_options(names: tuple[str, ...] = tuple(_GLOBAL_OPTIONS)) -> list[click.Parameter]:
    """Fresh option objects for the group and for each command: ruff and uv take them on either side."""
    return [
        click.Option(decls, callback=_take, expose_value=False, **attrs)
        for name, (decls, attrs) in _GLOBAL_OPTIONS.items()
        if name in names
    ]


def _configure_logging(verbose: bool) -> None:
    # The SDK logs a traceback for every misbehaving server; our own message says it in one line.
    logging.basicConfig(level=logging.DEBUG if verbose else logging.CRITICAL, format="%(name)s: %(message)s")
    if verbose:  # every record, whatever logged it, loses the secrets of the servers reached so far
        from mcpvend.runtime.client.targets import REDACTING_FILTER

        for handler in logging.getLogger().handlers:
            handler.addFilter(REDACTING_FILTER)


class _Command(click.Command):
    """A command: takes the global options after its name too, and its summary is never cut short."""

    def __init__(self, *args: Any, reads_config: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params += _global_options() if reads_config else _global_options(("verbose",))

    def get_short_help_str(self, limit: int = 45) -> str:
        return super().get_short_help_str(limit=sys.maxsize)  # wrapped by the help formatter, not truncated

    def invoke(self, ctx: click.Context) -> Any:
        _configure_logging(ctx.ensure_object(Options).verbose)
        return super().invoke(ctx)


class _Pipeline(click.Group):
    """`mcpvend --help` lists the commands in the order they are used (as defined below), not by name."""

    command_class = _Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def get_short_help_str(self, limit: int = 45) -> str:
        return super().get_short_help_str(limit=sys.maxsize)  # as for a command: wrapped, never cut


@click.group(cls=_Pipeline, params=_global_options(), context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="mcpvend")
def main() -> None:
    """Vendor MCP tools: lockfiles you review, typed Python you import."""


def _load(options: Options) -> Config:
    from mcpvend.config import find_config, load_config

    path = find_config(options.config, Path.cwd())
    return load_config(path, lockfiles=options.lockfiles, output=options.output)


@main.command(reads_config=False)
@click.option("--from", "source", type=click.Path(path_type=Path, readable=False), help="Client config.")
@click.option("--force", is_flag=True, help="Replace an existing mcpvend.toml.")
def init(source: Path | None, force: bool) -> None:
    """Write mcpvend.toml from an .mcp.json or Claude Desktop config.

    No secret is copied; on a terminal it asks which servers to keep.
    """
    from mcpvend.init_config import init as run_init

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    ask = (lambda name: click.confirm(f"include server '{name}'?", default=True)) if interactive else None
    try:
        written = run_init(Path.cwd(), source=source, force=force, choose=ask)
    except MCPVendError as exc:
        _fail(exc)
    click.echo(
        f"wrote {_relative(written.path)} from {written.source} ({plural(len(written.servers), 'server')})", err=True
    )
    for variable, where in sorted(written.variables.items()):
        click.echo(f"  set ${{{variable}}} in the environment: {where} was not copied", err=True)
    for news in written.exclusions:
        click.echo(f"  {news}", err=True)
    click.echo("next: mcpvend lock && mcpvend generate", err=True)


@main.command()
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
        signed = asyncio.run(run_login(_load(options), server, browser=not no_browser, say=_say))
    except MCPVendError as exc:
        _fail(exc)
    scopes = f" with scopes {signed.scopes}" if signed.scopes else ""
    click.echo(f"signed in to '{server}'{scopes}; tokens kept in {signed.path} (yours alone)", err=True)


@main.command()
@click.argument("server")
@click.pass_obj
def logout(options: Options, server: str) -> None:
    """Forget the tokens and registration kept for an OAuth server."""
    from mcpvend.signin import logout as run_logout

    try:
        forgot = run_logout(_load(options), server)
    except MCPVendError as exc:
        _fail(exc)
    click.echo(f"signed out of '{server}'" if forgot else f"'{server}' had no sign-in to forget", err=True)


@main.group(cls=_Pipeline)
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
        config = _load(options)
        names = servers or tuple(oauth_servers(config))
        found = [status(config, name) for name in names]
    except MCPVendError as exc:
        _fail(exc)
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


def _say(text: str) -> None:
    click.echo(text, err=True)


@main.command()
@click.argument("servers", nargs=-1)
@click.option(
    "--check", is_flag=True, help="Compare live servers with their lockfiles; write nothing; exit 1 on drift."
)
@click.option("--jobs", type=click.IntRange(min=1), metavar="N", help="Start at most N servers at once (default: all).")
@click.pass_obj
def lock(options: Options, servers: tuple[str, ...], check: bool, jobs: int | None) -> None:
    """Snapshot servers' tool lists into lockfiles/<server>.lock.json."""
    from mcpvend.drift.compare import explain
    from mcpvend.lock.progress import reporter_for
    from mcpvend.lock.run import exit_code
    from mcpvend.lock.run import lock as run_lock

    try:
        config = _load(options)
        reporter = reporter_for(sys.stderr, relative_to=str(Path.cwd()))
        try:
            outcomes = run_lock(
                config, servers, check=check, jobs=jobs, environ=os.environ, reporter=reporter, explain=explain
            )
        finally:
            reporter.close()
    except MCPVendError as exc:
        _fail(exc)
    sys.exit(exit_code(outcomes))


@main.command()
@click.option("--check", is_flag=True, help="Exit 1 and list what differs if the output is stale; write nothing.")
@click.option("--full", is_flag=True, help="Trust no recorded hash: regenerate everything and compare (for CI).")
@click.pass_obj
def generate(options: Options, check: bool, full: bool) -> None:
    """Generate the typed package from lockfiles (offline).

    No server is started: the lockfiles are all it reads.
    """
    from mcpvend.codegen.generate import generate as run_generate
    from mcpvend.lock.agreement import SourceMismatch

    try:
        report = run_generate(_load(options), check=check, full=full)
    except SourceMismatch as exc:  # a check that failed; refused (nothing written) when generating
        for line in exc.lines:
            click.echo(printable(line) if check else f"error: {printable(line)}", err=True)
        sys.exit(1 if check else 2)
    except MCPVendError as exc:
        _fail(exc)
    where = _relative(report.output)
    if report.status == "stale":
        click.echo(f"{where} is stale; run `mcpvend generate`:", err=True)
        for line in report.stale:
            click.echo(f"  {printable(line)}", err=True)
        sys.exit(1)
    verb = "generated" if report.status == "generated" else "up to date:"
    click.echo(f"{verb} {where} ({plural(report.servers, 'server')}, {plural(report.tools, 'tool')})", err=True)


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


_FORMAT = click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "markdown", "sarif"]), default="text", show_default=True
)
_IGNORE = click.option(
    "--ignore",
    metavar="GLOB",
    multiple=True,
    help="Accept findings whose JSON Pointer or tool name matches (repeatable); still counted, never failing.",
)
_FAIL_ON = click.option(
    "--fail-on",
    type=click.Choice(["breaking", "description", "any", "none"]),
    default="any",
    show_default=True,
    help="Exit 1 when findings reach this level.",
)


@main.command()
@click.argument("old", required=False)
@click.argument("new", required=False)
@click.option("--live", metavar="SERVER", help="Compare SERVER's lockfile with the running server.")
@_FORMAT
@_FAIL_ON
@_IGNORE
@click.pass_obj
def diff(
    options: Options,
    old: str | None,
    new: str | None,
    live: str | None,
    fmt: str,
    fail_on: str,
    ignore: tuple[str, ...],
) -> None:
    """Classified drift between lockfiles, or a lockfile and its server.

    OLD and NEW are paths or REV:path (read with git); --live SERVER compares its lockfile with what
    the server serves now.
    """
    from mcpvend.drift.compare import reaches
    from mcpvend.drift.report import render
    from mcpvend.drift.sources import diff_live, diff_specs

    if (live is None) == (old is None or new is None) or (live and (old or new)):
        raise click.UsageError("give OLD and NEW lockfiles, or --live SERVER")
    try:
        if live:
            section = diff_live(_load(options), live, os.environ, ignore)
        else:
            assert old is not None and new is not None
            section = diff_specs(old, new, Path.cwd(), _load_if_any(options), ignore)
    except MCPVendError as exc:
        _fail(exc)
    click.echo(render([section], cast("Format", fmt), colour=sys.stdout.isatty(), command="diff"), nl=False)
    sys.exit(1 if reaches(section.findings, cast("FailOn", fail_on)) else 0)


def _load_if_any(options: Options) -> Config | None:
    """The config, for a diff of two lockfiles, which needs none: a config found but unreadable gets a warning."""
    from mcpvend.config import find_config, load_config

    try:
        path = find_config(options.config, Path.cwd())
    except ConfigError:
        if options.config is not None:
            raise
        return None
    try:
        return load_config(path, lockfiles=options.lockfiles, output=options.output)
    except ConfigError as exc:
        if options.config is not None:
            raise
        click.echo(f"warning: {exc}; comparing without its servers and [lint] ignore", err=True)
        return None


@main.command()
@click.argument("servers", nargs=-1)
@_FORMAT
@_FAIL_ON
@_IGNORE
@click.pass_obj
def lint(options: Options, servers: tuple[str, ...], fmt: str, fail_on: str, ignore: tuple[str, ...]) -> None:
    """Check locked tool texts for tool-poisoning patterns (offline)."""
    from mcpvend.drift.compare import reaches
    from mcpvend.drift.report import render
    from mcpvend.drift.sources import lint_lockfiles

    try:
        sections = lint_lockfiles(_load(options), servers, ignore)
    except MCPVendError as exc:
        _fail(exc)
    click.echo(render(sections, cast("Format", fmt), colour=sys.stdout.isatty(), command="lint"), nl=False)
    sys.exit(1 if reaches([f for s in sections for f in s.findings], cast("FailOn", fail_on)) else 0)


@main.command()
@click.argument("servers", nargs=-1)
@click.option(
    "--context-window",
    type=click.IntRange(min=1),
    default=128_000,
    show_default=True,
    help="For the auto mode's figures.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def show(options: Options, servers: tuple[str, ...], context_window: int, fmt: str) -> None:
    """Locked tools, annotations and tokens per ToolSet mode (offline)."""
    from mcpvend.lock.lockfile import read_configured

    try:
        config = _load(options)
        locks = read_configured(config, servers)
    except MCPVendError as exc:
        _fail(exc)
    from mcpvend.runtime.core.budget import Budget
    from mcpvend.show import render_json, render_text, views

    budget = Budget(context_window=context_window)
    per_server, total = views(config, locks, budget)
    text = render_json(per_server, total, budget) if fmt == "json" else render_text(per_server, total, budget)
    click.echo(text, nl=False)


@main.command()
@click.argument("servers", nargs=-1)
@click.option(
    "--mode", type=click.Choice(["auto", "direct", "compact", "routed", "code"]), default="auto", show_default=True
)
@click.option("--context-window", type=click.IntRange(min=1), default=128_000, show_default=True, help="For auto.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP only; anything but loopback is exposed.")
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
    help="HTTP only: at most N sessions at once.",
)  # fmt: skip
@click.option(
    "--unmasked-results", is_flag=True,
    help="Pass configured secrets in tool results on as sent (a single-user setup); masked by default.",
)  # fmt: skip
@click.pass_obj
def serve(
    options: Options,
    servers: tuple[str, ...],
    mode: str,
    context_window: int,
    transport: str,
    host: str,
    port: int,
    ranker: str,
    audit_dir: str | None,
    warm: bool,
    session_idle: float,
    max_sessions: int,
    unmasked_results: bool,
) -> None:
    """Serve the reviewed tools over MCP, calls forwarded under pinning."""
    from mcpvend.serve import ServeOptions
    from mcpvend.serve import serve as run_serve

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
    )
    try:
        run_serve(_load(options), chosen, announce=lambda line: click.echo(line, err=True))
    except MCPVendError as exc:
        _fail(exc)
