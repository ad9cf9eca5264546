"""all-MiniLM-L6-v2's tokenizer and int8 weights, as files beside this module, for mcpvend's hybrid tool search.

This package holds no code: mcpvend finds its directory without importing it, and uses a file only once
its sha256 is the one mcpvend's own code records (`mcpvend.runtime.semantic.minilm`).
"""
