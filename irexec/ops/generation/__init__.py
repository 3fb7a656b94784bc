"""Ops of the `generation` family: one module per op type or small group of related types."""
