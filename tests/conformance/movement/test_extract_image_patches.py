"""Conformance table of ExtractImagePatches-3: exact, every element type.
The reference walks the output position by position as OpenVINO's
reference implementation does (the spec leaves the same_* padding to it)."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, random_arrays, table_rng

BF16 = ml_dtypes.bfloat16


def _pad_before(size: int, stride: int, extent: int, mode: str) -> int:
    if mode == "valid":
        return 0
    total = (math.ceil(size / stride) - 1) * stride + extent - size
    if not 0 < total < extent:
        return 0
    return total // 2 + (total % 2 if mode == "same_lower" else 0)


def ref_extract_image_patches(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    (kh, kw), (sh, sw), (rh, rw) = (attrs[k] for k in ("sizes", "strides", "rates"))
    mode = attrs["auto_pad"]
    n, c, h, w = data.shape
    eh, ew = rh * (kh - 1) + 1, rw * (kw - 1) + 1
    oh = max(0, math.ceil((h - (eh - 1)) / sh)) if mode == "valid" else math.ceil(h / sh)
    ow = max(0, math.ceil((w - (ew - 1)) / sw)) if mode == "valid" else math.ceil(w / sw)
    top, left = _pad_before(h, sh, eh, mode), _pad_before(w, sw, ew, mode)
    out = np.zeros((n, c * kh * kw, oh, ow), data.dtype)
    for b, y, z, i, j, ch in np.ndindex(n, oh, ow, kh, kw, c):
        row, col = y * sh - top + i * rh, z * sw - left + j * rw
        if 0 <= row < h and 0 <= col < w:
            out[b, (i * kw + j) * c + ch, y, z] = data[b, ch, row, col]
    return [out]


def attrs(sizes: tuple[int, int], strides: tuple[int, int], rates: tuple[int, int], pad: str) -> dict[str, Any]:
    return {"sizes": sizes, "strides": strides, "rates": rates, "auto_pad": pad}


rand = random_arrays(table_rng("ExtractImagePatches-3"))  # the table's own generator
EXTRACT_IMAGE_PATCHES = OpTable("ExtractImagePatches", "opset3", reference=ref_extract_image_patches, cases=[
    Case("valid-3x3", [rand((1, 1, 10, 10))], attrs=attrs((3, 3), (5, 5), (1, 1), "valid")),
    Case("valid-rates", [rand((2, 2, 10, 9), np.int32)], attrs=attrs((2, 3), (3, 2), (2, 3), "valid")),
    Case("same-upper", [rand((1, 3, 7, 6), np.float16)], attrs=attrs((3, 2), (2, 3), (1, 1), "same_upper")),
    Case("same-lower", [rand((1, 3, 7, 6), BF16)], attrs=attrs((3, 2), (2, 3), (1, 1), "same_lower")),
    Case("same-lower-rates", [rand((1, 1, 10, 10), np.uint8)], attrs=attrs((3, 3), (5, 5), (2, 2), "same_lower")),
    Case("same-upper-even", [rand((2, 1, 5, 8), np.int64)], attrs=attrs((2, 2), (1, 3), (1, 1), "same_upper")),
    Case("same-pad-past-extent", [rand((1, 2, 3, 3))], attrs=attrs((2, 2), (4, 4), (1, 1), "same_upper")),
    Case("patch-larger", [rand((1, 2, 3, 4))], attrs=attrs((4, 2), (1, 1), (1, 1), "valid")),
    Case("bool", [rand((1, 2, 4, 4), bool)], attrs=attrs((2, 2), (2, 2), (1, 1), "valid")),
], errors=[
    ErrorCase("rank3", [rand((1, 4, 4))], attrs=attrs((2, 2), (1, 1), (1, 1), "valid"), code="bad-input-rank"),
    ErrorCase("sizes-length", [rand((1, 1, 4, 4))], attrs=attrs((2, 2, 2), (1, 1), (1, 1), "valid"),  # type: ignore[arg-type]
              code="bad-attribute"),
    ErrorCase("stride-zero", [rand((1, 1, 4, 4))], attrs=attrs((2, 2), (0, 1), (1, 1), "valid"), code="bad-attribute"),
    ErrorCase("rate-zero", [rand((1, 1, 4, 4))], attrs=attrs((2, 2), (1, 1), (1, 0), "valid"), code="bad-attribute"),
    ErrorCase("pad-mode", [rand((1, 1, 4, 4))], attrs=attrs((2, 2), (1, 1), (1, 1), "explicit"), code="bad-attribute"),
])

test_conformance = conformance([EXTRACT_IMAGE_PATCHES])
