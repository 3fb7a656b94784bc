"""Ops of the `convert` family: one module per op type or small group of related types."""
