"""Inverse-14: the inverse of each square matrix in the last two dims,
optionally of its adjoint (the conjugate transpose: for real data the
transposed inverse, as the spec says and OpenVINO CPU computes).

LU decomposition with partial pivoting, as OpenVINO's reference computes it, so
a singular matrix gives the same infinities and NaNs; carried out in f64 and
rounded once."""

from __future__ import annotations

import numpy as np

from ...kernels.linalg import lu_inverse
from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.registry import register


@register
class Inverse14(Op):
    type, version, family = "Inverse", 14, "matmul"
    summary = "inverse of each square matrix in the last two dims (of its adjoint with adjoint=true)"
    inputs = (In("data", REAL, rank=(2, None)),)
    attributes = {"adjoint": Attr("bool", False, doc="invert the conjugate transpose")}

    def infer(self, data: TensorInfo) -> Inference:
        dims = data.shape.dims
        # only static dims are compared: OpenVINO lets two disjoint intervals through
        if dims is not None and dims[-2].is_static and dims[-1].is_static and dims[-2] != dims[-1]:
            raise op_error(f"data {data.shape} must hold square matrices in its last two dims", "incompatible-inputs", 0)
        return Inference([TensorInfo(data.shape, data.etype)])  # OpenVINO keeps both dims as given

    def compute(self, plan: None, data: np.ndarray) -> list[np.ndarray]:
        out = lu_inverse(data)
        if self.adjoint:
            out = np.swapaxes(out, -1, -2)
        return [np.ascontiguousarray(out).astype(data.dtype)]
