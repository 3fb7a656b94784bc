"""Deformable 2-D convolution, as OpenVINO's reference computes it: every filter
tap reads the input at its regular position plus a learned (y, x) offset, by
bilinear interpolation, optionally weighted by a mask; then one product with
the filters per group.  Positions are formed in f32 as the reference does (so
the same samples fall outside); the interpolation and the sums are in f64."""

from __future__ import annotations

import numpy as np


def _sample(img: np.ndarray, y: np.ndarray, x: np.ndarray, pad: bool) -> np.ndarray:
    """Bilinear samples of img [N, C, H, W] at positions y, x [N, C, Ho, Wo]
    (f32); a position outside the input (the reference's test) gives 0."""
    n, c, h, w = img.shape
    yi, xi = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    if pad:  # corners around the position; those outside the input read 0
        inside = (np.trunc(y) > -1) & (np.trunc(y) < h) & (np.trunc(x) > -1) & (np.trunc(x) < w)
        y1, x1 = yi, xi
        y2, x2 = y1 + 1, x1 + 1
    else:  # corners clamped into the input
        inside = (y >= 0) & (y < h) & (x >= 0) & (x < w)
        y1, x1 = np.maximum(yi, 0), np.maximum(xi, 0)
        y2 = np.minimum(np.ceil(y).astype(np.int64), h - 1)
        x2 = np.minimum(np.ceil(x).astype(np.int64), w - 1)
    dy = (y - y1.astype(np.float32)).astype(np.float64)
    dx = (x - x1.astype(np.float32)).astype(np.float64)
    nn = np.arange(n)[:, None, None, None]
    cc = np.arange(c)[None, :, None, None]

    def at(yy: np.ndarray, xx: np.ndarray) -> np.ndarray:
        ok = inside & (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        return np.where(ok, img[nn, cc, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)], 0.0)

    v = ((1 - dx) * (1 - dy) * at(y1, x1) + (1 - dx) * dy * at(y2, x1)
         + dx * (1 - dy) * at(y1, x2) + dx * dy * at(y2, x2))
    return np.where(inside, v, 0.0)


def deformable_conv2d(data: np.ndarray, offsets: np.ndarray, filters: np.ndarray, mask: np.ndarray | None,
                      strides: tuple[int, int], dilations: tuple[int, int], pads_begin: tuple[int, int],
                      out_hw: tuple[int, int], groups: int, deformable_groups: int, pad: bool) -> np.ndarray:
    """[N, C_OUT, Ho, Wo] in f64.  offsets [N, DG·kh·kw·2, Ho, Wo] hold (y, x) per tap;
    mask [N, DG·kh·kw, Ho, Wo]; input channel c uses deformable group c // (C / DG)."""
    n, c = data.shape[:2]
    c_out, cg, kh, kw = filters.shape
    ho, wo = out_hw
    img = data.astype(np.float64)
    dg_of = np.arange(c) // (c // deformable_groups)
    base_y = (np.arange(ho) * strides[0] - pads_begin[0]).astype(np.int64)
    base_x = (np.arange(wo) * strides[1] - pads_begin[1]).astype(np.int64)
    off = offsets.reshape(n, deformable_groups, kh * kw, 2, ho, wo).astype(np.float32)
    m = mask.reshape(n, deformable_groups, kh * kw, ho, wo).astype(np.float64) if mask is not None else None
    cols = np.empty((n, c, kh * kw, ho, wo))
    for t in range(kh * kw):
        i, j = divmod(t, kw)
        # per deformable group, then spread over its channels; int + f32 offset in f32, as the reference
        y = (base_y[:, None] + i * dilations[0]).astype(np.float32)[None, None] + off[:, :, t, 0]
        x = (base_x[None, :] + j * dilations[1]).astype(np.float32)[None, None] + off[:, :, t, 1]
        v = _sample(img, y[:, dg_of], x[:, dg_of], pad)
        if m is not None:
            v = v * m[:, dg_of, t]
        cols[:, :, t] = v
    out = np.empty((n, c_out, ho, wo))
    per = c_out // groups
    w = filters.astype(np.float64).reshape(c_out, cg * kh * kw)
    for g in range(groups):
        block = cols[:, g * cg:(g + 1) * cg].reshape(n, cg * kh * kw, ho * wo)
        out[:, g * per:(g + 1) * per] = np.matmul(w[g * per:(g + 1) * per], block).reshape(n, per, ho, wo)
    return out
