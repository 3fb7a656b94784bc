"""Conformance table of ExtractImagePatches-3: exact, every element type.
The reference walks the output position by position as OpenVINO's
reference implementation does (the spec leaves the same_* padding to it)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, random_arrays, table_rng
from conformance.movement.references import attrs, ref_extract_image_patches

BF16 = ml_dtypes.bfloat16


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

TABLES = [EXTRACT_IMAGE_PATCHES]
test_conformance = conformance(TABLES)
