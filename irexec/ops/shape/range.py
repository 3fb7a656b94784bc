"""Range-1 and Range-4: evenly spaced values from start to stop by step."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import dtypes
from ...shapes import DYNAMIC, Dim, PartialShape
from ..base import (
    NUMERIC,
    UNBOUNDED,
    Attr,
    In,
    Inference,
    Op,
    TensorInfo,
    op_error,
    same_as,
)
from ..registry import register

START, STOP, STEP = 0, 1, 2


def _scalar_value(info: TensorInfo, what: str, port: int) -> float | int | None:
    v = info.value()
    if v is None:
        return None
    v = np.asarray(v).reshape(-1)  # one value: the inputs are declared scalars
    x = v[0]
    if v.dtype.kind in "iub":
        return int(x)
    x = float(x)
    if not math.isfinite(x):
        raise op_error(f"{what} is {x}; it must be finite", "bad-value", port)
    return x


def _range_length(start: float, stop: float, step: float) -> int:
    if (step > 0 and start >= stop) or (step < 0 and start <= stop):
        return 0
    if isinstance(start, int) and isinstance(stop, int) and isinstance(step, int):
        return -(-abs(stop - start) // abs(step))
    return int(math.ceil(abs(stop - start) / abs(step)))


class _Range(Op):
    type = "Range"
    family = "shape"

    def _out_etype(self, start: TensorInfo) -> Any:
        raise NotImplementedError

    def infer(self, start: TensorInfo, stop: TensorInfo, step: TensorInfo) -> Inference:
        et = self._out_etype(start)
        integral = et.is_integral
        vals = [_scalar_value(i, n, p) for i, n, p in ((start, "start", START), (stop, "stop", STOP), (step, "step", STEP))]
        if vals[2] is not None and vals[2] == 0:
            raise op_error("step is 0: the range would never end", "bad-value", STEP)
        if integral:
            vals = [None if v is None else int(v) if isinstance(v, int) else int(math.trunc(v)) for v in vals]
            if vals[2] == 0:
                raise op_error("step truncates to 0 for an integer output type", "bad-value", STEP)
        if all(v is not None for v in vals):
            a, b, s = vals
            n = _range_length(a, b, s)  # type: ignore[arg-type]
            return Inference([TensorInfo(PartialShape.static([n]), et)], (a, s, n))
        return Inference([TensorInfo(PartialShape((self._length_bounds(start, stop, step, vals[2]),)), et)])

    @staticmethod
    def _length_bounds(start: TensorInfo, stop: TensorInfo, step: TensorInfo, s: Any) -> Dim:
        """The length interval from integer bounds of start and stop and a known step."""
        if not isinstance(s, int) or s == 0:
            return DYNAMIC
        a, b = start.bounds(), stop.bounds()
        if a is None or b is None or a[0].size != 1 or b[0].size != 1:
            return DYNAMIC
        a_lo, a_hi, b_lo, b_hi = (int(x.reshape(-1)[0]) for x in (a[0], a[1], b[0], b[1]))
        if s > 0:
            lo_span, hi_span = b_lo - a_hi, (None if b_hi >= UNBOUNDED or a_lo <= -UNBOUNDED else b_hi - a_lo)
        else:
            lo_span, hi_span = a_lo - b_hi, (None if a_hi >= UNBOUNDED else a_hi - b_lo)
        step = abs(s)
        lo = max(0, -(-lo_span // step))
        hi = None if hi_span is None else max(0, -(-hi_span // step))
        return Dim(lo, hi)

    def compute(self, plan: tuple[Any, Any, int], start: np.ndarray, stop: np.ndarray, step: np.ndarray) -> Sequence[np.ndarray]:
        a, s, n = plan
        dtype = self._out_etype(concrete_type(start)).dtype
        if dtype.kind in "iu":
            # start + i*step with the type's wrap-around, as repeated += does
            idx = np.arange(n, dtype=np.int64).astype(dtype)
            with np.errstate(over="ignore"):
                return [(idx * np.array(s).astype(np.int64).astype(dtype) + np.array(a).astype(np.int64).astype(dtype)).astype(dtype)]
        # floats: start + T(i) * step, each operation rounded in T as OpenVINO's reference does
        with np.errstate(all="ignore"):
            t_start = np.asarray(start).reshape(()).astype(dtype)
            t_step = np.asarray(step).reshape(()).astype(dtype)
            idx = np.arange(n, dtype=np.float64).astype(dtype)
            return [(t_start + idx * t_step).astype(dtype)]


def concrete_type(a: np.ndarray) -> TensorInfo:
    et = dtypes.from_dtype(a.dtype) or dtypes.get("undefined")
    return TensorInfo(PartialShape(()), et)


@register
class Range1(_Range):
    version = 1
    summary = "start, start+step, ... up to stop (excluded), in the inputs' element type"
    inputs = (In("start", NUMERIC, rank=0, value=True), In("stop", same_as("start"), rank=0, value=True),
              In("step", same_as("start"), rank=0, value=True))

    def _out_etype(self, start: TensorInfo) -> Any:
        return start.etype


@register
class Range4(_Range):
    version = 4
    summary = "start, start+step, ... up to stop (excluded), as output_type"
    inputs = (In("start", NUMERIC, rank=0, value=True), In("stop", NUMERIC, rank=0, value=True),
              In("step", NUMERIC, rank=0, value=True))
    attributes = {"output_type": Attr("etype", required=True, doc="a number element type")}

    def validate(self) -> list:
        if not self.output_type.is_numeric:
            return [op_error(f"output_type must be a number type, got {self.output_type.name}", "bad-attribute")]
        return []

    def _out_etype(self, start: TensorInfo) -> Any:
        return self.output_type
