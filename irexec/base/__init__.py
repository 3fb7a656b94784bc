"""The lowest layer: errors and diagnostics, element types, low-bit packing, partial
shapes, limits and plain-text tables.  No I/O, no imports from any other layer."""
