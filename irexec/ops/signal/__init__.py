"""Ops of the `signal` family: one module per op type or small group of related types."""
