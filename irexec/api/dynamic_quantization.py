"""OpenVINO CPU's dynamic quantization, named where a comparison looks like it.

For a MatMul whose weights are compressed (an 8- or 4-bit Const converted to float:
NNCF's decompression chain), OpenVINO's CPU plugin quantizes the *activations* too, to
8 bits in groups of ``DYNAMIC_QUANTIZATION_GROUP_SIZE`` (32 by default, even at
``INFERENCE_PRECISION_HINT=f32``).  A reference made so differs from irexec's f32 result
on most elements by a small fraction of the output's magnitude, which no f32 tolerance
passes and which is not an irexec error: compiled with ``DYNAMIC_QUANTIZATION_GROUP_SIZE=0``
the plugin agrees with irexec at f32 tolerance (docs/numerics.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ops.convert.convert import Convert1
from ..ops.io import Const1
from .comparison import MISMATCH, CompareReport, OutputComparison

if TYPE_CHECKING:
    from ..model.binding import Model

HINT = ("the model has compressed weights: a reference from OpenVINO CPU quantizes the activations of their MatMuls "
        "dynamically (DYNAMIC_QUANTIZATION_GROUP_SIZE, on by default, also at INFERENCE_PRECISION_HINT=f32); "
        "compile it with DYNAMIC_QUANTIZATION_GROUP_SIZE=0 to compare with irexec at f32 tolerance")


def has_compressed_weights(model: Model) -> bool:
    """Whether a Const of 8 bits or fewer (u8, i4, nf4, f8e4m3, ...) is converted to a float type (a decompression chain)."""
    for lid, op in model.ops.items():
        if not isinstance(op, Convert1) or not op.destination_type.is_real:
            continue
        (src,) = model.graph.inputs_of(lid)[:1] or (None,)
        const = model.ops.get(src[0]) if src is not None else None
        if isinstance(const, Const1) and const.element_type.bits <= 8 and const.element_type.name != "boolean":
            return True
    return False


def looks_like_dynamic_quantization(c: OutputComparison) -> bool:
    """A float output off on a quarter or more of its elements, each by at most a quarter of its
    largest magnitude (an INT4 LLM's logits: 99% of them, by up to 8%), and never by a NaN or an infinity: a rounding spread over the whole
    tensor, as 8-bit activations give, rather than a wrong value somewhere."""
    return (c.status == MISMATCH and c.dtype.startswith(("float", "bfloat")) and c.unfixable == 0
            and c.size > 0 and c.mismatches >= c.size / 4 and c.max_abs_error <= 0.25 * c.magnitude)


def note_dynamic_quantization(report: CompareReport) -> None:
    """Add the hint to the outputs of ``report`` whose mismatch looks like dynamic quantization."""
    for c in report.comparisons:
        if looks_like_dynamic_quantization(c):
            c.note = HINT
