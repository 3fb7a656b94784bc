"""BinaryConvolution-1: 2-D convolution of 0/1 data with 0/1 filters (u1, 0
standing for -1 and 1 for +1): each output is 2·P - B, P the count of taps where
the data value equals the filter bit (xnor), B = C·kh·kw.  The padding holds
pad_value.  As OpenVINO's reference: a data value counts as a match only when it
equals the bit (0 or 1) exactly; filters of another type compare by value."""

from __future__ import annotations

import numpy as np

from ..framework.accuracy import EXACT
from ..framework.base import ANY, NUMERIC, Attr, Enum, In
from ..framework.registry import register
from .convolution import ConvPlan, _ConvBase


@register
class BinaryConvolution1(_ConvBase):
    type, version = "BinaryConvolution", 1
    accuracy = EXACT  # counts of matches
    summary = "convolution of 0/1 data with 0/1 (u1) filters by xnor and popcount: 2·matches - taps"
    inputs = (In("data", NUMERIC, rank=4), In("filters", ANY, rank=4))
    attributes = {**_ConvBase.attributes,
                  "mode": Enum("xnor-popcount", doc="how the 0/1 values are read: 0 is -1, 1 is +1"),
                  "pad_value": Attr("float", 0.0, doc="the data value of the padding")}

    def compute(self, plan: ConvPlan, data: np.ndarray, filters: np.ndarray) -> list[np.ndarray]:
        n, c, h, w = data.shape
        c_out, _, kh, kw = filters.shape
        (pt, pl), (pb, pr) = plan.pads_begin, plan.pads_end
        ho, wo = plan.out_spatial
        (sh, sw), (dh, dw) = self.strides, self.dilations
        fill = np.asarray(self.pad_value).astype(data.dtype)  # as the reference casts it to the data type
        padded = np.full((n, c, h + pt + pb, w + pl + pr), fill, data.dtype)
        padded[:, :, pt:pt + h, pl:pl + w] = data
        f = filters.astype(data.dtype) if filters.dtype != data.dtype else filters
        matches = np.zeros((n, c_out, ho, wo), np.int64)
        for i in range(kh):
            for j in range(kw):
                tap = padded[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh, j * dw:j * dw + sw * (wo - 1) + 1:sw]
                # [n, 1, c, ho, wo] against [1, c_out, c, 1, 1]
                matches += (tap[:, None] == f[None, :, :, i, j, None, None]).sum(axis=2)
        return [(2 * matches - c * kh * kw).astype(data.dtype)]
