"""mcpvend: vendor MCP tools as reviewed lockfiles and typed Python."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mcpvend")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
