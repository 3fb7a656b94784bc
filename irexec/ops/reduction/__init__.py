"""Ops of the `reduction` family: one module per op type or small group of related types."""
