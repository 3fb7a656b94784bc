"""Random generators: RandomUniform-8 and Multinomial-13.

Shapes and element types are inferred exactly as OpenVINO does.  Values come
from NumPy's Philox generator keyed by (global_seed, op_seed): deterministic
for a fixed nonzero seed pair, the same on every run and platform, but NOT
the sequence OpenVINO's Philox produces, so values are not comparable with
OpenVINO.  With both seeds 0 every run draws fresh values, as the spec says.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, NUMERIC, REAL, Attr, Enum, In, IndexType, Inference, Op, TensorInfo, op_error
from ..framework.helpers import const_int, const_ints, shape_from_input
from ..framework.registry import register


def _generator(global_seed: int, op_seed: int) -> np.random.Generator:
    if global_seed == 0 and op_seed == 0:
        return np.random.default_rng()
    return np.random.Generator(np.random.Philox(key=[global_seed & (2**64 - 1), op_seed & (2**64 - 1)]))


def _one_value(info: TensorInfo, what: str, port: int) -> float | int | None:
    v = info.value()
    if v is None:
        return None
    flat = np.asarray(v).reshape(-1)
    return flat[0].item() if flat.size == 1 else None


_SEEDS = {
    "global_seed": Attr("uint", 0, doc="with op_seed, the seed of the generator; both 0: fresh values each run"),
    "op_seed": Attr("uint", 0, doc="with global_seed, the seed of the generator"),
}


def _below(x: np.ndarray) -> np.ndarray:
    """The largest value of x's float type below x (finite x)."""
    bits = x.view(np.dtype(f"u{x.itemsize}"))
    sign = np.asarray(1, bits.dtype) << np.asarray(8 * x.itemsize - 1, bits.dtype)
    if float(x) > 0:
        return (bits - 1).astype(bits.dtype).view(x.dtype)
    if float(x) == 0:
        return (sign | np.asarray(1, bits.dtype)).astype(bits.dtype).view(x.dtype)
    return (bits + 1).astype(bits.dtype).view(x.dtype)


@register
class RandomUniform8(Op):
    type, version = "RandomUniform", 8
    family = "generation"
    deterministic = False  # never folded, whatever the seeds (OpenVINO does not fold it either)
    summary = "uniform random values in [minval, maxval) of output_type (values differ from OpenVINO's)"
    inputs = (In("shape", INDEX, rank=1, value=True), In("minval", NUMERIC, rank=(0, 1), elements=1, value=True),
              In("maxval", NUMERIC, rank=(0, 1), elements=1, value=True))
    attributes = {"output_type": Attr("etype", required=True, doc="element type of the output"), **_SEEDS,
                  # OpenVINO's generator layout (its default: tensorflow); irexec draws other values either way
                  "alignment": Enum("tensorflow", "pytorch", doc="whose random sequence OpenVINO reproduces")}

    def validate(self) -> list:
        if not self.output_type.is_numeric:
            return [op_error(f"output_type={self.output_type} must be a numeric type", "bad-attribute")]
        return []

    def infer(self, shape: TensorInfo, lo: TensorInfo, hi: TensorInfo) -> Inference:
        for port, info in ((1, lo), (2, hi)):
            if info.known_type and info.etype is not self.output_type:
                raise op_error(f"{('minval', 'maxval')[port - 1]} must have the output_type's element type "
                               f"({self.output_type}), got {info.etype}", "bad-input-type", port)
        a, b = _one_value(lo, "minval", 1), _one_value(hi, "maxval", 2)
        if a is not None and b is not None and not a < b:
            raise op_error(f"minval {a} must be less than maxval {b}", "bad-value", 1)
        values = const_ints(shape, "shape", 0)
        if values is not None:
            for i, d in enumerate(values):
                if d < 0:
                    raise op_error(f"shape[{i}] = {d} must not be negative (shape {values})", "bad-value", 0)
        out = shape_from_input(shape)
        plan = None
        if out.is_static and a is not None and b is not None:
            plan = (out.to_tuple(), a, b)
        return Inference([TensorInfo(out, self.output_type)], plan)

    def compute(self, plan: tuple[tuple[int, ...], float, float], *inputs: np.ndarray) -> Sequence[np.ndarray]:
        shape, lo, hi = plan
        rng = _generator(self.global_seed, self.op_seed)
        dt = self.output_type.dtype
        if dt.kind in "iu":
            out = rng.integers(int(lo), int(hi), size=shape, dtype=np.int64 if dt.kind == "i" else np.uint64).astype(dt)
        else:
            wide = rng.random(shape) * (float(hi) - float(lo)) + float(lo)
            out = wide.astype(dt)
            top = np.asarray(hi, dt)
            out = np.where(out >= top, _below(top), out).astype(dt)
            out = np.maximum(out, np.asarray(lo, dt))
        return [np.ascontiguousarray(out)]


