"""Ops of the `convolution` family: one module per op type or small group of related types."""
