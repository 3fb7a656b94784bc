"""What irexec asks of the operating system: file rules, atomic writes, tensor files,
threads, BLAS threads, the heap and the garbage collector."""
