# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Adapters into agent frameworks; each module imports its framework, and is imported only when asked for."""
