"""ExperimentalDetectronPriorGridGenerator-6: the priors repeated at every
cell of a feature map, shifted to the cell's centre.

As OpenVINO's reference: the step is stride_x/stride_y, or the image size
(im_data dims 3 and 2) over the grid size; box k at cell (h, w) is prior k
moved by (step_w * (w + 0.5), step_h * (h + 0.5)), in f32.  The grid is the
feature map's (h and w, when not 0, must equal its dims: the output is sized
by the feature map).  flatten gives [H * W * priors, 4], else [H, W, priors, 4].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.accuracy import ROUNDED
from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

f32 = np.float32
PRIORS, FEATURE_MAP, IM_DATA = range(3)


@register
class ExperimentalDetectronPriorGridGenerator6(Op):
    type, version = "ExperimentalDetectronPriorGridGenerator", 6
    accuracy = ROUNDED  # one f32 addition per coordinate
    family = "detection"
    summary = "priors shifted to the centre of every feature-map cell"
    inputs = (In("priors", REAL, rank=2), In("feature_map", same_as("priors"), rank=4),
              In("im_data", same_as("priors"), rank=4))
    attributes = {
        "flatten": Attr("bool", True, doc="[H * W * priors, 4] (else [H, W, priors, 4])"),
        "h": Attr("int", 0, doc="grid height (0: the feature map's)"),
        "w": Attr("int", 0, doc="grid width (0: the feature map's)"),
        "stride_x": Attr("float", 0.0, doc="step along x (0: image width / grid width)"),
        "stride_y": Attr("float", 0.0, doc="step along y (0: image height / grid height)"),
    }

    def infer(self, priors: TensorInfo, fmap: TensorInfo, image: TensorInfo) -> Inference:
        p, f, im = priors.shape, fmap.shape, image.shape
        if p.dims is not None and not p[1].contains(4):
            raise op_error(f"priors must be [N, 4], got shape {p}", "incompatible-inputs", PRIORS)
        if f.dims is not None and im.dims is not None and not f[0].compatible(im[0]):
            raise op_error(f"feature_map {f} and im_data {im} differ in batch", "incompatible-inputs", IM_DATA)
        gh, gw = (f[2], f[3]) if f.dims is not None else (DYNAMIC, DYNAMIC)
        for name, grid, dim in (("h", self.h, gh), ("w", self.w, gw)):
            if grid and not dim.contains(grid):
                raise op_error(f"{name}={grid} differs from the feature map's {dim}; the output is sized by the "
                               "feature map", "incompatible-inputs", FEATURE_MAP)
        n = p[0] if p.dims is not None else DYNAMIC
        if self.flatten:
            rows = gh * gw * n if p.dims is not None and f.dims is not None else DYNAMIC
            out = PartialShape((rows, Dim(4, 4)))
        else:
            out = PartialShape((gh, gw, n, Dim(4, 4)))
        return Inference([TensorInfo(out, priors.etype)])

    def compute(self, plan: None, priors: np.ndarray, fmap: np.ndarray, image: np.ndarray) -> Sequence[np.ndarray]:
        gh, gw = fmap.shape[2], fmap.shape[3]
        step_w = f32(self.stride_x) if self.stride_x else f32(f32(image.shape[3]) / f32(gw))
        step_h = f32(self.stride_y) if self.stride_y else f32(f32(image.shape[2]) / f32(gh))
        sx = step_w * (np.arange(gw, dtype=np.float32) + f32(0.5))  # [W]
        sy = step_h * (np.arange(gh, dtype=np.float32) + f32(0.5))  # [H]
        shift = np.zeros((gh, gw, 1, 4), np.float32)
        shift[..., 0] = shift[..., 2] = sx[None, :, None]
        shift[..., 1] = shift[..., 3] = sy[:, None, None]
        out = (priors.astype(np.float32)[None, None] + shift).astype(priors.dtype)
        return [out.reshape(-1, 4) if self.flatten else out]
