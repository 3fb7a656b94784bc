"""Ops of the `matmul` family: one module per op type or small group of related types."""
