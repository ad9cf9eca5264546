# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""mcpvend's runtime, vendored into every generated package as `_runtime`.

It imports the standard library, `mcp` and what `mcp` itself requires, nothing else
(tests/test_runtime_boundary.py), so a generated package runs wherever `mcp` does.
"""

# The `mcp` releases the suite ran against; pyproject.toml requires the same range.
MCP_REQUIREMENT = "mcp>=2.3,<2.4"
