"""Ops of the `image` family: one module per op type or small group of related types."""
