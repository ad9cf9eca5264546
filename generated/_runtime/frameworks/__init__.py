# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.
"""Adapters into agent frameworks; each module imports its framework, and is imported only when asked for."""
