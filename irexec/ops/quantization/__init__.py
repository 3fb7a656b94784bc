"""Ops of the `quantization` family: one module per op type or small group of related types."""
