"""Stage 2, `mcpvend generate`: lockfiles in, a typed Python package (models, wrappers, runtime) out."""
