"""Kernels several ops share: block copies and the like."""
