"""The `mcpvend` command: the group, `--version`, and its commands in the order they are used.

Each command parses its options, calls one library function and maps the result to an exit code
(`commands/`); every import a command needs beyond click is made when it runs.
"""

from __future__ import annotations

import click

from mcpvend import __version__
from mcpvend.commands import review, serving, setup, vendoring
from mcpvend.commands.common import Pipeline, global_options

# The commands in the order they are used, which `mcpvend --help` keeps.
PIPELINE = (
    setup.init,
    setup.login,
    setup.logout,
    setup.auth,
    vendoring.lock,
    vendoring.generate,
    review.diff,
    review.lint,
    review.show,
    serving.serve,
)


@click.group(
    cls=Pipeline,
    commands=PIPELINE,
    params=global_options(),
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "--version", prog_name="mcpvend")
def main() -> None:
    """Vendor MCP tools: lockfiles you review, typed Python you import."""
