"""The `mcpvend` command: parse options, call one library function, map the result to an exit code."""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from generator import __version__
from generator.errors import MCPVendError

if TYPE_CHECKING:
    from generator.config import Config


@dataclass(frozen=True)
class Options:
    config: Path | None
    lockfiles: Path | None
    output: Path | None


def _fail(exc: MCPVendError) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config", type=click.Path(path_type=Path, dir_okay=False), help="mcpvend.toml, pyproject.toml or .mcp.json"
)
@click.option("--lockfiles", type=click.Path(path_type=Path, file_okay=False), help="Lockfile directory.")
@click.option("--output", type=click.Path(path_type=Path, file_okay=False), help="Generated package directory.")
@click.option("-v", "--verbose", is_flag=True, help="Show the MCP SDK's own log messages.")
@click.version_option(__version__, "--version", prog_name="mcpvend")
@click.pass_context
def main(ctx: click.Context, config: Path | None, lockfiles: Path | None, output: Path | None, verbose: bool) -> None:
    """Vendor MCP tools: lockfiles you review, typed Python you import."""
    # The SDK logs a traceback for every misbehaving server; our own message says it in one line.
    logging.basicConfig(level=logging.DEBUG if verbose else logging.CRITICAL, format="%(name)s: %(message)s")
    ctx.obj = Options(config=config, lockfiles=lockfiles, output=output)


def _load(options: Options) -> Config:
    from generator.config import find_config, load_config

    path = find_config(options.config, Path.cwd())
    return load_config(path, lockfiles=options.lockfiles, output=options.output)


@main.command()
@click.argument("servers", nargs=-1)
@click.option(
    "--check", is_flag=True, help="Compare live servers with their lockfiles; write nothing; exit 1 on drift."
)
@click.pass_obj
def lock(options: Options, servers: tuple[str, ...], check: bool) -> None:
    """Snapshot servers' tool lists into lockfiles/<server>.lock.json."""
    from generator.lock import exit_code
    from generator.lock import lock as run_lock
    from generator.progress import reporter_for

    try:
        config = _load(options)
        reporter = reporter_for(sys.stderr, relative_to=str(Path.cwd()))
        try:
            outcomes = run_lock(config, servers, check=check, environ=os.environ, reporter=reporter)
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
    """Generate the typed package from lockfiles (offline: no server is started)."""
    from generator.generate import generate as run_generate

    try:
        report = run_generate(_load(options), check=check, full=full)
    except MCPVendError as exc:
        _fail(exc)
    where = _relative(report.output)
    if report.status == "stale":
        click.echo(f"{where} is stale; run `mcpvend generate`:", err=True)
        for line in report.stale:
            click.echo(f"  {line}", err=True)
        sys.exit(1)
    verb = "generated" if report.status == "generated" else "up to date:"
    click.echo(f"{verb} {where} ({report.servers} servers, {report.tools} tools)", err=True)


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
