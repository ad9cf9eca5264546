# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.
