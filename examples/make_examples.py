"""Write the shipped examples: one directory per example with model.xml,
model.bin, inputs.npz and expected.npz.

    python examples/make_examples.py [OUTPUT_DIR]   # default: next to this file

The small examples are the ones printed in the Roll-7 and Gather-8 specs, and
their expected outputs are typed in from the spec text.  The big ones have the
shapes of the specs' XML examples; their expected outputs are computed here
with plain NumPy (np.roll, np.take, slicing), never with irexec.  Data enter
as Parameters; shift, axes, indices and seq_lengths are Consts in model.bin.
Everything is deterministic, so re-running reproduces the same files.
"""

from __future__ import annotations

import io
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from irexec.model.builder import IRBuilder

SEED = 20210707
OUTPUT = "output"

# the 4x3 matrix of the Roll-7 spec examples
ROLL_DATA = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], np.int32)

Built = tuple[IRBuilder, dict[str, np.ndarray], np.ndarray]  # model, inputs, expected output


@dataclass
class Example:
    name: str
    description: str
    build: Callable[[], Built]


# ------------------------------------------------------------------ helpers

def _roll_model(data: np.ndarray, shift: np.ndarray, axes: np.ndarray, expected: np.ndarray) -> IRBuilder:
    b = IRBuilder(name="roll")
    x = b.parameter("data", list(data.shape), _etype(data))
    y = b.layer("Roll", "opset7", [x, b.const(shift, name="shift"), b.const(axes, name="axes")],
                name="roll", outputs=[(expected.shape, _etype(expected))], names=[OUTPUT])
    b.result(y, name="result")
    return b


def _gather_model(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int, expected: np.ndarray) -> IRBuilder:
    b = IRBuilder(name="gather")
    x = b.parameter("data", list(data.shape), _etype(data))
    y = b.layer("Gather", "opset8",
                [x, b.const(indices, name="indices"), b.const(np.array(axis, np.int64), name="axis")],
                {"batch_dims": batch_dims}, name="gather", outputs=[(expected.shape, _etype(expected))], names=[OUTPUT])
    b.result(y, name="result")
    return b


def _etype(arr: np.ndarray) -> str:
    return {"int8": "i8", "uint8": "u8", "int32": "i32", "int64": "i64", "float32": "f32"}[arr.dtype.name]


# ------------------------------------------------------------ spec text examples

def _roll_spec(shift: Any, axes: Any, expected: list[list[int]]) -> Callable[[], Built]:
    def build() -> Built:
        out = np.array(expected, np.int32)
        b = _roll_model(ROLL_DATA, np.array(shift, np.int64), np.array(axes, np.int64), out)
        return b, {"data": ROLL_DATA}, out

    return build


def _gather_spec(data: Any, indices: Any, axis: int, batch_dims: int, expected: Any) -> Callable[[], Built]:
    def build() -> Built:
        d = np.array(data, np.int32)
        out = np.array(expected, np.int32)
        b = _gather_model(d, np.array(indices, np.int32), axis, batch_dims, out)
        return b, {"data": d}, out

    return build


GATHER_4_DATA = [[[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16], [17, 18, 19, 20]]],
                 [[[21, 22, 23, 24], [25, 26, 27, 28], [29, 30, 31, 32], [33, 34, 35, 36], [37, 38, 39, 40]]]]
GATHER_4_OUT = [[[[5, 6, 7, 8], [9, 10, 11, 12], [17, 18, 19, 20]]],
                [[[37, 38, 39, 40], [33, 34, 35, 36], [29, 30, 31, 32]]]]

# ---------------------------------------------------- the specs' XML examples

def _roll_xml_1() -> Built:
    rng = np.random.default_rng(SEED)
    data = rng.integers(0, 256, (3, 10, 100, 200), dtype=np.uint8)
    shift, axes = np.array([37, -5], np.int64), np.array([2, 3], np.int64)
    expected = np.roll(data, tuple(shift), axis=tuple(axes))
    return _roll_model(data, shift, axes, expected), {"data": data}, expected


def _roll_xml_2() -> Built:
    rng = np.random.default_rng(SEED + 1)
    data = rng.integers(0, 256, (3, 10, 100, 200), dtype=np.uint8)
    # a one-element shift with two axes: every listed axis rolls by it
    shift, axes = np.array([3], np.int64), np.array([1, -1], np.int64)
    expected = np.roll(np.roll(data, 3, axis=1), 3, axis=3)
    return _roll_model(data, shift, axes, expected), {"data": data}, expected


