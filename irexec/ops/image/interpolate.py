"""Interpolate-1, Interpolate-4 and Interpolate-11: resizing of chosen axes
(nearest with its five rounding modes, linear with optional antialiasing,
linear_onnx, cubic, Pillow's bilinear and bicubic filters; five coordinate
transformation modes; output from sizes or scales; zero padding before
resizing).  Interpolate-1 runs as the Interpolate-4 OpenVINO converts it to
(ConvertInterpolate1ToInterpolate4).

Every mode is separable, so the kernel resizes one axis at a time: a gather
of the source indices for nearest, otherwise a weighted sum of a few gathers
(two taps for linear_onnx, four for cubic, the triangle filter's support for
linear).  Coordinates are computed in f32 as OpenVINO does, so that the
rounding of nearest agrees on ties; sums are in f32 (f64 for f64 data).
Output dims from scales are ``int(f32(dim) * f32(scale + 1e-6))``, as
OpenVINO's shape inference computes them.

The Pillow modes follow OpenVINO's reference (itself Pillow's Resample.c):
the filter is always widened by in/out when downscaling, weights are f64,
the last axis is resized before the first, and each pass is rounded to the
data type.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...base.dtypes import is_bf16
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels.windows import accumulator, pad_spatial
from ..framework.base import INTEGRAL, NUMERIC, REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_axes, const_ints, target_length, value_dims
from ..framework.registry import register

_EPS = np.float32(1e-6)

_MODE4 = Enum("nearest", "linear", "linear_onnx", "cubic", doc="interpolation")
_CTM = Enum("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners",
            doc="resized coordinate -> input coordinate")
_NEAREST = Enum("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple", doc="rounding of nearest")
_COMMON = {
    "shape_calculation_mode": Enum("sizes", "scales", doc="which input gives the output shape"),
    "coordinate_transformation_mode": _CTM,
    "nearest_mode": _NEAREST,
    "antialias": Attr("bool", False, doc="antialiasing filter when downsampling (linear)"),
    "pads_begin": Attr("ints", (), doc="zeros added before each axis"),
    "pads_end": Attr("ints", (), doc="zeros added after each axis"),
    "cube_coeff": Attr("float", -0.75, doc="the A of the cubic kernel"),
}


@dataclass(frozen=True)
class Resize:
    """The attributes the kernel resizes by (Interpolate-1 maps its own onto these)."""

    mode: str
    ctm: str = "half_pixel"
    nearest_mode: str = "round_prefer_floor"
    antialias: bool = False
    cube_coeff: float = -0.75


@dataclass(frozen=True)
class InterpPlan:
    how: Resize
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    axes: tuple[int, ...]
    sizes: tuple[int, ...]  # output length per axis in ``axes``
    scales: tuple[float, ...]  # the scale the coordinates use, per axis in ``axes``


def _scale_dim(d: Dim, scale: float) -> Dim:
    mult = np.float32(np.float32(scale) + _EPS)

    def one(v: int) -> int:
        return int(np.float32(v) * mult)

    return Dim(one(d.lo), None if d.hi is None else one(d.hi))


class _Interp(Op):
    family = "image"
    data_port = 0

    def _resize(self, rank: int) -> Resize:
        return Resize(self.mode, self.coordinate_transformation_mode, self.nearest_mode, self.antialias,
                      self.cube_coeff)

    def fold_work(self, inputs: Sequence[TensorInfo], inference: Inference) -> int | None:
        """The pads size the padded copy and each resized axis a tensor as large
        as the larger of input and output along every axis, one pass per tap
        (antialiased downscaling takes about twice the scale's inverse taps)."""
        plan, base = inference.plan, super().fold_work(inputs, inference)
        if not isinstance(plan, InterpPlan) or base is None:
            return None
        data = inputs[self.data_port].shape.to_tuple()
        padded = [d + b + e for d, b, e in zip(data, plan.pads_begin, plan.pads_end)]
        out = inference.outputs[0].shape.to_tuple()
        largest = math.prod(max(p, o) for p, o in zip(padded, out))
        taps = 4 + max((2 * -(-padded[a] // max(m, 1)) for a, m in zip(plan.axes, plan.sizes)), default=0)
        return base + math.prod(padded) + largest * max(len(plan.axes), 1) * taps

    def _pads(self, rank: int) -> tuple[list[int], list[int]]:
        pb = list(self.pads_begin)[:rank] + [0] * max(0, rank - len(self.pads_begin))
        pe = list(self.pads_end)[:rank] + [0] * max(0, rank - len(self.pads_end))
        if any(p < 0 for p in pb + pe):
            raise op_error(f"pads_begin {list(self.pads_begin)} and pads_end {list(self.pads_end)} must not be negative",
                           "bad-attribute")
        return pb, pe

    def _infer(self, data: TensorInfo, sizes: TensorInfo | None, scales: TensorInfo | None,
               axes_in: TensorInfo | None, port_sizes: int, port_scales: int, port_axes: int) -> Inference:
        rank = data.shape.rank
        axes = None
        if axes_in is not None:
            raw = const_ints(axes_in, "axes", port_axes)
            if raw is not None and any(a < 0 for a in raw):  # OpenVINO takes no negative axes here
                raise op_error(f"axes {raw} must not be negative", "axis-out-of-range", port_axes)
            axes = const_axes(axes_in, rank, "axes", port_axes, unique=True)
        elif rank is not None:
            axes = list(range(rank))
        use_sizes = self.shape_calculation_mode == "sizes"
        src = sizes if use_sizes else scales
        port = port_sizes if use_sizes else port_scales
        # one value per axis; OpenVINO reads the first ones of a longer input
        if axes is not None and src is not None and src.shape.rank == 1 and src.shape[0].hi is not None \
                and src.shape[0].hi < len(axes):
            raise op_error(f"{'sizes' if use_sizes else 'scales'} {src.shape} must hold one value per axis "
                           f"(axes {axes})", "incompatible-inputs", port)
        if rank is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)], None)
        pb, pe = self._pads(rank)
        dims = [d + (b + e) for d, b, e in zip(data.shape.dims or (), pb, pe)]  # rank known: dims known
        if axes is None:
            return Inference([TensorInfo(PartialShape.dynamic(rank), data.etype)], None)
        out = list(dims)
        scales_v: list[float] | None = None
        if scales is not None and scales.value() is not None:
            scales_v = [float(v) for v in np.asarray(scales.value(), np.float32).reshape(-1)][:len(axes)]
        if use_sizes:
            given = value_dims(sizes) if sizes is not None else None
            given = given[:len(axes)] if given is not None else None
            if given is not None and len(given) != len(axes):
                raise op_error(f"sizes {given} must hold one value per axis (axes {axes})", "incompatible-inputs", port)
            for i, a in enumerate(axes):
                v = given[i] if given is not None else DYNAMIC
                if isinstance(v, int) and v < 0:
                    raise op_error(f"sizes {given} must not be negative", "bad-value", port)
                out[a] = Dim(v, v) if isinstance(v, int) else v
        else:
            if scales_v is not None and len(scales_v) != len(axes):
                raise op_error(f"scales {scales_v} must hold one value per axis (axes {axes})", "incompatible-inputs",
                               port)
            for i, a in enumerate(axes):
                if scales_v is None:
                    out[a] = DYNAMIC
                    continue
                if not scales_v[i] > 0:
                    raise op_error(f"scales {scales_v} must be positive", "bad-value", port)
                out[a] = _scale_dim(dims[a], scales_v[i])
        shape = PartialShape(tuple(out))
        plan = None
        if shape.is_static and data.shape.is_static:
            outs = shape.to_tuple()
            ins = [d.value for d in dims]
            size_t = tuple(outs[a] for a in axes)
            if use_sizes:
                sc = tuple(float(np.float32(o) / np.float32(ins[a])) if ins[a] else 0.0 for o, a in zip(size_t, axes))
            else:
                sc = tuple(scales_v or ())
            plan = InterpPlan(self._resize(rank), tuple(pb), tuple(pe), tuple(axes), size_t, sc)
        return Inference([TensorInfo(shape, data.etype)], plan)


# ------------------------------------------------------------------ kernel

def resize(plan: InterpPlan, data: np.ndarray) -> np.ndarray:
    """``data`` padded and resized along ``plan.axes``, in ``data``'s dtype."""
    how = plan.how
    x = pad_spatial(data, plan.pads_begin, plan.pads_end, 0) if any(plan.pads_begin) or any(plan.pads_end) else data
    if how.mode == "nearest":
        for a, m, s in zip(plan.axes, plan.sizes, plan.scales):
            n = x.shape[a]
            if m == 0 or n == 0:
                x = np.zeros(x.shape[:a] + (m,) + x.shape[a + 1:], data.dtype)
                continue
            x = np.take(x, _nearest(how, n, m, s), axis=a)
        return np.ascontiguousarray(x)
    if how.mode in ("bilinear_pillow", "bicubic_pillow"):
        return _pillow(how, plan, x, data.dtype)
    acc = accumulator(data.dtype) if data.dtype.kind == "f" or is_bf16(data.dtype) else np.dtype(np.float32)
    x = x.astype(acc, copy=False)
    for a, m, s in zip(plan.axes, plan.sizes, plan.scales):
        n = x.shape[a]
        x = _weighted(x, a, m, *_taps(how, n, m, s), acc) if m and n else _empty(x, a, m, acc)
    if data.dtype.kind in "iu":
        info = np.iinfo(data.dtype)
        x = np.clip(np.rint(x), info.min, info.max)
    return x.astype(data.dtype)


def _empty(x: np.ndarray, a: int, m: int, dtype: np.dtype) -> np.ndarray:
    return np.zeros(x.shape[:a] + (m,) + x.shape[a + 1:], dtype)


def _weighted(x: np.ndarray, a: int, m: int, idx: np.ndarray, w: np.ndarray, acc: np.dtype) -> np.ndarray:
    """Sum over taps t of ``x[..., idx[:, t], ...] * w[:, t]`` along axis ``a``."""
    shape = [1] * x.ndim
    shape[a] = m
    res = np.zeros(x.shape[:a] + (m,) + x.shape[a + 1:], acc)
    for t in range(idx.shape[1]):
        res += np.take(x, idx[:, t], axis=a) * w[:, t].astype(acc).reshape(shape)
    return res


def _coords(how: Resize, n: int, m: int, scale: float) -> np.ndarray:
    """Input coordinate of every output position along one axis, in f32."""
    x = np.arange(m, dtype=np.float32)
    s = np.float32(scale)
    mode = how.ctm
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "half_pixel":
            return (x + np.float32(0.5)) / s - np.float32(0.5)
        if mode == "pytorch_half_pixel":
            return (x + np.float32(0.5)) / s - np.float32(0.5) if m > 1 else np.zeros(m, np.float32)
        if mode == "asymmetric":
            return x / s
        if mode == "tf_half_pixel_for_nn":
            return (x + np.float32(0.5)) / s
        if m == 1:
            return np.zeros(m, np.float32)
        return x * np.float32(n - 1) / np.float32(m - 1)


def _nearest(how: Resize, n: int, m: int, scale: float) -> np.ndarray:
    c = _coords(how, n, m, scale)
    mode = how.nearest_mode
    if mode == "round_prefer_floor":
        r = np.where(c == np.floor(c) + np.float32(0.5), np.floor(c), np.round(c))
    elif mode == "round_prefer_ceil":
        r = np.floor(c + np.float32(0.5))
    elif mode == "floor":
        r = np.floor(c)
    elif mode == "ceil":
        r = np.ceil(c)
    else:  # simple: ceil when downsampling, else truncate
        r = np.ceil(c) if scale < 1 else np.trunc(c)
    return np.clip(r, 0, n - 1).astype(np.int64)


def _taps(how: Resize, n: int, m: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Source indices and weights [m, taps] of one axis."""
    c = _coords(how, n, m, scale).astype(np.float64)
    if how.mode == "linear_onnx":
        c = np.clip(c, 0, n - 1)
        i0 = np.minimum(np.floor(c).astype(np.int64), n - 1)
        i1 = np.minimum(i0 + 1, n - 1)
        d0, d1 = np.abs(c - i0), np.abs(c - i1)
        same = i0 == i1
        d0[same] = d1[same] = 0.5
        return np.stack([i0, i1], 1), np.stack([d1, d0], 1)
    if how.mode == "cubic":
        f = np.floor(c)
        t = c - f
        a = how.cube_coeff
        w = np.stack([((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                      ((a + 2) * t - (a + 3)) * t * t + 1,
                      ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
                      ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a], 1)
        idx = np.clip(f.astype(np.int64)[:, None] + np.arange(-1, 3), 0, n - 1)
        return idx, w
    # linear: triangle filter, widened by 1/scale when antialiasing a downsample;
    # taps outside the input are dropped and the rest renormalised
    k = float(scale) if how.antialias and scale < 1 else 1.0
    r = int(np.ceil(1 / k)) + 1
    base = np.floor(c).astype(np.int64)
    idx = base[:, None] + np.arange(-r, r + 1)
    w = np.maximum(0.0, 1.0 - np.abs(k * (c[:, None] - idx)))
    w[(idx < 0) | (idx >= n)] = 0.0
    total = w.sum(1, keepdims=True)
    w = np.divide(w, total, out=np.zeros_like(w), where=total > 0)
    return np.clip(idx, 0, n - 1), w


def _pillow_taps(how: Resize, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Pillow's resampling weights [m, taps] of one axis: the filter centred on
    each output pixel's centre, widened by n/m when downscaling, cut to the
    input and normalised to sum 1."""
    scale = n / m
    fscale = max(scale, 1.0)
    support = (1.0 if how.mode == "bilinear_pillow" else 2.0) * fscale
    ksize = int(np.ceil(support)) * 2 + 1
    center = (np.arange(m) + 0.5) * scale
    lo = np.maximum((center - support + 0.5).astype(np.int64), 0)  # C's truncating casts
    hi = np.minimum((center + support + 0.5).astype(np.int64), n)
    idx = lo[:, None] + np.arange(ksize)
    x = np.abs(((idx - center[:, None]) + 0.5) * (1.0 / fscale))
    if how.mode == "bilinear_pillow":
        w = np.where(x < 1.0, 1.0 - x, 0.0)
    else:
        a = how.cube_coeff
        w = np.where(x < 1.0, ((a + 2.0) * x - (a + 3.0)) * x * x + 1,
                     np.where(x < 2.0, (((x - 5) * x + 8) * x - 4) * a, 0.0))
    w[idx >= hi[:, None]] = 0.0
    total = w.sum(1, keepdims=True)
    w = np.divide(w, total, out=w, where=total != 0)
    return np.minimum(idx, n - 1), w


def _pillow(how: Resize, plan: InterpPlan, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    # OpenVINO resizes the second axis (W) first, then the first (H), each pass
    # summed in f64 and stored in the data type; an axis keeping its size is skipped
    for a, m in reversed(list(zip(plan.axes, plan.sizes))):
        n = x.shape[a]
        if n == m:
            continue
        y = _weighted(x.astype(np.float64, copy=False), a, m, *_pillow_taps(how, n, m), np.dtype(np.float64)) \
            if m and n else _empty(x, a, m, np.dtype(np.float64))
        if dtype.kind in "iu":  # rounded half away from zero, saturated
            info = np.iinfo(dtype)
            y = np.clip(np.trunc(y + np.copysign(0.5, y)), info.min, info.max)
        x = y.astype(dtype)
    return np.ascontiguousarray(x, dtype)


@register
class Interpolate4(_Interp):
    type, version = "Interpolate", 4
    summary = "resize chosen axes (nearest, linear, linear_onnx, cubic) to sizes or by scales"
    # the input shape_calculation_mode does not read may have any rank, as OpenVINO allows
    inputs = (In("data", NUMERIC), In("sizes", INTEGRAL, value=True), In("scales", REAL, value=True),
              In("axes", INTEGRAL, rank=1, optional=True, value=True))
    attributes = {"mode": _MODE4, **_COMMON}

    def infer(self, data: TensorInfo, sizes: TensorInfo, scales: TensorInfo, axes: TensorInfo | None = None) -> Inference:
        used, port = (sizes, 1) if self.shape_calculation_mode == "sizes" else (scales, 2)
        if used.shape.rank not in (None, 1):
            raise op_error(f"{('sizes', 'scales')[port - 1]} must be 1-D, got rank {used.shape.rank} (shape {used.shape})",
                           "bad-input-rank", port)
        return self._infer(data, sizes, scales, axes, 1, 2, 3)

    def compute(self, plan: InterpPlan, data: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        return [resize(plan, data)]


@register
class Interpolate11(_Interp):
    type, version = "Interpolate", 11
    summary = "Interpolate-4 with one scales_or_sizes input"
    inputs = (In("data", NUMERIC), In("scales_or_sizes", NUMERIC, rank=1, value=True),
              In("axes", INTEGRAL, rank=1, optional=True, value=True))
    attributes = {"mode": Enum("nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow",
                               doc="interpolation"), **_COMMON}

    def infer(self, data: TensorInfo, sos: TensorInfo, axes: TensorInfo | None = None) -> Inference:
        if self.mode in ("bilinear_pillow", "bicubic_pillow") and axes is not None:
            n_axes = target_length(axes)
            if n_axes is not None and n_axes.is_static and n_axes.value != 2:  # OpenVINO's reference asserts it
                raise op_error(f"mode {self.mode} resizes exactly two axes (H, W), got axes {axes.shape}",
                               "incompatible-inputs", 2)
        elif self.mode in ("bilinear_pillow", "bicubic_pillow") and data.shape.rank not in (None, 2):
            raise op_error(f"mode {self.mode} resizes exactly two axes (H, W): give axes for data of rank "
                           f"{data.shape.rank}", "incompatible-inputs", 0)
        sizes_mode = self.shape_calculation_mode == "sizes"
        if sos.known_type and sos.etype.dtype is not None and sizes_mode != (sos.etype.dtype.kind in "iu"):
            want = "an integer" if sizes_mode else "a floating-point"
            raise op_error(f"scales_or_sizes must have {want} element type with shape_calculation_mode "
                           f"{self.shape_calculation_mode}, got {sos.etype.name}", "bad-input-type", 1)
        return self._infer(data, sos if sizes_mode else None, None if sizes_mode else sos, axes, 1, 1, 2)

    def compute(self, plan: InterpPlan, data: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        return [resize(plan, data)]


@register
class Interpolate1(_Interp):
    """Runs as the Interpolate-4 OpenVINO converts it to (ConvertInterpolate1ToInterpolate4):
    sizes mode, nearest_mode simple, cube_coeff -0.75; linear is linear_onnx below
    rank 5; align_corners=false is half_pixel for linear without pads unless a 4-D
    input resizes axes {2, 3}, else asymmetric."""

    type, version = "Interpolate", 1
    summary = "resize the axes given as an attribute (nearest, linear, cubic) to a target spatial shape"
    inputs = (In("data", NUMERIC), In("target_spatial_shape", INTEGRAL, rank=(0, 1), value=True))
    attributes = {
        "axes": Attr("ints", required=True, doc="the resized axes (a set: order does not matter)"),
        "mode": Enum("nearest", "linear", "cubic", "area", doc="interpolation"),
        "align_corners": Attr("bool", True, doc="map the corner pixels of input and output onto each other"),
        "antialias": Attr("bool", False, doc="antialiasing filter when downsampling (linear at rank 5)"),
        "pads_begin": Attr("ints", (), doc="zeros added before each axis"),
        "pads_end": Attr("ints", (), doc="zeros added after each axis"),
    }

    def _resize(self, rank: int) -> Resize:
        mode = "linear_onnx" if self.mode == "linear" and rank < 5 else self.mode
        if self.align_corners:
            ctm = "align_corners"
        elif mode in ("linear", "linear_onnx") and not any(self.pads_begin) and not any(self.pads_end) \
                and not (rank == 4 and sorted(set(self.axes)) == [2, 3]):
            ctm = "half_pixel"
        else:
            ctm = "asymmetric"
        return Resize(mode, ctm, "simple", self.antialias, -0.75)

    def infer(self, data: TensorInfo, target: TensorInfo) -> Inference:
        if self.mode == "area":  # OpenVINO converts no area Interpolate-1 and has no kernel for it
            raise op_error("mode area is not implemented (OpenVINO does not run it either)", "bad-attribute")
        if any(a < 0 for a in self.axes):
            raise op_error(f"axes {list(self.axes)} must not be negative", "axis-out-of-range")
        axes = sorted(set(self.axes))  # an AxisSet in OpenVINO: the target shape follows ascending axes
        rank = data.shape.rank
        n = target_length(target)
        if n is not None and n.hi is not None and n.hi < len(axes):
            raise op_error(f"target_spatial_shape {target.shape} must hold one value per axis (axes {axes})",
                           "incompatible-inputs", 1)
        if rank is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)], None)
        if axes and axes[-1] >= rank:
            raise op_error(f"axes {axes} must be less than the input rank {rank}", "axis-out-of-range")
        pb, pe = self._pads(rank)
        if any(pb[d] or pe[d] for d in range(rank) if d not in axes):
            # OpenVINO's Interpolate-1 shape leaves these dims unpadded but its Interpolate-4 pads them
            raise op_error(f"pads_begin {list(self.pads_begin)} and pads_end {list(self.pads_end)} must be 0 "
                           f"outside axes {axes}", "bad-attribute")
        given = value_dims(target)
        out = list(data.shape.dims or ())
        for i, a in enumerate(axes):
            v = given[i] if given is not None else DYNAMIC
            if isinstance(v, int) and v < 0:
                raise op_error(f"target_spatial_shape {given} must not be negative", "bad-value", 1)
            out[a] = Dim(v, v) if isinstance(v, int) else v
        shape = PartialShape(tuple(out))
        plan = None
        if shape.is_static and data.shape.is_static:
            outs = shape.to_tuple()
            ins = [d + b + e for d, b, e in zip(data.shape.to_tuple(), pb, pe)]
            sizes = tuple(outs[a] for a in axes)
            scales = tuple(float(np.float32(o) / np.float32(ins[a])) if ins[a] else 0.0 for o, a in zip(sizes, axes))
            plan = InterpPlan(self._resize(rank), tuple(pb), tuple(pe), tuple(axes), sizes, scales)
        return Inference([TensorInfo(shape, data.etype)], plan)

    def compute(self, plan: InterpPlan, data: np.ndarray, *rest: np.ndarray) -> list[np.ndarray]:
        return [resize(plan, data)]
