# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
