"""Ops of the `attention` family: one module per op type or small group of related types."""
