"""Ops x edge inputs: one layer of every registered op on inputs of unusual
shapes (0-d, empty, one element), every element type and extreme values
(NaN, infinities, the type's limits, u64 above 2^63), as Parameters or Consts.
The property: a model that ``irexec check`` finds clean never ends its run
in an internal error (a coded error is fine: data may break a run-time rule)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from irexec.base import dtypes
from irexec.base.errors import IRExecError
from irexec.model.builder import IRBuilder
from irexec.ops.framework.registry import all_ops

# Attributes an op cannot do without, with plain values; the rest keep their defaults.
REQUIRED: dict[str, dict[str, Any]] = {
    "AvgPool": {"strides": "1", "kernel": "1", "exclude-pad": "false"},
    "MaxPool": {"strides": "1", "kernel": "1"},
    "BatchNormInference": {"epsilon": "0.001"},
    "BinaryConvolution": {"strides": "1", "dilations": "1", "pads_begin": "0", "pads_end": "0"},
    "Clamp": {"min": "-1", "max": "1"},
    "Col2Im": {"strides": "1,1", "dilations": "1,1", "pads_begin": "0,0", "pads_end": "0,0"},
    "Concat": {"axis": "0"},
    "Convert": {"destination_type": "i32"},
    "Convolution": {"strides": "1", "dilations": "1", "pads_begin": "0", "pads_end": "0"},
    "GroupConvolution": {"strides": "1", "dilations": "1", "pads_begin": "0", "pads_end": "0"},
    "ConvolutionBackpropData": {"strides": "1", "dilations": "1", "pads_begin": "0", "pads_end": "0"},
    "GroupConvolutionBackpropData": {"strides": "1", "dilations": "1", "pads_begin": "0", "pads_end": "0"},
    "DeformableConvolution": {"group": "1", "deformable_group": "1"},
    "Einsum": {"equation": "...->"},  # one input (the fewest), any rank: a sum over every dim
    "Elu": {"alpha": "1"},
    "Eye": {"output_type": "f32"},
    "ExtractImagePatches": {"sizes": "1,1", "strides": "1,1", "rates": "1,1", "auto_pad": "valid"},
    "FakeQuantize": {"levels": "256"},
    "GatherElements": {"axis": "0"},
    "GRN": {"bias": "1"},
    "GroupNormalization": {"num_groups": "1", "epsilon": "0.001"},
    "GRUCell": {"hidden_size": "1"}, "GRUSequence": {"hidden_size": "1"},
    "LSTMCell": {"hidden_size": "1"}, "LSTMSequence": {"hidden_size": "1"},
    "RNNCell": {"hidden_size": "1"}, "RNNSequence": {"hidden_size": "1"},
    "Interpolate": {"axes": "0"},
    "LRN": {"alpha": "1", "beta": "0.5", "bias": "1", "size": "1"},
    "MVN": {"eps": "0.001", "normalize_variance": "true"},
    "NormalizeL2": {"eps": "0.001"},
    "OneHot": {"axis": "-1"},
    "Range": {"output_type": "i64"},
    "Reshape": {"special_zero": "false"},
    "PriorBox": {"offset": "0.5", "min_size": "2"}, "PriorBoxClustered": {"offset": "0.5"},
    "RegionYolo": {"coords": "4", "classes": "1", "num": "1", "do_softmax": "true"}, "ReorgYolo": {"stride": "1"},
    "DetectionOutput": {"num_classes": "2", "keep_top_k": "1", "nms_threshold": "0.5", "normalized": "true"},
    "ROIPooling": {"pooled_h": "1", "pooled_w": "1", "spatial_scale": "1"},
    "PSROIPooling": {"output_dim": "1", "group_size": "1", "spatial_scale": "1"},
    "Proposal": {"base_size": "1", "pre_nms_topn": "1", "post_nms_topn": "1", "nms_thresh": "0.5", "feat_stride": "1",
                 "min_size": "1", "ratio": "1", "scale": "1"},
    "DeformablePSROIPooling": {"output_dim": "1", "spatial_scale": "1"},
    "GenerateProposals": {"min_size": "1", "nms_threshold": "0.5", "pre_nms_count": "1", "post_nms_count": "1"},
    "ROIAlignRotated": {"pooled_h": "1", "pooled_w": "1", "sampling_ratio": "1", "spatial_scale": "1"},
    "ROIAlign": {"pooled_h": "1", "pooled_w": "1", "sampling_ratio": "1", "spatial_scale": "1"},
    "ScaledDotProductAttention": {"causal": "false"},
    "Split": {"num_splits": "1"},
    "STFT": {"transpose_frames": "false"},
    "StridedSlice": {"begin_mask": "0", "end_mask": "0"},
    "StringToHashBucket": {"num_buckets": "3"},
    "TopK": {"axis": "0", "k": "1"},
}
# Not one layer on plain inputs: graph ends, bodies, state, randomness.
SKIPPED = {"Parameter", "Const", "Result", "If", "Loop", "TensorIterator", "ReadValue", "Assign", "RandomUniform", "Multinomial"}

OPS = sorted((c for c in all_ops() if c.type not in SKIPPED), key=lambda c: (c.type, c.version))
TYPES = sorted((et for et in dtypes.ELEMENT_TYPES.values()
                if et.supported and et.dtype is not None and et.name not in ("dynamic", "string")),
               key=lambda et: et.name)
SHAPES: list[tuple[int, ...]] = [(), (0,), (1,), (3,), (2, 0), (2, 3), (1, 2, 3), (2, 1, 2, 2)]


def extremes(dtype: np.dtype) -> list[Any]:
    """Values at the edges of an element type."""
    if dtype == np.bool_:
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [0, 1, 2, info.max, info.min, info.max - 1] + ([-1] if dtype.kind == "i" else [])
    try:  # ml_dtypes knows its own types (bf16, f8, f4, int4...) and NumPy's
        info = ml_dtypes.finfo(dtype)
    except (TypeError, ValueError):
        try:
            info = ml_dtypes.iinfo(dtype)
            return [0, 1, int(info.max), int(info.min)]
        except (TypeError, ValueError):
            info = None
    big = float(info.max) if info is not None else 3.0e38
    return [0.0, -0.0, 1.0, -1.5, float("nan"), float("inf"), float("-inf"), big, -big, 1e-45, 0.5]


@dataclass(frozen=True)
class Case:
    op: type
    inputs: tuple[tuple[str, tuple[int, ...], bool, bytes], ...]  # (element type, shape, as Const, raw values)

    def describe(self) -> str:
        parts = [f"{'const' if c else 'param'} {et}{list(s)}={np.frombuffer(raw, dtypes.get(et).dtype).tolist()[:6]}"
                 for et, s, c, raw in self.inputs]
        return f"{self.op.type}-{self.op.version}({', '.join(parts)})"


@st.composite
def cases(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(OPS))
    fewest, most = op.input_range()
    count = draw(st.integers(fewest, min(most if most is not None else fewest + 2, fewest + 3)))
    first_type = draw(st.sampled_from(TYPES))
    inputs = []
    for _ in range(count):
        et = first_type if draw(st.booleans()) else draw(st.sampled_from(TYPES))
        shape = draw(st.sampled_from(SHAPES))
        pool = extremes(et.dtype)
        n = int(np.prod(shape))
        values = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        with np.errstate(all="ignore"):
            arr = np.array(values, dtype=np.float64 if et.dtype.kind in "fV" else object).astype(et.dtype).reshape(shape)
        inputs.append((et.name, shape, draw(st.booleans()), arr.tobytes()))
    return Case(op, tuple(inputs))


def build(case: Case, directory: Path) -> tuple[Path, dict[str, np.ndarray]] | None:
    """The one-layer model, or None when its builder's own inference refuses it."""
    b = IRBuilder()
    feeds: dict[str, np.ndarray] = {}
    outs = []
    for k, (et, shape, const, raw) in enumerate(case.inputs):
        arr = np.frombuffer(raw, dtypes.get(et).dtype).reshape(shape).copy()
        if const:
            outs.append(b.const(arr, et))
        else:
            outs.append(b.parameter(f"in{k}", list(shape), et))
            feeds[f"in{k}"] = arr
    try:
        version = "extension" if case.op.extension else f"opset{case.op.since_opset}"
        y = b.layer(case.op.type, version, outs, REQUIRED.get(case.op.type, {}))
    except IRExecError:
        return None
    for o in b.outputs_of(y):
        b.result(o)
    xml, _ = b.write(directory / "model.xml")
    return Path(xml), feeds




def companion_case(op: type, et: Any, shape: tuple[int, ...], const: bool, index: int = 0) -> Case | None:
    """The first input of type ``et`` (its extremes) and the op's other fewest inputs
    i64 scalars holding ``index``: data of every type, low-bit ones included, with
    axes, indices or sizes of the type such inputs take.  None for a one-input op."""
    fewest = op.input_range()[0]
    if fewest < 2:
        return None
    first = uniform_case(op, et, shape, const).inputs[0]
    rest = [("i64", (), True, np.int64(index).tobytes()) for _ in range(fewest - 1)]
    return Case(op, (first, *rest))


def uniform_case(op: type, et: Any, shape: tuple[int, ...], const: bool) -> Case:
    """The op's fewest inputs, all of one element type and shape, cycling through its extremes."""
    pool = extremes(et.dtype)
    size = int(np.prod(shape))
    inputs = []
    for k in range(op.input_range()[0]):
        values = [pool[(k + i) % len(pool)] for i in range(size)]
        with np.errstate(all="ignore"):
            arr = np.array(values, dtype=np.float64 if et.dtype.kind in "fV" else object).astype(et.dtype).reshape(shape)
        inputs.append((et.name, shape, const, arr.tobytes()))
    return Case(op, tuple(inputs))
