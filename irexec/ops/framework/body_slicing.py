"""The slices a TensorIterator or Loop takes of a sliced input, by OpenVINO's
port-map rules (start, end, stride, part_size, axis)."""

from __future__ import annotations

from ...base.shapes import DYNAMIC, Dim, PartialShape
from .base import op_error
from .body import BodyInput


def num_slices(dim: Dim, bi: BodyInput) -> Dim:
    """Iterations a sliced input gives: [start, end] both included, negative
    values counted from the end (OpenVINO's rule)."""
    if not dim.is_static:
        return DYNAMIC
    n = dim.value
    start = bi.start + n if bi.start < 0 else bi.start
    end = bi.end + n if bi.end < 0 else bi.end
    return Dim.of((abs(end - start) + 1) // bi.part_size)


def check_slices(bi: BodyInput, shape: PartialShape) -> None:
    """Every slice a sliced input gives lies inside its dim and runs from start
    towards end: OpenVINO's reference splits the whole axis into parts of
    part_size, walked forwards or backwards by the stride's sign, so a stride
    other than +-part_size, or a start and end the stride walks away from,
    reads outside the tensor or wraps around."""
    if shape.dims is None or bi.axis is None:
        return
    if not -len(shape.dims) <= bi.axis < len(shape.dims):
        raise op_error(f"port map axis {bi.axis} is out of range for input shape {shape}", "axis-out-of-range", bi.index)
    dim = shape.dims[bi.axis]
    if abs(bi.stride) != bi.part_size:
        raise op_error(f"port map stride={bi.stride} with part_size={bi.part_size}: the stride must be part_size or "
                       "-part_size (each iteration takes the next part)", "bad-port-map", bi.index)
    if not dim.is_static:
        return
    n = dim.value
    start = bi.start + n if bi.start < 0 else bi.start
    end = bi.end + n if bi.end < 0 else bi.end
    count = (abs(end - start) + 1) // bi.part_size
    first, last = slice_begin(n, bi, 0), slice_begin(n, bi, count - 1) if count else 0
    if not (0 <= start < n and 0 <= end < n) or (bi.stride > 0) != (end >= start) and start != end \
            or count and not (0 <= min(first, last) and max(first, last) + bi.part_size <= n):
        raise op_error(f"port map start={bi.start}, end={bi.end}, stride={bi.stride}, part_size={bi.part_size} do not "
                       f"walk inside dim {n} of axis {bi.axis} (input shape {shape}; start and end must be inside it, "
                       "and the stride must lead from start to end)", "bad-port-map", bi.index)


def slice_begin(n: int, bi: BodyInput, i: int) -> int:
    start = bi.start + n if bi.start < 0 else bi.start
    if bi.stride > 0:
        return start + i * bi.stride
    return start - i * -bi.stride - bi.part_size + 1
