"""Conformance table of BinaryConvolution-1.  The reference loops over every
output, channel and tap as the spec describes: a match where the data value (or
pad_value in the padding) equals the filter bit; 2·matches - C·kh·kw."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from conformance.harness import OV_READS_DEFAULT, Case, ErrorCase, OpTable, attr_ints, conformance, table_rng


def ref_binary_conv(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, filters = x[0], x[1].astype(np.float64)
    sh, sw = attr_ints(attrs, "strides", 2, 1)
    dh, dw = attr_ints(attrs, "dilations", 2, 1)
    pt, pl = attr_ints(attrs, "pads_begin", 2, 0)
    pb, pr = attr_ints(attrs, "pads_end", 2, 0)
    if attrs.get("auto_pad") == "same_upper":  # the total pad that keeps ceil(n / stride) outputs, the extra at the end
        (pt, pb), (pl, pr) = [((t := max(0, (-(-n_ // s_) - 1) * s_ + d_ * (k_ - 1) + 1 - n_)) // 2, t - t // 2)
                              for n_, k_, s_, d_ in zip(data.shape[2:], filters.shape[2:], (sh, sw), (dh, dw))]
    pad = float(np.asarray(float(attrs.get("pad_value", 0.0))).astype(data.dtype))
    n, c, h, w = data.shape
    c_out, _, kh, kw = filters.shape
    ho = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    wo = (w + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c_out, ho, wo))
    for b in range(n):
        for oc in range(c_out):
            for oy in range(ho):
                for ox in range(wo):
                    p = 0
                    for ch in range(c):
                        for i in range(kh):
                            for j in range(kw):
                                y, xx = oy * sh - pt + i * dh, ox * sw - pl + j * dw
                                v = float(data[b, ch, y, xx]) if 0 <= y < h and 0 <= xx < w else pad
                                p += v == filters[oc, ch, i, j]
                    out[b, oc, oy, ox] = 2 * p - c * kh * kw
    return [out.astype(data.dtype)]


rng = table_rng("BinaryConvolution-1")  # the table's own generator


def bits(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    return rng.integers(0, 2, shape).astype(dtype)


def attrs(strides: str = "1,1", pads: str = "0,0", dilations: str = "1,1", pad_value: float = 1.0, **more: Any
          ) -> dict[str, Any]:
    return {"strides": strides, "pads_begin": pads, "pads_end": pads, "dilations": dilations, "mode": "xnor-popcount",
            "pad_value": pad_value, **more}


U1 = ml_dtypes.uint1
CPU = "OpenVINO CPU reads the u1 filter bits in another order than its own Convert and its reference do"
BINARY_CONV = OpTable("BinaryConvolution", "opset1", reference=ref_binary_conv, cases=[
    Case("basic", [bits((1, 3, 5, 5)), bits((4, 3, 3, 3), U1)], attrs(), const=(1,), ov=CPU),
    Case("padded-one", [bits((2, 2, 4, 4)), bits((3, 2, 3, 3), U1)], attrs(pads="1,1"), const=(1,), ov=CPU),
    Case("padded-zero", [bits((1, 2, 4, 4)), bits((2, 2, 3, 3), U1)], attrs(pads="1,1", pad_value=0.0), const=(1,),
         ov=CPU + "; taps in a padding of 0 are left out"),
    Case("strided-dilated", [bits((1, 8, 7, 7)), bits((2, 8, 3, 3), U1)], attrs("2,2", dilations="2,2"), const=(1,),
         ov=CPU),
    Case("same-upper", [bits((1, 2, 5, 5)), bits((2, 2, 2, 2), U1)], attrs(auto_pad="same_upper"), const=(1,), ov=CPU),
    Case("non-binary-data", [rng.choice([-1.0, 0.0, 0.5, 1.0], (1, 2, 4, 4)).astype(np.float32), bits((2, 2, 2, 2), U1)],
         attrs(), const=(1,), ov=CPU + "; it binarizes other data values"),
    Case("i32-data", [bits((1, 2, 4, 4), np.int32), bits((2, 2, 2, 2), U1)], attrs(), const=(1,), ov=CPU),
], errors=[
    ErrorCase("rank-3", [bits((1, 2, 5)), bits((2, 2, 3), U1)], attrs("1", "0", "1"), const=(1,), code="bad-input-rank"),
    ErrorCase("channels", [bits((1, 2, 5, 5)), bits((2, 3, 3, 3), U1)], attrs(), const=(1,), code="incompatible-inputs"),
    ErrorCase("strides-missing", [bits((1, 2, 5, 5)), bits((2, 2, 3, 3), U1)],
              {k: v for k, v in attrs().items() if k != "strides"}, const=(1,), code="bad-attribute", ov=OV_READS_DEFAULT),
])

test_conformance = conformance([BINARY_CONV])
