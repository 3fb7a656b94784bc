"""FakeConvert's rounding to the f8 grids: through f16 (as OpenVINO rounds),
saturated to the f8 type's largest finite value, then rounded to nearest even
(ml_dtypes' conversion).  ±inf become ±max and NaN becomes -max, as OpenVINO
CPU gives (seen on f8e4m3 and f8e5m2)."""

from __future__ import annotations

import numpy as np

_F8 = {"f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}


def round_to_f8(x: np.ndarray, name: str) -> np.ndarray:
    """``x`` rounded to the grid of f8 type ``name``, as f32."""
    import ml_dtypes  # here, not at import: FakeConvert is rare and ml_dtypes slow to import

    f8 = getattr(ml_dtypes, _F8[name])
    top = np.float32(ml_dtypes.finfo(f8).max)
    h = np.asarray(x).astype(np.float16).astype(np.float32)
    h = np.where(np.isnan(h), -top, np.clip(h, -top, top))
    return h.astype(f8).astype(np.float32)
