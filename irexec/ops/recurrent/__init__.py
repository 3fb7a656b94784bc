"""Ops of the `recurrent` family: one module per op type or small group of related types."""
