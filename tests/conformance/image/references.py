"""NumPy references of the image ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from conformance.harness import attr_ints


def _coord(x: int, n: int, m: int, scale: float, mode: str) -> float:
    xf, s = np.float32(x), np.float32(scale)
    if mode == "half_pixel":
        return float((xf + np.float32(0.5)) / s - np.float32(0.5))
    if mode == "pytorch_half_pixel":
        return float((xf + np.float32(0.5)) / s - np.float32(0.5)) if m > 1 else 0.0
    if mode == "asymmetric":
        return float(xf / s)
    if mode == "tf_half_pixel_for_nn":
        return float((xf + np.float32(0.5)) / s)
    return 0.0 if m == 1 else float(xf * np.float32(n - 1) / np.float32(m - 1))


def _round(c: float, mode: str, scale: float) -> int:
    import math as _m
    if mode == "round_prefer_floor":
        return _m.floor(c) if c - _m.floor(c) == 0.5 else round(c)
    if mode == "round_prefer_ceil":
        return _m.ceil(c) if c - _m.floor(c) == 0.5 else round(c)
    if mode == "floor":
        return _m.floor(c)
    if mode == "ceil":
        return _m.ceil(c)
    return _m.ceil(c) if scale < 1 else int(c)


def _taps(c: float, n: int, mode: str, a: float, k: float) -> list[tuple[int, float]]:
    import math as _m
    if mode == "linear_onnx":
        c = min(max(c, 0.0), n - 1.0)
        i0 = min(int(c), n - 1)
        i1 = min(i0 + 1, n - 1)
        if i0 == i1:
            return [(i0, 0.5), (i1, 0.5)]
        return [(i0, abs(c - i1)), (i1, abs(c - i0))]
    if mode == "cubic":
        f = _m.floor(c)
        t = c - f
        ws = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
              ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
              ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
        return [(min(max(f + j - 1, 0), n - 1), w) for j, w in enumerate(ws)]
    taps = [(i, max(0.0, 1 - abs(k * (c - i)))) for i in range(n)]  # linear: triangle over the whole axis
    total = sum(w for _, w in taps)
    return [(i, w / total) for i, w in taps if w > 0]


def _pillow_weights(n: int, m: int, bicubic: bool, a: float) -> tuple[list[int], list[list[float]]]:
    """Pillow's Resample.c coefficients, output pixel by output pixel."""
    import math as _m

    def filt(v: float) -> float:
        v = abs(v)
        if not bicubic:
            return 1.0 - v if v < 1.0 else 0.0
        if v < 1.0:
            return ((a + 2.0) * v - (a + 3.0)) * v * v + 1
        return (((v - 5) * v + 8) * v - 4) * a if v < 2.0 else 0.0

    scale = n / m
    fscale = max(scale, 1.0)
    support = (2.0 if bicubic else 1.0) * fscale
    starts, weights = [], []
    for xx in range(m):
        center = (xx + 0.5) * scale
        lo = max(_m.trunc(center - support + 0.5), 0)
        hi = min(_m.trunc(center + support + 0.5), n)
        w = [filt((j - center + 0.5) / fscale) for j in range(lo, hi)]
        total = sum(w)
        starts.append(lo)
        weights.append([v / total for v in w] if total != 0 else w)
    return starts, weights


def ref_pillow(data: np.ndarray, axes: list[int], out: list[int], attrs: dict[str, Any]) -> np.ndarray:
    """Pillow's two passes: the second axis then the first, each rounded to the data type."""
    bicubic = attrs["mode"] == "bicubic_pillow"
    x = data
    for a in reversed(axes):
        n, m = x.shape[a], out[a]
        if n == m:
            continue
        starts, weights = _pillow_weights(n, m, bicubic, float(attrs.get("cube_coeff", -0.75)))
        src = np.moveaxis(x.astype(np.float64), a, -1)
        res = np.zeros(src.shape[:-1] + (m,))
        for o in range(m):
            for t, w in enumerate(weights[o]):
                res[..., o] += src[..., starts[o] + t] * w
        if data.dtype.kind in "iu":
            res = np.clip(np.trunc(res + np.where(res >= 0, 0.5, -0.5)), np.iinfo(data.dtype).min,
                          np.iinfo(data.dtype).max)
        x = np.moveaxis(res, -1, a).astype(data.dtype)
    return x


