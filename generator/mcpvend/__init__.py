"""mcpvend: vendor MCP tools as reviewed lockfiles and typed Python."""

# The one place the version is written (pyproject.toml reads it); a literal, because asking
# importlib.metadata at start-up costs more than the rest of `mcpvend --version`.
__version__ = "0.1.0"
