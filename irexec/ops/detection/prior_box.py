"""Anchor generators of SSD-style detectors: PriorBox-1, PriorBox-8 and
PriorBoxClustered-1.

Inputs are the feature map's [height, width] and the image's [height, width]
(integers); the output is f32 [2, 4 * H * W * priors]: row 0 the boxes
[xmin, ymin, xmax, ymax] normalised by the image size, prior by prior for each
cell (row-major), row 1 the variances repeated per box.  The boxes follow
OpenVINO's reference step by step in f32 (its aspect-ratio list, integer
halving of fixed sizes, mxnet-like sizes when scale_all_sizes is false), so
they are bit-exact with it.  The number of priors is OpenVINO's formula
(number_of_priors); an attribute combination whose boxes would not fill it is
refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INTEGRAL, Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.helpers import value_dims
from ..framework.registry import register

_F32 = dtypes.get("f32")
f32 = np.float32


def _pair(info: TensorInfo, port: int) -> tuple[Dim | int, Dim | int] | None:
    """The two values of an output-size input as OpenVINO reads a shape: None when unknown."""
    dims = value_dims(info)
    if dims is None:
        return None
    if len(dims) != 2:
        raise op_error(f"output_size must hold two values [height, width], got {len(dims)}", "bad-value", port)
    for d in dims:
        if isinstance(d, int) and d < 0:
            raise op_error(f"output_size {dims} must not be negative", "bad-value", port)
    return dims[0], dims[1]


def _infer(op: Op, out_size: TensorInfo, image: TensorInfo, priors: int) -> Inference:
    im = image.shape
    if im.dims is not None and im[0].hi is not None and im[0].hi < 2:
        raise op_error(f"image_size must hold [height, width], got shape {im}", "incompatible-inputs", 1)
    pair = _pair(out_size, 0)
    if pair is None:
        return Inference([TensorInfo(PartialShape((Dim(2, 2), DYNAMIC)), _F32)])
    h, w = pair
    n = Dim.of(h) * Dim.of(w) * priors * 4
    return Inference([TensorInfo(PartialShape((Dim(2, 2), n)), _F32)], (h, w))


def _variances(values: Sequence[float]) -> list:
    return [] if len(values) in (0, 1, 4) else [op_error(f"variance has {len(values)} values; it takes 0, 1 or 4",
                                                          "bad-attribute")]


def _write_variances(out: np.ndarray, variance: Sequence[float]) -> None:
    v = np.array(variance or (0.1,), np.float32)
    out[1] = np.tile(v, out.shape[1] // v.size) if v.size == 4 else v[0]


class _PriorBox(Op):
    family = "detection"
    inputs = (In("output_size", INTEGRAL, rank=1, value=True), In("image_size", INTEGRAL, rank=1))
    base_attributes = {
        "min_size": Attr("floats", (), doc="box sizes (pixels; fractions of the image with scale_all_sizes false)"),
        "max_size": Attr("floats", (), doc="one extra box of sqrt(min*max) per min_size"),
        "aspect_ratio": Attr("floats", (), doc="width/height ratios besides 1"),
        "density": Attr("floats", (), doc="boxes per side of a fixed_size (densified priors)"),
        "fixed_ratio": Attr("floats", (), doc="aspect ratios of the densified priors"),
        "fixed_size": Attr("floats", (), doc="sizes of the densified priors"),
        "clip": Attr("bool", False, doc="clip the boxes to [0, 1]"),
        "flip": Attr("bool", False, doc="add 1/ratio for each aspect ratio"),
        "step": Attr("float", 0.0, doc="distance between cell centres (0: image size / map size)"),
        "offset": Attr("float", required=True, doc="centre of a cell, in steps"),
        "variance": Attr("floats", (), doc="0, 1 or 4 values for row 1 (default 0.1)"),
        "scale_all_sizes": Attr("bool", True, doc="aspect ratios at every min_size (false: mxnet-like, the last)"),
    }
    attributes = base_attributes
    min_max_first = True  # PriorBox-1 puts the max_size box before the aspect-ratio boxes

    def priors(self) -> int:
        """OpenVINO's number_of_priors."""
        ratios = {round(r * 1e6) / 1e6 for r in self.aspect_ratio} | (
            {round(1 / r * 1e6) / 1e6 for r in self.aspect_ratio if r} if self.flip else set())
        total = len(ratios | {1.0})
        n = total * len(self.min_size) + len(self.max_size) if self.scale_all_sizes else total + len(self.min_size) - 1
        if self.fixed_size:
            n = total * len(self.fixed_size)
        for d in self.density:
            extra = int(d) * int(d) - 1
            n += len(self.fixed_ratio) * extra if self.fixed_ratio else total * extra
        return n

    def ratios(self) -> list[float]:
        """The reference's aspect-ratio list: 1, then each new ratio (and its inverse with flip)."""
        out = [1.0]
        for r in self.aspect_ratio:
            if not any(abs(f32(r) - f32(e)) < 1e-6 for e in out):
                out.append(float(f32(r)))
                if self.flip:
                    out.append(float(f32(1) / f32(r)))
        return out

    def generated(self) -> int:
        """How many boxes per cell the reference writes."""
        ratios = [r for r in self.ratios() if abs(r - 1.0) >= 1e-6]
        n = 0
        for s in range(len(self.fixed_size)):
            d = int(self.density[s]) ** 2 if s < len(self.density) else 0
            if self.fixed_ratio:
                n += len(self.fixed_ratio) * d
            else:
                n += d + (len(ratios) * d if ratios else 0)
        for k in range(len(self.min_size)):
            n += 1 + (k < len(self.max_size))
            if self.scale_all_sizes or k == len(self.min_size) - 1:
                n += len(ratios)
        return n

    def validate(self) -> list:
        errors = _variances(self.variance)
        if self.fixed_size and len(self.density) < len(self.fixed_size):
            errors.append(op_error(f"density has {len(self.density)} values; fixed_size needs one per size "
                                   f"({len(self.fixed_size)})", "bad-attribute"))
        elif any(r == 0 for r in self.aspect_ratio) or any(r <= 0 for r in self.fixed_ratio):
            errors.append(op_error("aspect_ratio and fixed_ratio values must be positive", "bad-attribute"))
        elif self.generated() != self.priors():
            errors.append(op_error(f"these attributes make {self.generated()} boxes per cell but OpenVINO sizes the "
                                   f"output for {self.priors()} (number_of_priors)", "bad-attribute"))
        return errors

    def infer(self, out_size: TensorInfo, image: TensorInfo) -> Inference:
        return _infer(self, out_size, image, self.priors())

    def compute(self, plan: tuple[int, int], out_size: np.ndarray, image: np.ndarray) -> Sequence[np.ndarray]:
        h, w = plan
        ih, iw = (int(v) for v in image.reshape(-1)[:2])
        boxes = self.boxes(h, w, ih, iw)  # [h, w, priors, 4]
        out = np.empty((2, boxes.size), np.float32)
        flat = boxes.reshape(-1)
        out[0] = np.clip(flat, f32(0), f32(1)) if self.clip else flat
        _write_variances(out, self.variance)
        return [out]

    def boxes(self, h: int, w: int, ih: int, iw: int) -> np.ndarray:
        step = f32(self.step)
        min_size = [f32(m) for m in self.min_size]
        if not self.scale_all_sizes:  # mxnet-like: sizes and step are fractions of the image height
            step = f32(f32(ih) / f32(h)) if step == -1 else f32(step * f32(ih))
            min_size = [f32(m * f32(ih)) for m in min_size]
        inv_w, inv_h = f32(1) / f32(iw), f32(1) / f32(ih)
        gx = np.arange(w, dtype=np.float32)[None, :].repeat(h, 0)
        gy = np.arange(h, dtype=np.float32)[:, None].repeat(w, 1)
        if step == 0:
            cx = (gx + f32(0.5)) * f32(f32(iw) / f32(w))
            cy = (gy + f32(0.5)) * f32(f32(ih) / f32(h))
        else:
            cx = (f32(self.offset) + gx) * step
            cy = (f32(self.offset) + gy) * step
        out: list[np.ndarray] = []

        def add(x: np.ndarray, y: np.ndarray, bw: np.float32, bh: np.float32, clip: bool) -> None:
            box = [(x - bw) * inv_w, (y - bh) * inv_h, (x + bw) * inv_w, (y + bh) * inv_h]
            if clip:
                box = [np.maximum(box[0], f32(0)), np.maximum(box[1], f32(0)), np.minimum(box[2], f32(1)),
                       np.minimum(box[3], f32(1))]
            out.append(np.stack(box, -1))

        def dense(size: float, d: int, bw: np.float32, bh: np.float32) -> None:
            half = f32(int(size) // 2)  # the reference halves the size as an integer
            shift = int(f32(size) / f32(d))
            for r in range(d):
                for c in range(d):
                    add(cx - half + f32(shift / 2) + f32(c * shift), cy - half + f32(shift / 2) + f32(r * shift),
                        bw, bh, True)

        ratios = self.ratios()
        for s, size in enumerate(self.fixed_size):
            d = int(self.density[s])
            if self.fixed_ratio:
                for ar in self.fixed_ratio:
                    root = f32(math.sqrt(f32(ar)))
                    dense(size, d, f32(f32(size) * f32(0.5) * root), f32(f32(size) * f32(0.5) / root))
                continue
            half = f32(f32(int(size)) * f32(0.5))
            dense(size, d, half, half)
            for ar in ratios:
                if abs(ar - 1.0) < 1e-6:
                    continue
                root = f32(math.sqrt(f32(ar)))
                dense(size, d, f32(f32(size) * f32(0.5) * root), f32(f32(size) * f32(0.5) / root))
        for k, m in enumerate(min_size):
            half = f32(m * f32(0.5))
            add(cx, cy, half, half, False)

            extra = []
            if k < len(self.max_size):
                side = f32(f32(math.sqrt(f32(m * f32(self.max_size[k])))) * f32(0.5))
                extra.append((side, side))
            by_ratio = []
            if self.scale_all_sizes or k == len(min_size) - 1:
                base = min_size[k if self.scale_all_sizes else 0]
                for ar in ratios:
                    if abs(ar - 1.0) >= 1e-6:
                        root = f32(math.sqrt(f32(ar)))
                        by_ratio.append((f32(base * f32(0.5) * root), f32(base * f32(0.5) / root)))
            for bw, bh in (extra + by_ratio if self.min_max_first else by_ratio + extra):
                add(cx, cy, bw, bh, False)
        if not out:
            return np.zeros((h, w, 0, 4), np.float32)
        return np.stack(out, 2).astype(np.float32)


@register
class PriorBox1(_PriorBox):
    type, version = "PriorBox", 1
    since_opset = 1
    summary = "SSD prior boxes per feature-map cell: sizes, aspect ratios, densified fixed sizes"


@register
class PriorBox8(_PriorBox):
    type, version = "PriorBox", 8
    summary = "PriorBox-1 with min_max_aspect_ratios_order (max_size box before or after the ratio boxes)"
    attributes = {**_PriorBox.base_attributes,
                  "min_max_aspect_ratios_order": Attr("bool", True, doc="max_size box before the aspect-ratio boxes")}

    @property
    def min_max_first(self) -> bool:
        return bool(self.min_max_aspect_ratios_order)


@register
class PriorBoxClustered1(Op):
    type, version = "PriorBoxClustered", 1
    family = "detection"
    summary = "prior boxes of given widths and heights centred on each feature-map cell"
    inputs = _PriorBox.inputs
    attributes = {
        "width": Attr("floats", (), doc="box widths (pixels)"),
        "height": Attr("floats", (), doc="box heights, one per width"),
        "clip": Attr("bool", True, doc="clip the boxes to [0, 1]"),
        "step": Attr("float", 0.0, doc="step on both axes when step_w/step_h are 0"),
        "step_w": Attr("float", 0.0, doc="horizontal distance between cell centres"),
        "step_h": Attr("float", 0.0, doc="vertical distance between cell centres"),
        "offset": Attr("float", required=True, doc="centre of a cell, in steps"),
        "variance": Attr("floats", (), doc="0, 1 or 4 values for row 1 (default 0.1)"),
    }

    def validate(self) -> list:
        errors = _variances(self.variance)
        if len(self.width) != len(self.height):
            errors.append(op_error(f"height has {len(self.height)} values, width {len(self.width)}: one per box",
                                   "bad-attribute"))
        return errors

    def infer(self, out_size: TensorInfo, image: TensorInfo) -> Inference:
        return _infer(self, out_size, image, len(self.width))

    def compute(self, plan: tuple[int, int], out_size: np.ndarray, image: np.ndarray) -> Sequence[np.ndarray]:
        h, w = plan
        ih, iw = (int(v) for v in image.reshape(-1)[:2])
        step_w = f32(self.step_w if self.step_w != 0 else self.step)
        step_h = f32(self.step_h if self.step_h != 0 else self.step)
        if step_w == 0 and step_h == 0:
            step_w, step_h = f32(f32(iw) / f32(w)), f32(f32(ih) / f32(h))
        cx = (np.arange(w, dtype=np.float32)[None, :, None] + f32(self.offset)) * step_w
        cy = (np.arange(h, dtype=np.float32)[:, None, None] + f32(self.offset)) * step_h
        cx, cy = np.broadcast_to(cx, (h, w, 1)), np.broadcast_to(cy, (h, w, 1))
        bw = np.array(self.width, np.float32) / f32(2)
        bh = np.array(self.height, np.float32) / f32(2)
        with np.errstate(all="ignore"):
            box = np.stack([(cx - bw) / f32(iw), (cy - bh) / f32(ih), (cx + bw) / f32(iw), (cy + bh) / f32(ih)], -1)
        if self.clip:
            box = np.clip(box, f32(0), f32(1))
        out = np.empty((2, box.size), np.float32)
        out[0] = box.reshape(-1)
        _write_variances(out, self.variance)
        return [out]