def _gather_xml() -> Built:
    rng = np.random.default_rng(SEED + 2)
    data = rng.standard_normal((2, 64, 128)).astype(np.float32)
    indices = rng.integers(-64, 64, (2, 32, 21)).astype(np.int32)
    # batch_dims=1: batch b of the output gathers rows of batch b of the data
    expected = np.stack([np.take(data[bi], indices[bi], axis=0) for bi in range(2)])
    return _gather_model(data, indices, 1, 1, expected), {"data": data}, expected


def _reverse_sequence_xml() -> Built:
    rng = np.random.default_rng(SEED + 3)
    data = rng.integers(-128, 128, (4, 10, 100, 200), dtype=np.int8)
    lengths = np.array([2, 4, 8, 10], np.int32)
    expected = data.copy()
    for bi, n in enumerate(lengths):
        expected[bi, :n] = data[bi, :n][::-1]
    b = IRBuilder(name="reverse_sequence")
    x = b.parameter("data", list(data.shape), "i8")
    y = b.layer("ReverseSequence", "opset1", [x, b.const(lengths, name="seq_lengths")], {"batch_axis": 0, "seq_axis": 1},
                name="reverse_sequence", outputs=[(expected.shape, "i8")], names=[OUTPUT])
    b.result(y, name="result")
    return b, {"data": data}, expected


def _shape_subgraph() -> Built:
    rng = np.random.default_rng(SEED + 4)
    data = rng.standard_normal((2, 3, 64)).astype(np.float32)
    # the split-heads reshape of a transformer: [batch, seq, 64] -> [batch, seq, 4, 16], with batch and
    # seq read from the input at run time, so the check still knows the output is [?,?,4,16]
    b = IRBuilder(name="shape_subgraph")
    x = b.parameter("data", "?,?,64", "f32")
    shape = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}, name="shape_of")
    lead = b.layer("Gather", "opset8", [shape, b.const(np.array([0, 1], np.int64), name="lead_dims"),
                                         b.const(np.array(0, np.int64), name="axis")], {"batch_dims": 0}, name="gather")
    target = b.layer("Concat", "opset1", [lead, b.const(np.array([4, 16], np.int64), name="heads")], {"axis": 0},
                     name="concat")
    y = b.layer("Reshape", "opset1", [x, target], {"special_zero": False}, name="reshape", names=[OUTPUT])
    b.result(y, name="result")
    return b, {"data": data}, data.reshape(2, 3, 4, 16)


def _strided_slice_masks() -> Built:
    rng = np.random.default_rng(SEED + 5)
    data = rng.standard_normal((2, 3, 8, 6)).astype(np.float32)
    # x[1:, ..., None, ::-2]: begin_mask ignores nothing on axis 0, the ellipsis spans axes 1-2,
    # a new axis of 1 is inserted, and the last axis runs backwards from its end (begin_mask)
    begin, end, stride = (np.array(v, np.int64) for v in ([1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, -2]))
    masks = {"begin_mask": "0,0,0,1", "end_mask": "1,0,0,1", "new_axis_mask": "0,0,1,0",
             "shrink_axis_mask": "0,0,0,0", "ellipsis_mask": "0,1,0,0"}
    expected = np.ascontiguousarray(data[1:, ..., None, ::-2])
    b = IRBuilder(name="strided_slice")
    x = b.parameter("data", list(data.shape), "f32")
    y = b.layer("StridedSlice", "opset1", [x, b.const(begin, name="begin"), b.const(end, name="end"),
                                           b.const(stride, name="stride")], masks,
                name="strided_slice", outputs=[(expected.shape, "f32")], names=[OUTPUT])
    b.result(y, name="result")
    return b, {"data": data}, expected


def _scatter_nd_update() -> Built:
    rng = np.random.default_rng(SEED + 6)
    data = rng.integers(-1000, 1000, (4, 4, 4), dtype=np.int32)
    # two whole [4] rows replaced, addressed by (i, j) tuples; the tuple (-1, 0) counts from the end
    indices = np.array([[0, 1], [-1, 0]], np.int64)
    updates = rng.integers(-1000, 1000, (2, 4), dtype=np.int32)
    expected = data.copy()
    expected[0, 1] = updates[0]
    expected[3, 0] = updates[1]
    b = IRBuilder(name="scatter_nd_update")
    x = b.parameter("data", list(data.shape), "i32")
    u = b.parameter("updates", list(updates.shape), "i32")
    y = b.layer("ScatterNDUpdate", "opset4", [x, b.const(indices, name="indices"), u],
                name="scatter_nd_update", outputs=[(expected.shape, "i32")], names=[OUTPUT])
    b.result(y, name="result")
    return b, {"data": data, "updates": updates}, expected


