"""Kernels several ops share, as plain functions over NumPy arrays: block copies,
conversions, windows."""
