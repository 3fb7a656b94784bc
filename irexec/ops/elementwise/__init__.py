"""Ops of the `elementwise` family: one module per op type or small group of related types."""
