"""Ops of the `pooling` family: one module per op type or small group of related types."""
