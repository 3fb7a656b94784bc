"""Binary arithmetic on the elementwise factory: NumPy broadcasting (or
none, or PDPD), one element type for both inputs, integers wrapping as in C."""

from __future__ import annotations

import numpy as np

from .elementwise import add_bounds, binary

binary("Add", 1, np.add, bounds=add_bounds, summary="a + b")
