"""`mcpvend diff` and `lint`: classified findings between lockfiles, and poisoning rules over their text."""
