"""The two commands that write: `lock` snapshots servers into lockfiles, `generate` writes the package."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from mcpvend.commands.common import Command, Options, fail, load, relative
from mcpvend.counts import plural
from mcpvend.errors import MCPVendError, printable


@click.command(cls=Command)
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
        config = load(options)
        reporter = reporter_for(sys.stderr, relative_to=os.getcwd())
        try:
            outcomes = run_lock(
                config, servers, check=check, jobs=jobs, environ=os.environ, reporter=reporter, explain=explain
            )
        finally:
            reporter.close()
    except MCPVendError as exc:
        fail(exc)
    sys.exit(exit_code(outcomes))


@click.command(cls=Command, offline=True)
@click.option("--check", is_flag=True, help="Exit 1 and list what differs if the output is stale; write nothing.")
@click.option("--full", is_flag=True, help="Trust no recorded hash: regenerate everything and compare (for CI).")
@click.pass_obj
def generate(options: Options, check: bool, full: bool) -> None:
    """Generate the typed package from lockfiles (offline).

    No server is started: the lockfiles are all it reads.
    """
    if check and not full:  # the pre-commit path: nothing changed since the recorded generation
        from mcpvend.codegen.state import unchanged

        if (fresh := unchanged(options.config, options.lockfiles, options.output, Path.cwd())) is not None:
            _say_done("up to date:", *fresh)
            return
    from mcpvend.codegen.generate import generate as run_generate
    from mcpvend.lock.agreement import SourceMismatch

    try:
        report = run_generate(load(options), check=check, full=full)
    except SourceMismatch as exc:  # a check that failed; refused (nothing written) when generating
        for line in exc.lines:
            click.echo(printable(line) if check else f"error: {printable(line)}", err=True)
        sys.exit(1 if check else 2)
    except MCPVendError as exc:
        fail(exc)
    where = relative(report.output)
    if report.status == "stale":
        click.echo(f"{where} is stale; run `mcpvend generate`:", err=True)
        for line in report.stale:
            click.echo(f"  {printable(line)}", err=True)
        sys.exit(1)
    _say_done(
        "generated" if report.status == "generated" else "up to date:", report.output, report.servers, report.tools
    )


def _say_done(verb: str, output: Path, servers: int, tools: int) -> None:
    click.echo(f"{verb} {relative(output)} ({plural(servers, 'server')}, {plural(tools, 'tool')})", err=True)
