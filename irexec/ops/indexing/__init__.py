"""Ops of the `indexing` family: one module per op type or small group of related types."""
