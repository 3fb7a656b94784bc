"""A layer re-run at the precision the other side computed it in (precision.py): its
inputs and weights rounded to that precision, the arithmetic in the reference's type,
so the other side's error is judged against what a correct kernel at that precision
gives rather than against the reference's own precision."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ...ir.records import Layer
from .accuracy import StatedAccuracy, epsilon, scale
from .figures import tensor_figures
from .memory import FIGURE_BYTES_PER_ELEMENT, held_bytes
from .precision import lower_than, numpy_type, rounded
from .reference import ReferenceSide
from .report import Fusion, LayerResult

# ops whose plugin kernels keep an intermediate in the runtime precision, which a re-run on
# rounded inputs cannot reproduce: the attention weights of ScaledDotProductAttention are
# rounded to bf16 / f16 before they multiply the values
ROUNDS_INTERMEDIATES = frozenset({"ScaledDotProductAttention"})


def emulate_layer(ref: ReferenceSide, layer: Layer, port: int, other: np.ndarray, inputs: Sequence[np.ndarray],
                  stated: StatedAccuracy, result: LayerResult, fusion: Fusion | None,
                  deployed: Mapping[str, Fusion] | None = None) -> None:
    """Set ``result.precision`` and ``result.emulated`` when the other side computed
    ``layer`` in a precision lower than the reference's output type."""
    fusion = fusion or result.fusion
    if fusion is None:
        return
    dtype = np.dtype(result.dtype) if result.dtype in np.sctypeDict else None
    if dtype is None or not lower_than(fusion.precision, dtype):
        return
    result.precision = fusion.precision
    outs = ref.replay(layer, rounded(inputs, fusion.precision))
    if outs is None or port >= len(outs):
        return
    # the run that gave ``other`` may store the output in another precision than the deployed graph
    stores = [s for s in fusion.output_precision.split(",") if s]
    stored = stores[min(port, len(stores) - 1)] if stores else fusion.precision
    low = numpy_type(stored)
    expected = np.asarray(outs[port])
    if low is not None and expected.dtype.kind == "f":
        expected = expected.astype(low).astype(expected.dtype)  # stored as the plugin stores it
    if np.shape(other) != expected.shape:
        result.emulated, result.excess = tensor_figures(other, expected, stated), float("inf")
        return
    with ref.memory.temporaries(2 * FIGURE_BYTES_PER_ELEMENT * int(expected.size) + held_bytes(outs),
                                f"comparing {layer.display} layer {layer.name!r} re-run in {fusion.precision}"):
        figures = tensor_figures(other, expected, stated)
        allowed = _allowance(expected, stated, low,
                             numpy_type(fusion.precision) if _inner(layer, result, deployed) else None)
        with np.errstate(invalid="ignore", divide="ignore"):
            diff = np.abs(np.asarray(other, np.float64) - expected.astype(np.float64)).reshape(-1)
            ratio = np.where(diff == 0, 0.0, diff / allowed.reshape(-1))
        ratio[np.isnan(ratio)] = np.inf
    figures.beyond = int(np.count_nonzero(ratio > 1.0))
    result.emulated, result.excess = figures, float(ratio.max()) if ratio.size else 0.0


def _inner(layer: Layer, result: LayerResult, deployed: Mapping[str, Fusion] | None) -> bool:
    """Whether the kernel computing ``layer`` keeps values the re-run cannot see at their
    precision: an op that rounds an intermediate, or a layer the deployed graph fuses with
    others or whose inputs no runtime node of its own computes (a RoPE kernel computing the
    products its Add sums): those inputs were never rounded there, while the exposed ones
    the re-run gets were."""
    if layer.type in ROUNDS_INTERMEDIATES or (result.fusion is not None and result.fusion.fused):
        return True
    return deployed is not None and any(name not in deployed for name in result.inputs)


def _allowance(expected: np.ndarray, stated: StatedAccuracy, stored: np.dtype | None, inner: np.dtype | None
               ) -> np.ndarray:
    """Per element, what a correct kernel at the runtime precision may differ by from the
    re-run: the op's stated accuracy, plus one unit in the last place of the element's own
    value in the precision the output is stored in (a rounding decided the other way).
    ``inner``: the kernel keeps an intermediate in that precision (ROUNDS_INTERMEDIATES), so
    the op's stated accuracy counts in its units."""
    e = expected.astype(np.float64)
    finite = np.where(np.isfinite(e), e, 0.0)
    allowed = stated.units * epsilon(inner if inner is not None else expected.dtype) * scale(finite, stated)
    if stored is not None:
        allowed = allowed + np.abs(np.spacing(finite.astype(stored)).astype(np.float64))
    return np.maximum(allowed, np.finfo(np.float64).tiny)
