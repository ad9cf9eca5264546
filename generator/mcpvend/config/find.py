"""Find the config file: the one given, or the first in the working directory that configures mcpvend."""

from __future__ import annotations

import os
from pathlib import Path

from mcpvend.config.raw import read_toml
from mcpvend.errors import ConfigError

CONFIG_NAMES = ("mcpvend.toml", "pyproject.toml", ".mcp.json")


def find_config(explicit: Path | None, cwd: Path) -> Path:
    """The config file: the one given, else the first of CONFIG_NAMES that configures us."""
    # A config that is there but cannot be read (a directory, no permission) is reported, not skipped.
    if explicit is not None:
        if not os.path.lexists(explicit):
            raise ConfigError(f"{explicit}: config file not found")
        return explicit
    for name in CONFIG_NAMES:
        candidate = cwd / name
        if not os.path.lexists(candidate):
            continue
        if name == "pyproject.toml" and not _has_our_table(candidate):
            continue
        return candidate
    raise ConfigError(f"no config found in {cwd} (looked for {', '.join(CONFIG_NAMES)} with [tool.mcpvend])")


def _has_our_table(pyproject: Path) -> bool:
    tool = read_toml(pyproject).get("tool")
    return isinstance(tool, dict) and "mcpvend" in tool
