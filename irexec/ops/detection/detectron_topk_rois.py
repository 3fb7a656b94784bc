"""ExperimentalDetectronTopKROIs-6: the max_rois ROIs of highest probability.

Output [max_rois, 4]: the ROIs in descending probability (equal
probabilities keep their input order); rows past the number of ROIs are 0
(OpenVINO's reference leaves them unwritten).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import Dim, PartialShape
from ..framework.accuracy import EXACT
from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

ROIS, PROBS = range(2)


@register
class ExperimentalDetectronTopKROIs6(Op):
    type, version = "ExperimentalDetectronTopKROIs", 6
    accuracy = EXACT  # moves values
    family = "detection"
    summary = "the max_rois ROIs of highest probability, best first"
    inputs = (In("input_rois", REAL, rank=2), In("rois_probs", same_as("input_rois"), rank=1))
    attributes = {"max_rois": Attr("int", 0, doc="ROIs kept (output rows)")}

    def validate(self) -> list:
        if self.max_rois < 0:
            return [op_error(f"max_rois={self.max_rois} must not be negative", "bad-attribute")]
        return []

    def infer(self, rois: TensorInfo, probs: TensorInfo) -> Inference:
        r, p = rois.shape, probs.shape
        if r.dims is not None and not r[1].contains(4):
            raise op_error(f"input_rois must be [N, 4], got shape {r}", "incompatible-inputs", ROIS)
        if r.dims is not None and p.dims is not None and not r[0].compatible(p[0]):
            raise op_error(f"input_rois {r} and rois_probs {p} differ in count", "incompatible-inputs", PROBS)
        n = self.max_rois
        return Inference([TensorInfo(PartialShape((Dim(n, n), Dim(4, 4))), rois.etype)])

    def compute(self, plan: None, rois: np.ndarray, probs: np.ndarray) -> Sequence[np.ndarray]:
        order = np.argsort(-probs.astype(np.float64), kind="stable")[: self.max_rois]
        out = np.zeros((self.max_rois, 4), rois.dtype)
        out[: len(order)] = rois[order]
        return [out]
