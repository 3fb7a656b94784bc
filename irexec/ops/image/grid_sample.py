"""GridSample-9: sample data [N, C, H, W] at the normalised (x, y) points of
grid [N, H_out, W_out, 2].

As OpenVINO's reference: coordinates map to pixels by
((v + 1) * size - 1) / 2, or (v + 1) * (size - 1) / 2 with align_corners;
padding applies to the integer pixel indices an interpolation reads (zeros:
0 outside; border: the nearest edge pixel; reflection: indices mirrored at
the edges, about the outer pixel borders or, with align_corners, about the
edge pixel centres); nearest rounds half to even; bicubic uses A = -0.75.
Computed in f64 over whole output planes (one gather per tap), rounded once
to the data's element type (integer data: truncated, as the reference
converts its float result).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import NUMERIC, REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error
from ..framework.registry import register

DATA, GRID = 0, 1


@register
class GridSample9(Op):
    type, version = "GridSample", 9
    family = "image"
    summary = "sample data at the normalised points of a grid (bilinear, bicubic or nearest; zeros, border or reflection)"
    inputs = (In("data", NUMERIC, rank=4), In("grid", REAL, rank=4))
    attributes = {
        "align_corners": Attr("bool", False, doc="-1 and 1 are the centres of the corner pixels (else their outer edges)"),
        "mode": Enum("bilinear", "bicubic", "nearest", doc="interpolation"),
        "padding_mode": Enum("zeros", "border", "reflection", doc="values read outside the data"),
    }

    def infer(self, data: TensorInfo, grid: TensorInfo) -> Inference:
        d, g = data.shape, grid.shape
        if g.rank is not None and not g[3].contains(2):
            raise op_error(f"the last dim of grid must be 2 (x, y), got shape {g}", "incompatible-inputs", GRID)
        n = d[0] if d.rank is not None else DYNAMIC
        if g.rank is not None:
            merged = n.intersect(g[0])
            if merged is None:
                raise op_error(f"data {d} and grid {g} must have the same batch (first) dim", "incompatible-inputs", GRID)
            n = merged
        c = d[1] if d.rank is not None else DYNAMIC
        h, w = (g[1], g[2]) if g.rank is not None else (DYNAMIC, DYNAMIC)
        return Inference([TensorInfo(PartialShape((n, c, h, w)), data.etype)])

    def compute(self, plan: None, data: np.ndarray, grid: np.ndarray) -> Sequence[np.ndarray]:
        n, c, h, w = data.shape
        ho, wo = grid.shape[1:3]
        if 0 in (n, c, ho, wo):
            return [np.zeros((n, c, ho, wo), data.dtype)]
        g = grid.astype(np.float64)
        x, y = self._pixels(g[..., 0], w), self._pixels(g[..., 1], h)
        feat = np.ascontiguousarray(data.transpose(0, 2, 3, 1), np.float64)  # NHWC: a point's channels are contiguous
        batch = np.arange(n)[:, None, None]
        with np.errstate(invalid="ignore", over="ignore"):
            if h == 0 or w == 0:
                out = np.zeros((n, ho, wo, c))
            elif self.mode == "nearest":
                out = self._read(feat, batch, np.rint(y), np.rint(x))
            elif self.mode == "bilinear":
                y0, x0 = np.floor(y), np.floor(x)
                dy, dx = (y - y0)[..., None], (x - x0)[..., None]
                q0 = (1 - dx) * self._read(feat, batch, y0, x0) + dx * self._read(feat, batch, y0, x0 + 1)
                q1 = (1 - dx) * self._read(feat, batch, y0 + 1, x0) + dx * self._read(feat, batch, y0 + 1, x0 + 1)
                out = dy * q1 + (1 - dy) * q0
            else:
                y0, x0 = np.floor(y), np.floor(x)
                cy, cx = _cubic(y - y0), _cubic(x - x0)
                out = np.zeros((n, ho, wo, c))
                for j in range(4):
                    row = np.zeros((n, ho, wo, c))
                    for i in range(4):
                        row += cx[i][..., None] * self._read(feat, batch, y0 + (j - 1), x0 + (i - 1))
                    out += cy[j][..., None] * row
        out = out.transpose(0, 3, 1, 2)
        if data.dtype.kind in "iu":
            out = np.trunc(out)  # the reference converts its float result to the integer type
        return [np.ascontiguousarray(out.astype(data.dtype))]

    def _pixels(self, v: np.ndarray, size: int) -> np.ndarray:
        if self.align_corners:
            return (v + 1) * (size - 1) / 2
        return ((v + 1) * size - 1) / 2

    def _read(self, feat: np.ndarray, batch: np.ndarray, yf: np.ndarray, xf: np.ndarray) -> np.ndarray:
        """feat[b, y, x, :] -> [N, H_out, W_out, C] at integer (float-held) pixel
        indices, padded as padding_mode says."""
        h, w = feat.shape[1:3]
        big = float(1 << 62)
        yi = np.clip(np.nan_to_num(yf, nan=0.0), -big, big).astype(np.int64)
        xi = np.clip(np.nan_to_num(xf, nan=0.0), -big, big).astype(np.int64)
        valid = None
        if self.padding_mode == "zeros":
            valid = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
            yi, xi = np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)
        elif self.padding_mode == "border":
            yi, xi = np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)
        else:
            yi, xi = _reflect(yi, h, self.align_corners), _reflect(xi, w, self.align_corners)
        values = feat[batch, yi, xi]
        if valid is not None:
            values = values * valid[..., None]
        return values


def _reflect(i: np.ndarray, size: int, align: bool) -> np.ndarray:
    if align:
        period = 1 if size == 1 else 2 * (size - 1)
        i = np.abs(i) % period
        return np.where(i >= size, period - i, i)
    i = np.mod(i, 2 * size)
    return np.where(i >= size, 2 * size - 1 - i, i)


def _cubic(r: np.ndarray, a: float = -0.75) -> list[np.ndarray]:
    """The four cubic-convolution weights of taps at -1, 0, 1, 2 for offset r in [0, 1)."""
    return [((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
            ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a]