@register
class Multinomial13(Op):
    type, version = "Multinomial", 13
    family = "generation"
    deterministic = False
    summary = "num_samples class indices per batch drawn from (log-)probabilities (values differ from OpenVINO's)"
    inputs = (In("probs", REAL, value=False), In("num_samples", INDEX, rank=(0, 1), elements=1, value=True))
    attributes = {
        "convert_type": IndexType(doc="element type of the samples: i32 or i64"),
        "with_replacement": Attr("bool", required=True, doc="a class may be drawn more than once"),
        "log_probs": Attr("bool", False, doc="probs holds log-probabilities"),
        **_SEEDS,
    }

    def infer(self, probs: TensorInfo, num: TensorInfo) -> Inference:
        if probs.shape.rank is not None and probs.shape.rank != 2:
            raise op_error(f"probs must be 2-D [batch, classes], got shape {probs.shape}", "bad-input-rank", 0)
        n = const_int(num, "num_samples", 1)
        if n is not None and n < 0:
            raise op_error(f"num_samples {n} must not be negative", "bad-value", 1)
        if probs.shape.rank is None:
            return Inference([TensorInfo(PartialShape(None), self.convert_type)])
        batch, classes = probs.shape[0], probs.shape[1]
        if n is not None and not self.with_replacement and classes.hi is not None and n > classes.hi:
            raise op_error(f"num_samples {n} exceeds the {classes} classes, which without replacement is impossible",
                           "bad-value", 1)
        out = PartialShape((batch, Dim(n, n) if n is not None else DYNAMIC))
        return Inference([TensorInfo(out, self.convert_type)], n)

    def compute(self, plan: int, probs: np.ndarray, num: np.ndarray) -> Sequence[np.ndarray]:
        n = plan
        rng = _generator(self.global_seed, self.op_seed)
        p = probs.astype(np.float64)
        if self.log_probs:
            p = np.exp(p)
        batch, classes = p.shape
        if batch == 0 or n == 0 or classes == 0:
            return [np.zeros((batch, n), self.convert_type.dtype)]
        with np.errstate(all="ignore"):
            if self.with_replacement:
                cdf = np.cumsum(p, axis=1)
                cdf /= cdf[:, -1:]
                u = rng.random((batch, n))
                # one sorted search for every row: row b's cdf and draws shifted by 2b
                shift = 2.0 * np.arange(batch)[:, None]
                flat = np.searchsorted((cdf + shift).ravel(), (u + shift).ravel(), side="right")
                idx = flat.reshape(batch, n) - classes * np.arange(batch)[:, None]
                idx = np.minimum(idx, classes - 1)
            else:
                # Gumbel top-k: the n largest of log p + Gumbel noise are a draw without replacement
                keys = np.log(p) + rng.gumbel(size=p.shape)
                idx = np.argsort(-keys, axis=1, kind="stable")[:, :n]
        return [np.ascontiguousarray(idx.astype(self.convert_type.dtype))]

