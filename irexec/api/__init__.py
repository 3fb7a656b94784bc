"""The Python API: load, Session, state, made-up inputs, comparison, generation,
dumps, NaN hunting, statistics, pictures and layer-by-layer diffs."""
