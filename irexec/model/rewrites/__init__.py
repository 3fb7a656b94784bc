"""Graph rewrites: subgraphs an engine computes otherwise than layer by layer,
found on the bound model (the rule lives here; the executor's rewrites run it)."""
