"""Ops of the `movement` family: one module per op type or small group of related types."""