EXAMPLES = [
    Example("roll-example-1", "Roll-7 spec example 1: shift = 1, axes = 0 on the 4x3 matrix",
            _roll_spec(1, 0, [[10, 11, 12], [1, 2, 3], [4, 5, 6], [7, 8, 9]])),
    Example("roll-example-2", "Roll-7 spec example 2: shift = [-1, 2], axes = [0, 1]",
            _roll_spec([-1, 2], [0, 1], [[5, 6, 4], [8, 9, 7], [11, 12, 10], [2, 3, 1]])),
    Example("roll-example-3", "Roll-7 spec example 3: shift = [1, 2, 1], axes = [0, 1, 0] (repeated axis: shifts add up)",
            _roll_spec([1, 2, 1], [0, 1, 0], [[8, 9, 7], [11, 12, 10], [2, 3, 1], [5, 6, 4]])),
    Example("gather-example-1", "Gather-8 spec example 1: default batch_dims, axis 0",
            _gather_spec([1, 2, 3, 4, 5], [0, 0, 4], 0, 0, [1, 1, 5])),
    Example("gather-example-2", "Gather-8 spec example 2: batch_dims = 1, axis 1",
            _gather_spec([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], [[0, 0, 4], [4, 0, 0]], 1, 1, [[1, 1, 5], [10, 6, 6]])),
    Example("gather-example-3", "Gather-8 spec example 3: batch_dims = 2, axis 2",
            _gather_spec([[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], [[11, 12, 13, 14, 15], [16, 17, 18, 19, 20]]],
                         [[[0, 0, 4], [4, 0, 0]], [[1, 2, 4], [4, 3, 2]]], 2, 2,
                         [[[1, 1, 5], [10, 6, 6]], [[12, 13, 15], [20, 19, 18]]])),
    Example("gather-example-4", "Gather-8 spec example 4: axis 2 > batch_dims 1",
            _gather_spec(GATHER_4_DATA, [[1, 2, 4], [4, 3, 2]], 2, 1, GATHER_4_OUT)),
    Example("gather-example-5", "Gather-8 spec example 5: negative batch_dims = -1 (normalised to 1)",
            _gather_spec([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], [[0, 0, 4], [4, 0, 0]], 1, -1, [[1, 1, 5], [10, 6, 6]])),
    Example("gather-example-6", "Gather-8 spec example 6: negative indices",
            _gather_spec([1, 2, 3, 4, 5], [0, -2, -1], 0, 0, [1, 4, 5])),
    Example("gather-example-7", "Gather-8 spec example 7: indices out of range give zeros",
            _gather_spec([1, 2, 3, 4, 5], [3, 10, -20], 0, 0, [4, 0, 0])),
    Example("roll-spec-xml-1", "Roll-7 spec XML example 1: u8 3x10x100x200, 1-D shift [37, -5] over axes [2, 3]", _roll_xml_1),
    Example("roll-spec-xml-2", "Roll-7 spec XML example 2: u8 3x10x100x200, one-element shift [3] over axes [1, -1]",
            _roll_xml_2),
    Example("gather-spec-xml", "Gather-8 spec XML example: f32 2x64x128, i32 indices 2x32x21, axis 1, batch_dims 1",
            _gather_xml),
    Example("reverse-sequence-spec-xml",
            "ReverseSequence-1 spec XML example: i8 4x10x100x200, seq_lengths [2, 4, 8, 10], batch_axis 0, seq_axis 1",
            _reverse_sequence_xml),
    Example("shape-subgraph", "ShapeOf-3 -> Gather-8 -> Concat-1 -> Reshape-1 on a [?,?,64] input: checked as [?,?,4,16]",
            _shape_subgraph),
    Example("strided-slice-masks", "StridedSlice-1: x[1:, ..., None, ::-2] with begin, end, ellipsis and new-axis masks",
            _strided_slice_masks),
    Example("scatter-nd-update", "ScatterNDUpdate-3 (opset4): two rows of an i32 4x4x4 tensor replaced, one index negative",
            _scatter_nd_update),
]


# ------------------------------------------------------------------ writing

def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An .npz that np.load reads, with fixed timestamps so that the bytes
    depend only on the arrays (np.savez stamps the current time)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for key, value in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(value), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())


def write_example(example: Example, root: Path) -> Path:
    builder, inputs, expected = example.build()
    directory = root / example.name
    directory.mkdir(parents=True, exist_ok=True)
    builder.write(directory / "model.xml")
    write_npz(directory / "inputs.npz", inputs)
    write_npz(directory / "expected.npz", {OUTPUT: expected})
    return directory


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent
    for example in EXAMPLES:
        print(write_example(example, root))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
