"""A config file's mcpvend table as written, and where its lockfiles and package go: what every command reads
first, and all that `generate --check` reads when nothing changed (no server is checked key by key here).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from mcpvend.errors import ConfigError, read_failure
from mcpvend.runtime.client import files


def mcpvend_table(path: Path) -> dict[str, Any]:
    """The mcpvend table of `mcpvend.toml`, of `[tool.mcpvend]` in `pyproject.toml`, or of an `.mcp.json`."""
    if path.suffix == ".json":
        table = _mcp_json_table(path)
    elif path.name == "pyproject.toml":
        tool = read_toml(path).get("tool", {})
        if not isinstance(tool, dict) or "mcpvend" not in tool:
            raise ConfigError(f"{path}: no [tool.mcpvend] table")
        table = tool["mcpvend"]
    else:
        table = read_toml(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: the mcpvend configuration must be a table")
    return table


def directories(path: Path, table: dict[str, Any], lockfiles: Path | None, output: Path | None) -> tuple[Path, Path]:
    """The lockfile and package directories: given on the command line, else the config's, beside the config."""
    found = []
    for key, given, default in (("lockfiles", lockfiles, "lockfiles"), ("output", output, "generated")):
        value = table.get(key, default)
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{path}: key '{key}' must be a non-empty string")
        found.append(given or path.parent / value)
    return found[0], found[1]


def read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(files.read_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {read_failure(exc)}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def _mcp_json_table(path: Path) -> dict[str, Any]:
    """Map Claude Desktop / Claude Code / Cursor (`mcpServers`) and VS Code (`servers`) files to ours."""
    try:
        data = json.loads(files.read_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {read_failure(exc)}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: invalid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object with 'mcpServers'")
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: expected a JSON object with 'mcpServers'")
    return {"servers": {k: v for k, v in servers.items() if not (isinstance(v, dict) and v.get("disabled") is True)}}