def ref_interp(x: list[np.ndarray], attrs: dict[str, Any], v11: bool = False) -> list[np.ndarray]:
    data = x[0]
    rank = data.ndim
    calc = attrs["shape_calculation_mode"]
    if v11:
        sizes = scales = x[1]
        axes = [int(a) % rank for a in x[2]] if len(x) > 2 else list(range(rank))
    else:
        sizes, scales = x[1], x[2]
        axes = [int(a) % rank for a in x[3]] if len(x) > 3 else list(range(rank))
    pb = attr_ints(attrs, "pads_begin", rank, 0)
    pe = attr_ints(attrs, "pads_end", rank, 0)
    xp = np.pad(data.astype(np.float64), list(zip(pb, pe)))
    out = list(xp.shape)
    sc = [1.0] * rank
    for i, a in enumerate(axes):
        if calc == "sizes":
            out[a] = int(sizes[i])
            sc[a] = float(np.float32(out[a]) / np.float32(xp.shape[a]))
        else:
            sc[a] = float(np.float32(scales[i]))
            out[a] = int(np.float32(xp.shape[a]) * np.float32(np.float32(scales[i]) + np.float32(1e-6)))
    mode, ctm = attrs["mode"], attrs.get("coordinate_transformation_mode", "half_pixel")
    if mode.endswith("_pillow"):
        return [ref_pillow(xp.astype(data.dtype), axes, out, attrs)]
    nm, a_coef = attrs.get("nearest_mode", "round_prefer_floor"), float(attrs.get("cube_coeff", -0.75))
    anti = attrs.get("antialias") in (True, "true")
    res = np.zeros(out)
    for pos in itertools.product(*(range(o) for o in out)):
        per_axis = []
        for d in range(rank):
            if d not in axes:
                per_axis.append([(pos[d], 1.0)])
                continue
            n = xp.shape[d]
            c = _coord(pos[d], n, out[d], sc[d], ctm)
            if mode == "nearest":
                per_axis.append([(min(max(_round(c, nm, sc[d]), 0), n - 1), 1.0)])
            else:
                k = sc[d] if anti and sc[d] < 1 else 1.0
                per_axis.append(_taps(c, n, mode, a_coef, k))
        total = 0.0
        for combo in itertools.product(*per_axis):
            w = float(np.prod([t[1] for t in combo]))
            total += w * xp[tuple(t[0] for t in combo)]
        res[pos] = total
    if data.dtype.kind in "iu":
        res = np.clip(np.rint(res), np.iinfo(data.dtype).min, np.iinfo(data.dtype).max)
    return [res.astype(data.dtype)]


def interp(mode: str, calc: str = "sizes", ctm: str = "half_pixel", nearest: str = "round_prefer_floor", **more: Any):
    return {"mode": mode, "shape_calculation_mode": calc, "coordinate_transformation_mode": ctm,
            "nearest_mode": nearest, **more}


