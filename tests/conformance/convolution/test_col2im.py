"""Conformance table of Col2Im-15.  The reference adds every block value into
its pixel with plain loops, in f64."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, attr_ints, conformance, i64, random_arrays, table_rng


def ref_col2im(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, (oh, ow), (kh, kw) = x[0], [int(v) for v in x[1]], [int(v) for v in x[2]]
    sh, sw = attr_ints(attrs, "strides", 2, 1)
    dh, dw = attr_ints(attrs, "dilations", 2, 1)
    pbh, pbw = attr_ints(attrs, "pads_begin", 2, 0)
    peh, pew = attr_ints(attrs, "pads_end", 2, 0)
    batched = data.ndim == 3
    d = (data if batched else data[None]).astype(np.float64 if data.dtype.kind == "f" or data.dtype == ml_dtypes.bfloat16
                                                  else np.int64)
    n, c = d.shape[0], d.shape[1] // (kh * kw)
    lh = (oh + pbh + peh - dh * (kh - 1) - 1) // sh + 1
    lw = (ow + pbw + pew - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c, oh, ow), d.dtype)
    for b in range(n):
        for ch in range(c):
            for i in range(kh):
                for j in range(kw):
                    for bh in range(lh):
                        for bw in range(lw):
                            h, w = bh * sh - pbh + i * dh, bw * sw - pbw + j * dw
                            if 0 <= h < oh and 0 <= w < ow:
                                out[b, ch, h, w] += d[b, (ch * kh + i) * kw + j, bh * lw + bw]
    out = out.astype(data.dtype)
    return [out if batched else out[0]]


def attrs(strides: str = "1,1", dilations: str = "1,1", pads_begin: str = "0,0", pads_end: str = "0,0") -> dict[str, Any]:
    return {"strides": strides, "dilations": dilations, "pads_begin": pads_begin, "pads_end": pads_end}


rand = random_arrays(table_rng("Col2Im-15"))  # the table's own generator
COL2IM = OpTable("Col2Im", "opset15", reference=ref_col2im, tol=Tol(rtol=1e-6, atol=1e-5), cases=[
    Case("basic", [rand((2, 12, 9)), i64(4, 4), i64(2, 2)], attrs(), const=(1, 2)),
    Case("unbatched", [rand((12, 9)), i64(4, 4), i64(2, 2)], attrs(), const=(1, 2)),
    Case("strided", [rand((1, 6, 6)), i64(5, 7), i64(2, 3)], attrs("2,2"), const=(1, 2)),
    Case("dilated-padded", [rand((2, 12, 16)), i64(4, 4), i64(2, 2)], attrs(dilations="2,2", pads_begin="1,1",
                                                                              pads_end="1,1"), const=(1, 2)),
    Case("uneven-pads", [rand((1, 8, 9)), i64(3, 5), i64(2, 2)], attrs("1,2", "1,1", "1,0", "0,2"), const=(1, 2)),
    Case("i32-sizes", [rand((1, 3, 6)), np.array([3, 4], np.int32), np.array([1, 3], np.int32)], attrs("1,1"),
         const=(1, 2)),
    Case("int", [rand((1, 4, 4), np.int32), i64(3, 3), i64(2, 2)], attrs(), const=(1, 2)),
    Case("f16", [rand((1, 8, 9), np.float16), i64(4, 4), i64(2, 2)], attrs(), const=(1, 2)),
    Case("sizes-parameter", [rand((1, 4, 9)), i64(4, 4), i64(2, 2)], attrs(),
         ov_shapes="OpenVINO's shape inference refuses output_size of a dynamic or interval length"),
], errors=[
    ErrorCase("blocks-count", [rand((2, 12, 8)), i64(4, 4), i64(2, 2)], attrs(), const=(1, 2), code="incompatible-inputs"),
    ErrorCase("channels", [rand((2, 13, 9)), i64(4, 4), i64(2, 2)], attrs(), const=(1, 2), code="incompatible-inputs"),
    ErrorCase("output-size-3", [rand((2, 12, 9)), i64(4, 4, 4), i64(2, 2)], attrs(), const=(1, 2), code="bad-input-rank"),
    ErrorCase("size-types-differ", [rand((2, 12, 9)), np.array([4, 4], np.int32), i64(2, 2)], attrs(), const=(1, 2),
              code="bad-input-type"),
    ErrorCase("rank-4", [rand((1, 2, 12, 9)), i64(4, 4), i64(2, 2)], attrs(), const=(1, 2), code="bad-input-rank"),
    ErrorCase("strides-missing", [rand((2, 12, 9)), i64(4, 4), i64(2, 2)], {"dilations": "1,1", "pads_begin": "0,0",
                                                                              "pads_end": "0,0"}, const=(1, 2),
              code="bad-attribute", ov="OpenVINO crashes on a Col2Im without strides"),
])

test_conformance = conformance([COL2IM])
