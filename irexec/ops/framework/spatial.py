"""What convolution and pooling ops share: spatial attribute checks, the
output size of one spatial axis (explicit pads, auto_pad, rounding modes)
over static, interval and dynamic dims, and the concrete pads a kernel uses."""

from __future__ import annotations

from collections.abc import Sequence

from ...base.shapes import DYNAMIC, Dim
from .base import Enum, TensorInfo, op_error

AUTO_PAD = Enum("explicit", "notset", "valid", "same_upper", "same_lower",
                doc="explicit/notset: pads_begin/pads_end; valid: no padding; same_*: output = ceil(input / stride)")


def spatial_axes(data: TensorInfo, filters: TensorInfo, grouped: bool, strides: Sequence[int], dilations: Sequence[int],
                 what: str) -> int:
    """How many spatial axes a convolution has (from the data rank, else the
    filters' rank, else the strides), with strides and dilations checked
    against it; the filters (input 1) carry one more axis when grouped."""
    extra = 1 if grouped else 0
    if data.shape.rank is not None:
        n = data.shape.rank - 2
    elif filters.shape.rank is not None:
        n = filters.shape.rank - 2 - extra
    else:
        n = len(strides)
    if data.shape.rank is not None and filters.shape.rank is not None and filters.shape.rank != n + 2 + extra:
        raise op_error(f"filters {filters.shape} must have rank {n + 2 + extra} for data {data.shape}", "bad-input-rank", 1)
    if not 1 <= n <= 3:
        raise op_error(f"{what} needs 1 to 3 spatial axes, got {n}", "bad-input-rank", 0)
    check_spatial("strides", strides, n, port=None)
    check_spatial("dilations", dilations, n, port=None)
    return n


def check_spatial(name: str, values: Sequence[int], n: int, *, positive: bool = True, port: int | None = 0) -> None:
    if len(values) != n:
        raise op_error(f"{name} {list(values)} must have one value per spatial axis ({n})", "bad-attribute", port)
    if positive and any(v < 1 for v in values):
        raise op_error(f"{name} {list(values)} must be positive", "bad-attribute", port)


def dilated(k: Dim | int, d: int) -> Dim:
    k = Dim.of(k)
    lo = d * (k.lo - 1) + 1 if k.lo >= 1 else 0
    return Dim(lo, None if k.hi is None else (d * (k.hi - 1) + 1 if k.hi >= 1 else 0))


def same_pads(n: int, k: int, s: int, d: int, upper: bool) -> tuple[int, int]:
    """Begin and end pads of auto_pad same_upper/same_lower on a dim of ``n``."""
    out = -(-n // s)
    total = max(0, (out - 1) * s + d * (k - 1) + 1 - n)
    small, big = total // 2, total - total // 2
    return (small, big) if upper else (big, small)


def window_count(dim: Dim, dk: Dim, s: int, pb: int, pe: int, rounding: str, axis: int, what: str) -> Dim:
    """Windows along one axis of ``dim`` with pads: floor, ceil or ceil_torch
    (ceil, but no window may start in the end padding)."""
    padded = dim + (pb + pe) if pb + pe >= 0 else dim - (-(pb + pe))
    if dim.is_static and dk.is_static and (dk.value > padded.value or dk.value < 1):
        raise op_error(f"the {what} (after dilation) {dk.value} is larger than the padded input {padded.value} "
                       f"on spatial axis {axis}", "bad-shape", 0)
    span = padded - dk
    if rounding == "floor":
        return span.floordiv(s) + 1
    count = span.ceildiv(s)
    if rounding == "ceil":
        return count + 1

    def torch(c: int, n: int) -> int:
        # n + pb == 0 (an unknown dim's lower bound) keeps the window, as OpenVINO infers
        return c + 1 if c * s <= n + pb - 1 or n + pb == 0 else c

    lo = torch(count.lo, dim.lo)
    hi = None if count.hi is None or dim.hi is None else torch(count.hi, dim.hi)
    return Dim(lo, hi)


def auto_pad_count(dim: Dim, s: int) -> Dim:
    return dim.ceildiv(s) if not dim.is_dynamic else DYNAMIC
