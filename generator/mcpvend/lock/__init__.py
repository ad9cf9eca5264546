"""Stage 1, `mcpvend lock`: start servers, capture their tools as served, write verified lockfiles."""
