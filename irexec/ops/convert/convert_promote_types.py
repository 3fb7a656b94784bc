"""ConvertPromoteTypes-14: both inputs converted to one common element type,
chosen by OpenVINO's promotion rules (src/core/src/op/convert_promote_types.cpp):
equal types stay; boolean yields to the other; a float and an integer give the
float (in safe mode only when it has at least twice the integer's bits); two
floats or two integers of one signedness give the wider; a signed and an
unsigned integer give the signed integer of twice the unsigned one's bits (u64:
``u64_integer_promotion_target`` in unsafe mode); with
``pytorch_scalar_promotion`` a scalar of the same kind takes the other's type.
Each conversion is Convert-1's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import dtypes
from ...base.dtypes import ElementType
from ...base.shapes import PartialShape
from ...kernels.convert import convert_array
from ..framework.base import Attr, In, Inference, Op, TensorInfo, op_error
from ..framework.registry import register

# the element types OpenVINO's rules know (irexec does not run u1/i4/u4/f8 arithmetic, but converts them)
_SUPPORTED = frozenset(("boolean", "f16", "f32", "f64", "i4", "i8", "i16", "i32", "i64", "u1", "u4", "u8", "u16", "u32",
                        "u64", "f8e4m3", "f8e5m2", "bf16"))


def _signed(et: ElementType) -> bool:
    return et.is_real or et.name.startswith("i")


def _is_scalar(shape: PartialShape) -> bool:
    return shape.dims is not None and len(shape.dims) == 0


def common_type(a: TensorInfo, b: TensorInfo, unsafe: bool, pytorch: bool, u64_target: ElementType) -> ElementType | None:
    """The promoted type, None when it depends on what is unknown; an error where OpenVINO refuses."""
    t0, t1 = a.etype, b.etype
    for port, info in enumerate((a, b)):
        if info.known_type and info.etype.name not in _SUPPORTED:
            raise op_error(f"ConvertPromoteTypes does not take element type {info.etype.name}", "bad-input-type", port)
    if not (a.known_type and b.known_type):
        return None
    if t0 is t1:
        return t0
    if t0.name == "boolean":
        return t1
    if t1.name == "boolean":
        return t0
    if t0.is_real != t1.is_real:
        real, integer = (t0, t1) if t0.is_real else (t1, t0)
        if not unsafe and real.bits < 2 * integer.bits:
            raise op_error(f"{integer.name} cannot be safely promoted to {real.name} (promote_unsafe is false)",
                           "bad-input-type", 0 if integer is t0 else 1)
        return real
    if pytorch and (a.shape.rank is None or b.shape.rank is None):
        return None  # whether one is a scalar decides: unknown, as OpenVINO leaves it
    s0, s1 = _is_scalar(a.shape), _is_scalar(b.shape)
    if pytorch and s0 != s1:
        target, scalar = (t1, t0) if s0 else (t0, t1)
        if not unsafe and not ((_signed(target) == _signed(scalar) and target.bits >= scalar.bits)
                               or (_signed(target) and not _signed(scalar) and target.bits * 2 >= scalar.bits)):
            raise op_error(f"scalar {scalar.name} cannot be promoted to {target.name} by the safe rules",
                           "bad-input-type", 0 if s0 else 1)
        return target
    if _signed(t0) != _signed(t1):
        ubits, ibits = (t1.bits, t0.bits) if _signed(t0) else (t0.bits, t1.bits)
        if ubits <= 32 and (unsafe or 2 * ubits <= ibits):
            return dtypes.get({4: "i4", 8: "i8", 16: "i16", 32: "i32", 64: "i64"}[max(2 * ubits, ibits)])
        if not unsafe:
            raise op_error(f"{t0.name} and {t1.name}: the unsigned one cannot be safely promoted into a signed integer",
                           "bad-input-type", 1)
        return u64_target
    if t0.bits != t1.bits:
        return t0 if t0.bits >= t1.bits else t1
    if unsafe and t0.name.startswith("f8") and t1.name.startswith("f8"):
        return dtypes.get("f16")
    if unsafe and {t0.name, t1.name} == {"f16", "bf16"}:
        return dtypes.get("f32")
    raise op_error(f"no common type for {t0.name} and {t1.name} with these attributes", "bad-input-type", 1)


@register
class ConvertPromoteTypes14(Op):
    type, version, family = "ConvertPromoteTypes", 14, "convert"
    summary = "both inputs converted to their common element type (OpenVINO's promotion rules)"
    inputs = (In("input_0"), In("input_1"))
    outputs = 2
    attributes = {"promote_unsafe": Attr("bool", False, doc="allow promotions that may lose values"),
                  "pytorch_scalar_promotion": Attr("bool", False, doc="a scalar takes the other input's type"),
                  "u64_integer_promotion_target": Attr("etype", dtypes.get("f32"),
                                                       doc="the type of u64 with a signed integer (unsafe mode)")}

    def infer(self, a: TensorInfo, b: TensorInfo) -> Inference:
        et = common_type(a, b, self.promote_unsafe, self.pytorch_scalar_promotion, self.u64_integer_promotion_target)
        if et is None:
            et = dtypes.get("dynamic")
        return Inference([TensorInfo(a.shape, et), TensorInfo(b.shape, et)], et)

    def compute(self, plan: ElementType, a: np.ndarray, b: np.ndarray) -> Sequence[np.ndarray]:
        dtype = plan.dtype
        assert dtype is not None, "infer promotes to a type NumPy holds"
        return [convert_array(a, dtype), convert_array(b, dtype)]
