"""What every command shares: the global options (taken before or after the command's name), the
command and group classes that add them, the one-line error, and the config the options point at.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

import click

from mcpvend.errors import MCPVendError, printable

if TYPE_CHECKING:
    from pathlib import Path

    from mcpvend.config import Config


class Options(NamedTuple):
    """The global options, from before the command's name and after it."""

    config: Path | None = None
    lockfiles: Path | None = None
    output: Path | None = None
    verbose: bool = False


def fail(exc: MCPVendError) -> NoReturn:
    """One line naming the cause, and exit 2: a user never sees a traceback for bad input."""
    click.echo(f"error: {printable(str(exc))}", err=True)
    sys.exit(2)


def _take(ctx: click.Context, param: click.Parameter, value: str | bool | None) -> None:
    """Record a global option; given both before and after the command, the two must agree."""
    options = ctx.ensure_object(Options)
    if value is None or value is False or param.name is None:
        return
    from pathlib import Path  # here: `--version` and `--help` need none

    taken = Path(value) if isinstance(value, str) else value
    earlier = getattr(options, param.name)
    if earlier not in (None, False) and earlier != taken:
        flag = param.opts[-1]
        raise click.UsageError(
            f"{flag} given before and after '{ctx.info_name}' with different values: {earlier} and {taken}", ctx
        )
    given: dict[str, Any] = {param.name: taken}
    ctx.obj = options._replace(**given)


# Paths are checked where they are used, so that a bad one gets our one-line error, not click's usage text.
_PATH = click.Path(readable=False)
_GLOBAL_OPTIONS: dict[str, tuple[list[str], dict[str, Any]]] = {
    "config": (["--config"], {"type": _PATH, "help": "mcpvend.toml, pyproject.toml or .mcp.json"}),
    "lockfiles": (["--lockfiles"], {"type": _PATH, "help": "Lockfile directory."}),
    "output": (["--output"], {"type": _PATH, "help": "Generated package directory."}),
    "verbose": (["-v", "--verbose"], {"is_flag": True, "help": "Show the MCP SDK's own log messages."}),
}


def global_options(names: tuple[str, ...] = tuple(_GLOBAL_OPTIONS)) -> list[click.Parameter]:
    """Fresh option objects for the group and for each command: ruff and uv take them on either side."""
    return [
        click.Option(decls, callback=_take, expose_value=False, **attrs)
        for name, (decls, attrs) in _GLOBAL_OPTIONS.items()
        if name in names
    ]


def configure_logging(verbose: bool) -> None:
    # The SDK logs a traceback for every misbehaving server; our own message says it in one line.
    import logging  # here: `--version` and `--help` log nothing

    logging.basicConfig(level=logging.DEBUG if verbose else logging.CRITICAL, format="%(name)s: %(message)s")
    if verbose:  # every record, whatever logged it, loses the secrets of the servers reached so far
        from mcpvend.runtime.client.logs import REDACTING_FILTER

        for handler in logging.getLogger().handlers:
            handler.addFilter(REDACTING_FILTER)


class Command(click.Command):
    """A command: takes the global options after its name too, and its summary is never cut short.

    An `offline` command starts no server, and nothing it runs logs: it leaves logging alone unless `-v`
    asks (the pre-commit path, `generate --check`, then never imports it).
    """

    def __init__(self, *args: Any, reads_config: bool = True, offline: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params += global_options() if reads_config else global_options(("verbose",))
        self.offline = offline

    def get_short_help_str(self, limit: int = 45) -> str:
        return super().get_short_help_str(limit=sys.maxsize)  # wrapped by the help formatter, not truncated

    def invoke(self, ctx: click.Context) -> Any:
        verbose = ctx.ensure_object(Options).verbose
        if verbose or not self.offline:
            configure_logging(verbose)
        return super().invoke(ctx)


class Pipeline(click.Group):
    """`mcpvend --help` lists the commands in the order they are used (as they were added), not by name."""

    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def get_short_help_str(self, limit: int = 45) -> str:
        return super().get_short_help_str(limit=sys.maxsize)  # as for a command: wrapped, never cut


def load(options: Options) -> Config:
    """The config the global options point at (else the one found in the working directory)."""
    from pathlib import Path

    from mcpvend.config import find_config, load_config

    path = find_config(options.config, Path.cwd())
    return load_config(path, lockfiles=options.lockfiles, output=options.output)


def relative(path: Path) -> str:
    """A path as the user would write it from here (absolute when outside)."""
    from pathlib import Path

    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def say(text: str) -> None:
    """A line for the person at the terminal: stderr, so stdout stays the command's output."""
    click.echo(text, err=True)