def ref_interp1(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """Interpolate-1 as the Interpolate-4 OpenVINO converts it to (ConvertInterpolate1ToInterpolate4)."""
    data, target = x[0], np.asarray(x[1]).reshape(-1)
    rank = data.ndim
    axes = sorted({int(a) for a in str(attrs["axes"]).split(",")})
    align = attrs.get("align_corners", True) in (True, "true", "1")
    mode = attrs["mode"]
    if mode == "linear":
        mode = "linear_onnx" if rank < 5 else "linear"
    pads = any(int(p) for key in ("pads_begin", "pads_end") for p in str(attrs.get(key, "0")).split(","))
    if align:
        ctm = "align_corners"
    elif mode.startswith("linear") and not pads and not (rank == 4 and axes == [2, 3]):
        ctm = "half_pixel"
    else:
        ctm = "asymmetric"
    v4 = interp(mode, "sizes", ctm, "simple", antialias=attrs.get("antialias", False), cube_coeff=-0.75,
                pads_begin=attrs.get("pads_begin", ""), pads_end=attrs.get("pads_end", ""))
    return ref_interp([data, target[:len(axes)], np.array(axes)], v4, True)


def ref_grid_sample(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, grid = x
    n, c, h, w = data.shape
    ho, wo = grid.shape[1:3]
    align = attrs.get("align_corners", False)
    mode, pad = attrs.get("mode", "bilinear"), attrs.get("padding_mode", "zeros")
    fm = data.astype(np.float64)

    def pix(v: float, size: int) -> float:
        return (v + 1) * (size - 1) / 2 if align else ((v + 1) * size - 1) / 2

    def reflect(i: int, size: int) -> int:
        if align:
            p = 1 if size == 1 else 2 * (size - 1)
            i = abs(i) % p
            return p - i if i >= size else i
        i %= 2 * size
        return 2 * size - 1 - i if i >= size else i

    def read(b: int, yy: float, xx: float) -> np.ndarray:
        yi, xi = int(yy), int(xx)
        if pad == "zeros":
            if not (0 <= yi < h and 0 <= xi < w):
                return np.zeros(c)
        elif pad == "border":
            yi, xi = min(max(yi, 0), h - 1), min(max(xi, 0), w - 1)
        else:
            yi, xi = reflect(yi, h), reflect(xi, w)
        return fm[b, :, yi, xi]

    def cubic(r: float, a: float = -0.75) -> list[float]:
        def k(t: float) -> float:
            t = abs(t)
            if t <= 1:
                return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
            if t < 2:
                return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a
            return 0.0
        return [k(r + 1), k(r), k(1 - r), k(2 - r)]

    out = np.zeros((n, c, ho, wo))
    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                xx, yy = pix(float(grid[b, i, j, 0]), w), pix(float(grid[b, i, j, 1]), h)
                if mode == "nearest":
                    v = read(b, round(yy), round(xx))  # Python rounds half to even
                elif mode == "bilinear":
                    y0, x0 = math.floor(yy), math.floor(xx)
                    dy, dx = yy - y0, xx - x0
                    v = ((1 - dy) * ((1 - dx) * read(b, y0, x0) + dx * read(b, y0, x0 + 1))
                         + dy * ((1 - dx) * read(b, y0 + 1, x0) + dx * read(b, y0 + 1, x0 + 1)))
                else:
                    y0, x0 = math.floor(yy), math.floor(xx)
                    cy, cx = cubic(yy - y0), cubic(xx - x0)
                    v = sum(cy[p] * sum(cx[q] * read(b, y0 + p - 1, x0 + q - 1) for q in range(4)) for p in range(4))
                out[b, :, i, j] = v
    if data.dtype.kind in "iu":
        out = np.trunc(out)
    return [out.astype(data.dtype)]


F = np.float32


def _yuv_pixel(y: float, u: float, v: float) -> tuple[float, float, float]:
    c, d, e = F(y) - F(16), F(u) - F(128), F(v) - F(128)
    return F(1.164) * c + F(1.596) * e, F(1.164) * c - F(0.391) * d - F(0.813) * e, F(1.164) * c + F(2.018) * d


def _yuv_convert(y: np.ndarray, u: np.ndarray, v: np.ndarray, dtype: Any, bgr: bool) -> np.ndarray:
    """y [N, H, W], u and v [N, H/2, W/2]."""
    n, h, w = y.shape
    out = np.empty((n, h, w, 3), np.float32)
    for b, i, j in np.ndindex(n, h, w):
        rgb = _yuv_pixel(float(y[b, i, j]), float(u[b, i // 2, j // 2]), float(v[b, i // 2, j // 2]))
        out[b, i, j] = rgb[::-1] if bgr else rgb
    if np.dtype(dtype) == np.uint8:
        return np.array([min(max(math.copysign(math.floor(abs(float(a)) + 0.5), a), 0), 255) for a in out.reshape(-1)],
                        np.uint8).reshape(out.shape)
    return np.clip(out, F(0), F(255)).astype(dtype)


def color_convert_reference(kind: str, bgr: bool) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        y = x[0]
        if len(x) == 1:
            n, rows, w = y.shape[:3]
            h = rows * 2 // 3
            rest = y[:, h:, :, 0].reshape(n, -1)
            if kind == "NV12":
                uv = rest.reshape(n, h // 2, w // 2, 2)
                u, v = uv[..., 0], uv[..., 1]
            else:
                u, v = (rest[:, k * (h * w // 4) : (k + 1) * (h * w // 4)].reshape(n, h // 2, w // 2) for k in (0, 1))
            y = y[:, :h]
        elif kind == "NV12":
            u, v = x[1][..., 0], x[1][..., 1]
        else:
            u, v = x[1][..., 0], x[2][..., 0]
        return [_yuv_convert(y[..., 0], u, v, y.dtype, bgr)]

    return ref


def _to_yuv_pixel(r: float, g: float, b: float, dtype: Any) -> tuple[float, float, float]:
    """One pixel's Y, U, V: f32 products and sums in the spec's order, clipped (u8: rounded first)."""
    def clip(a: np.float32) -> float:
        if np.dtype(dtype) == np.uint8:
            return float(min(max(math.copysign(math.floor(abs(float(a)) + 0.5), float(a)), 0.0), 255.0))
        return float(np.array(min(max(float(a), 0.0), 255.0), np.float32).astype(dtype))

    r32, g32, b32 = F(r), F(g), F(b)
    y = F(F(F(F(0.257) * r32) + F(F(0.504) * g32)) + F(F(0.098) * b32)) + F(16)
    u = F(F(F(F(-0.148) * r32) - F(F(0.291) * g32)) + F(F(0.439) * b32)) + F(128)
    v = F(F(F(F(0.439) * r32) - F(F(0.368) * g32)) - F(F(0.071) * b32)) + F(128)
    return clip(y), clip(u), clip(v)


def to_nv12_reference(bgr: bool) -> Any:
    """RGBtoNV12/BGRtoNV12 pixel by pixel and block by block."""
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        image = x[0]
        dtype = image.dtype
        n, h, w, _ = image.shape
        y = np.empty((n, h, w), dtype)
        uv = np.empty((n, h // 2, w // 2, 2), dtype)
        for b, i, j in np.ndindex(n, h // 2, w // 2):
            su = sv = F(0)
            for di, dj in ((0, 0), (0, 1), (1, 0), (1, 1)):
                px = [float(c) for c in image[b, 2 * i + di, 2 * j + dj]]
                yy, uu, vv = _to_yuv_pixel(*(px[::-1] if bgr else px), dtype)
                y[b, 2 * i + di, 2 * j + dj] = yy
                su, sv = F(su + F(uu)), F(sv + F(vv))
            for k, total in enumerate((su, sv)):
                mean = F(total / F(4))
                uv[b, i, j, k] = math.floor(float(mean) + 0.5) if np.dtype(dtype) == np.uint8 else mean
        if attrs.get("single_plane", True) in (False, "false"):
            return [y[..., None], uv]
        return [np.concatenate((y, uv.reshape(n, h // 2, w)), axis=1)[..., None]]

    return ref
