"""What a reviewer reads: `diff` (drift between lockfiles, or a lockfile and its server), `lint` (tool
poisoning) and `show` (the locked tools and their tokens per mode).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, cast

import click

from mcpvend.commands.common import Command, Options, fail, load
from mcpvend.errors import ConfigError, MCPVendError

if TYPE_CHECKING:
    from mcpvend.config import Config
    from mcpvend.drift.compare import FailOn
    from mcpvend.drift.section import Format


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


@click.command(cls=Command)
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
    from pathlib import Path

    from mcpvend.drift.compare import reaches
    from mcpvend.drift.report import render
    from mcpvend.drift.sources import diff_live, diff_specs

    if (live is None) == (old is None or new is None) or (live and (old or new)):
        raise click.UsageError("give OLD and NEW lockfiles, or --live SERVER")
    try:
        if live:
            section = diff_live(load(options), live, os.environ, ignore)
        else:
            assert old is not None and new is not None
            section = diff_specs(old, new, Path.cwd(), _load_if_any(options), ignore)
    except MCPVendError as exc:
        fail(exc)
    click.echo(render([section], cast("Format", fmt), colour=sys.stdout.isatty(), command="diff"), nl=False)
    sys.exit(1 if reaches(section.findings, cast("FailOn", fail_on)) else 0)


def _load_if_any(options: Options) -> Config | None:
    """The config, for a diff of two lockfiles, which needs none: a config found but unreadable gets a warning."""
    from pathlib import Path

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


@click.command(cls=Command, offline=True)
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
        sections = lint_lockfiles(load(options), servers, ignore)
    except MCPVendError as exc:
        fail(exc)
    click.echo(render(sections, cast("Format", fmt), colour=sys.stdout.isatty(), command="lint"), nl=False)
    sys.exit(1 if reaches([f for s in sections for f in s.findings], cast("FailOn", fail_on)) else 0)


@click.command(cls=Command)
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
        config = load(options)
        locks = read_configured(config, servers)
    except MCPVendError as exc:
        fail(exc)
    from mcpvend.runtime.core.budget import Budget
    from mcpvend.show import render_json, render_text, views

    budget = Budget(context_window=context_window)
    per_server, total = views(config, locks, budget)
    text = render_json(per_server, total, budget) if fmt == "json" else render_text(per_server, total, budget)
    click.echo(text, nl=False)
