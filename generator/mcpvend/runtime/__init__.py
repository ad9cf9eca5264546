"""mcpvend's runtime, vendored into every generated package as `_runtime`.

It imports the standard library, `mcp` and what `mcp` itself requires, nothing else
(tests/test_runtime_boundary.py), so a generated package runs wherever `mcp` does.
"""

# The `mcp` releases the suite ran against; pyproject.toml requires the same range.
MCP_REQUIREMENT = "mcp>=2.3,<2.4"

# Every name the generated package exports from its root, by the runtime module that defines it: what
# users import (`from generated import ToolSet, SearchOptions`); nothing documented needs `_runtime`.
PUBLIC: dict[str, str] = {
    "AuditOptions": "audit.trail",
    "Budget": "core.budget",
    "CallError": "textformats.calls",
    "CodeLimits": "code.sandbox",
    "CodeOptions": "code.mode",
    "ConnectError": "client.manifest",
    "ConnectionOptions": "client.options",
    "Decision": "core.steps",
    "DriftError": "client.pinning",
    "Entry": "core.catalog",
    "FormatChoice": "core.budget",
    "FrameworkMissing": "frameworks.adapters",
    "MediaRef": "core.results",
    "ModelResult": "core.results",
    "ParsedCall": "textformats.calls",
    "ParsedCalls": "textformats.calls",
    "Plan": "core.budget",
    "Prepared": "textformats.prompting",
    "ResultOptions": "core.options",
    "ReviewedTool": "core.reviewed",
    "RouteInputs": "core.steps",
    "RouteRequest": "routing.rules",
    "RoutingError": "core.steps",
    "RoutingOptions": "routing.rules",
    "SearchOptions": "core.options",
    "StrictReport": "core.budget",
    "TextOptions": "textformats.choice",
    "ToolError": "wrappers.tools",
    "ToolResult": "wrappers.tools",
    "ToolSet": "toolset",
    "from_wire": "wrappers.tools",
    "hybrid": "semantic.hybrid",
    "load_routing": "routing.rules",
}
