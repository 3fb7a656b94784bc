"""Array kernels shared by the ops, as plain functions over NumPy arrays."""
