"""Ops of the `control` family: one module per op type or small group of related types."""
