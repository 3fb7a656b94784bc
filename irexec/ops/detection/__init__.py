"""Ops of the `detection` family: one module per op type or small group of related types."""
