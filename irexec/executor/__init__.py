"""The executor: feeds, the run plan, the per-model cache, memory refusals, weight
decompression and the layer loop."""
