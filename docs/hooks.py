"""MkDocs hooks: pages that are written from the code at build time, so that they cannot drift.

`<!-- mcpvend:cli -->` in a page becomes the CLI reference, read off the click command tree
in generator/mcpvend/cli.py: every command, its usage, its summary and every option.
`<!-- mcpvend:api -->` becomes one mkdocstrings entry for each name of `mcpvend.runtime.PUBLIC`,
the names a generated package exports from its root, rendered from their docstrings.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "generator"))  # this checkout's mcpvend, whatever is installed

CLI_MARKER = "<!-- mcpvend:cli -->"
API_MARKER = "<!-- mcpvend:api -->"


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    if API_MARKER in markdown:
        markdown = markdown.replace(API_MARKER, api_reference())
    return markdown


def api_reference() -> str:
    """`::: module.Name` for every public runtime name, in name order, classes and functions alike."""
    from mcpvend.runtime import PUBLIC

    return "\n\n".join(f"::: mcpvend.runtime.{module}.{name}" for name, module in sorted(PUBLIC.items()))


def commands(
    group: click.Group, ctx: click.Context, path: tuple[str, ...]
) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command below a group, in the order `mcpvend --help` lists them, groups before their commands."""
    found: list[tuple[tuple[str, ...], click.Command]] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        found.append(((*path, name), command))
        if isinstance(command, click.Group):
            found += commands(command, ctx, (*path, name))
    return found


def global_flags() -> set[str]:
    from mcpvend.cli import main

    return {opt for param in main.params if isinstance(param, click.Option) for opt in param.opts}


def option_row(param: click.Option) -> str:
    flags = ", ".join(f"`{opt}`" for opt in [*param.opts, *param.secondary_opts])
    if not param.is_flag and not param.count:
        flags += f" `{param.make_metavar(click.Context(click.Command('x')))}`"
    what = (param.help or "").replace("|", "\\|").replace("\n", " ")
    if isinstance(param.type, click.Choice):
        what = (what + " " if what else "") + "One of " + ", ".join(f"`{c}`" for c in param.type.choices) + "."
    if param.multiple:
        what += " Repeatable."
    if param.show_default and not param.is_flag and param.default is not None and not callable(param.default):
        what += f" Default: `{param.default}`."
    return f"| {flags} | {what.strip()} |"


def cli_reference() -> str:
    from mcpvend.cli import main

    ctx = click.Context(main, info_name="mcpvend")
    shared = global_flags()
    out = ["## `mcpvend`", "", inspect.cleandoc(main.help or ""), ""]
    out += ["Global options (before or after the command):", ""]
    out += ["| option | what |", "|---|---|"]
    out += [option_row(p) for p in main.params if isinstance(p, click.Option)]
    out += ["| `-h`, `--help` | Show the help and exit. |", ""]
    for path, command in commands(main, ctx, ("mcpvend",)):
        sub = click.Context(command, info_name=" ".join(path))
        usage = " ".join([*path, *command.collect_usage_pieces(sub)])
        out += [f"## `{' '.join(path)}`", "", f"    {usage}", "", inspect.cleandoc(command.help or ""), ""]
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        if arguments:
            out += ["Arguments: " + ", ".join(f"`{p.human_readable_name}`" for p in arguments) + ".", ""]
        own = [p for p in command.params if isinstance(p, click.Option) and not set(p.opts) & shared]
        if own:
            out += ["| option | what |", "|---|---|", *[option_row(p) for p in own], ""]
        takes = sorted({opt for p in command.params if isinstance(p, click.Option) for opt in p.opts} & shared)
        if takes:
            out += ["Takes the global options " + ", ".join(f"`{t}`" for t in takes) + ".", ""]
    return "\n".join(out)
