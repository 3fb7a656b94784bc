"""Ops of the `normalization` family: one module per op type or small group of related types."""
