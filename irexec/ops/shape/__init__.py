"""Ops of the `shape` family: one module per op type or small group of related types."""
