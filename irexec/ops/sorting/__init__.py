"""Ops of the `sorting` family: one module per op type or small group of related types."""
