"""ReverseSequence-1: kernel against a slow reference, shape inference over
partial shapes, and every validation rule through irexec.check / irexec.run /
the CLI."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irexec
from conformance.diagnostic_helpers import only_error, xml_line
from conformance.movement.references import element_reverse_sequence
from conformance.strategies import EXECUTABLE, any_bits
from irexec.base import dtypes
from irexec.base.errors import OpError
from irexec.base.shapes import parse_partial_shape
from irexec.model.builder import IRBuilder
from irexec.ops.framework.base import TensorInfo
from irexec.ops.framework.registry import NEWEST_OPSET, resolve
from irexec.ops.movement import reverse_sequence as rs
from irexec.ops.movement import roll as roll_module
from irexec.ops.movement.reverse_sequence import ReverseSequence1


def op(batch_axis: int = 0, seq_axis: int = 1) -> ReverseSequence1:
    return ReverseSequence1(None, {"batch_axis": batch_axis, "seq_axis": seq_axis})


def reverse(data, lengths, batch_axis=0, seq_axis=1) -> np.ndarray:
    return op(batch_axis, seq_axis).run(np.asarray(data), np.asarray(lengths))[0]


# ------------------------------------------------------------- examples


def test_spec_example_batch_0_seq_1():
    data = np.arange(4 * 10 * 2, dtype=np.float32).reshape(4, 10, 2)
    got = reverse(data, np.array([2, 4, 8, 10], np.int32))
    for b, n in enumerate([2, 4, 8, 10]):
        assert got[b, :n].tolist() == data[b, :n][::-1].tolist()
        assert got[b, n:].tolist() == data[b, n:].tolist()


# OpenVINO's reference tests are cases of the ReverseSequence table (tests/conformance/movement/test_reverse_sequence.py).


def test_negative_axes_match_positive_ones():
    data = np.arange(2 * 3 * 4 * 2, dtype=np.uint16).reshape(2, 3, 4, 2)
    lengths = np.array([1, 2, 1, 2], np.int32)
    assert np.array_equal(reverse(data, lengths, -2, -3), reverse(data, lengths, 2, 1))


def test_zero_length_reverses_nothing_and_floats_truncate():
    data = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert reverse(data, np.array([0, 1, 0], np.int32)).tolist() == data.tolist()
    got = reverse(data, np.array([1.5, 2.7, 4.9], np.float32))  # as lengths 1, 2, 4
    assert got.tolist() == [[0, 1, 2, 3], [5, 4, 6, 7], [11, 10, 9, 8]]
    got = reverse(data, np.array([-0.5, 0.0, 3.0], ml_dtypes.bfloat16))  # -0.5 truncates to 0
    assert got.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [10, 9, 8, 11]]


def test_integers_are_exact_beyond_float_precision():
    data = np.array([[2**53 + 1, -(2**63), 2**63 - 1]], np.int64)
    assert reverse(data, np.array([3], np.uint64)).tolist() == [[2**63 - 1, -(2**63), 2**53 + 1]]


@pytest.mark.parametrize("shape, batch_axis, seq_axis", [((0, 3), 0, 1), ((3, 0), 0, 1), ((2, 0, 3), 2, 0)])
def test_zero_size_data(shape, batch_axis, seq_axis):
    data = np.zeros(shape, np.float32)
    got = reverse(data, np.zeros(shape[batch_axis], np.int32), batch_axis, seq_axis)
    assert got.shape == shape


# Size thresholds of the kernel, set so that small tensors take every path.
PATHS = {
    "default": {},
    "block-copies": {"_MIN_LINE_BYTES": 0, "_SMALL_BYTES": -1},
    "grouped-by-length": {"_MIN_LINE_BYTES": 0, "_MAX_RUNS": 0, "_SMALL_BYTES": -1},
    "plane-gather": {"_MIN_LINE_BYTES": 1 << 30},
    "plane-gather-in-chunks": {"_MIN_LINE_BYTES": 1 << 30, "_PLANE_CHUNK": 1},
}


def thresholds(mp: pytest.MonkeyPatch, path: str) -> None:
    for name, value in PATHS[path].items():
        mp.setattr(roll_module if name == "_SMALL_BYTES" else rs, name, value)


@pytest.mark.parametrize("path", list(PATHS))
def test_every_kernel_path_matches_reference(monkeypatch, path):
    thresholds(monkeypatch, path)
    rng = np.random.default_rng(3)
    data = rng.integers(0, 1 << 15, (3, 4, 5, 6)).astype(np.int16)
    for batch, seq in itertools.permutations(range(4), 2):
        lengths = rng.integers(0, data.shape[seq] + 1, data.shape[batch])
        want = element_reverse_sequence(data, lengths.tolist(), batch, seq)
        assert reverse(data, lengths, batch, seq).tobytes() == want.tobytes(), (batch, seq)
        view = np.asfortranarray(data)  # not C-contiguous
        assert reverse(view, lengths, batch, seq).tobytes() == want.tobytes(), (batch, seq, "F")


# ----------------------------------------------------------- property tests

NUMERIC = [t for t in EXECUTABLE if t.is_numeric]


@st.composite
def reverse_cases(draw):
    rank = draw(st.integers(2, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    etype = draw(st.sampled_from(EXECUTABLE))
    data = draw(any_bits(shape, etype))
    batch, seq = draw(st.lists(st.integers(0, rank - 1), min_size=2, max_size=2, unique=True))
    batch -= rank * draw(st.integers(0, 1))  # negative forms too
    seq -= rank * draw(st.integers(0, 1))
    len_type = draw(st.sampled_from(NUMERIC))
    dim = shape[seq]
    whole = draw(st.lists(st.integers(0, dim), min_size=shape[batch], max_size=shape[batch]))
    if len_type.is_real:
        fraction = draw(st.sampled_from([0.0, 0.25, 0.5, 0.75]))
        lengths = np.array([w + fraction if w < dim else w for w in whole], len_type.dtype)
    else:
        lengths = np.array(whole, len_type.dtype)
    return data, lengths, batch, seq


@pytest.mark.parametrize("path", list(PATHS))
@settings(max_examples=60, deadline=None)
@given(case=reverse_cases())
def test_kernel_matches_slow_reference(path, case):
    data, lengths, batch, seq = case
    before = data.tobytes()
    with pytest.MonkeyPatch.context() as mp:
        thresholds(mp, path)
        got = op(batch, seq).run(data, lengths)[0]
    want = element_reverse_sequence(data, lengths.astype(np.float64).tolist(), batch, seq)
    assert got.dtype == data.dtype and got.shape == data.shape
    assert got.tobytes() == want.tobytes()
    assert data.tobytes() == before, "input mutated"


# ------------------------------------------------------------ shape inference


def info(shape: str, etype: str = "f32") -> TensorInfo:
    return TensorInfo(parse_partial_shape(shape), dtypes.get(etype))


def infer(data: str, seq: str, batch_axis: int = 0, seq_axis: int = 1, etype: str = "i32", data_type: str = "f32"):
    (out,) = op(batch_axis, seq_axis).inference([info(data, data_type), info(seq, etype)]).outputs
    return out


def test_resolves_in_every_opset():
    assert resolve("ReverseSequence", "opset1") is ReverseSequence1
    assert resolve("reversesequence", f"opset{NEWEST_OPSET}") is ReverseSequence1


def test_default_attributes():
    out = infer("4,3,2", "4")
    assert str(out.shape) == "[4,3,2]" and out.etype.name == "f32"


def test_negative_attribute_axes():
    assert str(infer("1,2,3,4,5", "3", batch_axis=-3, seq_axis=-2).shape) == "[1,2,3,4,5]"


@pytest.mark.parametrize("data_type", ["u8", "u16", "u32", "i8", "i16", "i32", "i64", "f16", "f32", "boolean", "bf16"])
def test_any_data_type(data_type):
    assert infer("4,3,2", "4", data_type=data_type).etype.name == data_type


@pytest.mark.parametrize("etype", ["i8", "u64", "f16", "bf16", "f32", "f64"])
def test_numeric_seq_lengths_accepted(etype):
    assert str(infer("4,3", "4", etype=etype).shape) == "[4,3]"


def test_intervals_merge_with_seq_lengths():
    assert str(infer("2..5,4,1..3", "3").shape) == "[3,4,1..3]"
    assert str(infer("2..5,4,1..3", "3..6", batch_axis=-3, seq_axis=-1).shape) == "[3..5,4,1..3]"


def test_dynamic_ranks_and_dims():
    assert str(infer("...", "3", batch_axis=202, seq_axis=909).shape) == "[...]"  # nothing to check yet
    assert str(infer("2,4,6,8", "...").shape) == "[2,4,6,8]"
    assert str(infer("?,?,?,?", "3", batch_axis=2).shape) == "[?,?,3,?]"
    assert str(infer("...", "...", batch_axis=-1, seq_axis=0).shape) == "[...]"


@pytest.mark.parametrize(
    "data, seq, batch_axis, seq_axis, etype, code, words",
    [
        ("4,3", "4", 0, 1, "boolean", "bad-input-type", "seq_lengths must have a numeric element type, got boolean"),
        ("", "4", 0, 1, "i32", "bad-input-rank", "data must have rank 2 or more, got rank 0"),
        ("4", "4", 0, 1, "i32", "bad-input-rank", "data must have rank 2 or more, got rank 1 (shape [4])"),
        ("4,3", "", 0, 1, "i32", "bad-input-rank", "seq_lengths must be 1-D, got rank 0"),
        ("4,3", "4,1", 0, 1, "i32", "bad-input-rank", "seq_lengths must be 1-D, got rank 2 (shape [4,1])"),
        ("4,3", "1,1,4", 0, 1, "i32", "bad-input-rank", "got rank 3"),
        ("4,3,2", "4", 3, 1, "i32", "axis-out-of-range", "batch_axis 3 is out of range [-3, 2] for rank 3"),
        ("4,3,2", "4", 0, 3, "i32", "axis-out-of-range", "seq_axis 3 is out of range [-3, 2] for rank 3"),
        ("?,?,?,?", "3", 4, 1, "i32", "axis-out-of-range", "batch_axis 4 is out of range [-4, 3] for rank 4"),
        ("?,?,?,?", "3", 0, 4, "i32", "axis-out-of-range", "seq_axis 4 is out of range"),
        ("4,3,2", "3", 0, 1, "i32", "incompatible-inputs", "seq_lengths has 3 elements but the batch axis (axis 0) of the data has 4"),
        ("?,?,4,?", "3", 2, 1, "i32", "incompatible-inputs", "seq_lengths has 3 elements but the batch axis (axis 2) of the data has 4"),
        ("2..3,5", "4..", 0, 1, "i32", "incompatible-inputs", "has 4.. elements but the batch axis (axis 0) of the data has 2..3"),
        ("4,3,2", "4", 0, -3, "i32", "bad-attribute", "batch_axis 0 and seq_axis -3 name the same axis 0"),
        ("...", "4", -2, -2, "i32", "bad-attribute", "seq_axis -2 is negative, which needs a static data rank"),
        ("...", "4", 1, 1, "i32", "bad-attribute", "batch_axis 1 and seq_axis 1 name the same axis"),
    ],
)
def test_infer_rejects(data, seq, batch_axis, seq_axis, etype, code, words):
    with pytest.raises(OpError) as e:
        infer(data, seq, batch_axis, seq_axis, etype)
    assert e.value.code == code and words in str(e.value)


# ------------------------------------------------ diagnostics through check


def revseq_model(write_ir, data_shape: str, lengths, batch_axis=0, seq_axis=1, data_type="f32") -> tuple[str, int]:
    """data is a Parameter; lengths a Const (array) or a Parameter ((shape, element type))."""
    b = IRBuilder()
    data = b.parameter("data", data_shape, data_type)
    seq = b.const(lengths) if isinstance(lengths, np.ndarray) else b.parameter("seq_lengths", *lengths)
    declared = None if data_shape == "..." else [-1 if "?" in d or ".." in d else int(d)
                                                 for d in data_shape.split(",") if d]
    y = b.layer("ReverseSequence", "opset1", [data, seq], {"batch_axis": batch_axis, "seq_axis": seq_axis},
                outputs=[(declared, data_type)], name="revseq")
    b.result(y)
    return write_ir(b), y.layer


I32 = np.int32


@pytest.mark.parametrize(
    "data_shape, lengths, batch_axis, seq_axis, code, port, words",
    [
        ("4,3", np.ones(4, bool), 0, 1, "bad-input-type", 1, "got boolean"),
        ("4", np.ones(4, I32), 0, 1, "bad-input-rank", 0, "data must have rank 2 or more, got rank 1"),
        ("4,3", np.ones((4, 1), I32), 0, 1, "bad-input-rank", 1, "seq_lengths must be 1-D, got rank 2"),
        ("4,3", ("", "i32"), 0, 1, "bad-input-rank", 1, "seq_lengths must be 1-D, got rank 0"),
        ("4,3,2", np.ones(3, I32), 0, 1, "incompatible-inputs", 1,
         "seq_lengths has 3 elements but the batch axis (axis 0) of the data has 4 (data shape [4,3,2], seq_lengths shape [3])"),
        ("4,3,2", np.ones(4, I32), 3, 1, "axis-out-of-range", None, "batch_axis 3 is out of range [-3, 2] for rank 3"),
        ("4,3,2", np.ones(4, I32), 0, -4, "axis-out-of-range", None, "seq_axis -4 is out of range [-3, 2] for rank 3"),
        ("4,3,2", np.ones(4, I32), -3, 0, "bad-attribute", None, "batch_axis -3 and seq_axis 0 name the same axis 0"),
        ("...", np.ones(4, I32), 0, -1, "bad-attribute", None, "seq_axis -1 is negative, which needs a static data rank"),
    ],
)
def test_check_reports_each_rule(write_ir, data_shape, lengths, batch_axis, seq_axis, code, port, words):
    path, lid = revseq_model(write_ir, data_shape, lengths, batch_axis, seq_axis)
    d = only_error(path)
    assert (d.code, d.layer_id, d.op) == (code, lid, "ReverseSequence-1")
    assert d.port == port and d.line == xml_line(path, lid, port)
    assert words in d.message


def test_check_accepts_negative_axes_and_intervals(write_ir):
    path, _ = revseq_model(write_ir, "2..5,4,1..3", np.ones(3, I32), batch_axis=-3, seq_axis=-2)
    assert irexec.check(path).errors == []


# ------------------------------------------------------------ run-time errors


def runtime_model(write_ir, lengths) -> str:
    path, _ = revseq_model(write_ir, "3,5", lengths)
    assert irexec.check(path).errors == []  # the values are only looked at when running
    return path


@pytest.mark.parametrize("values, words", [([1, 6, 2], "seq_lengths[1] = 6 is outside [0, 5]"),
                                           ([2, 3, -1], "seq_lengths[2] = -1 is outside [0, 5]")])
def test_constant_length_out_of_range_is_bad_value_at_check_and_run(write_ir, values, words):
    """One inference path: the same bad constant gets the same code from check and from run."""
    path, _ = revseq_model(write_ir, "3,5", np.array(values, I32))
    (found,) = irexec.check(path).errors
    assert found.code == "bad-value" and found.port == 1 and words in found.message
    with pytest.raises(OpError) as e:
        irexec.run(path, {"data": np.zeros((3, 5), np.float32)})
    d = e.value.diagnostics[0]
    assert d.code == "bad-value" and d.layer_name == "revseq" and d.port == 1 and d.line == xml_line(path, 2, 1)
    assert words in d.message


def test_runtime_float_length_error_names_the_value(write_ir):
    path = runtime_model(write_ir, ([3], "f32"))
    with pytest.raises(OpError, match=r"seq_lengths\[0\] = 6\.5 is outside \[0, 5\]"):
        irexec.run(path, {"data": np.zeros((3, 5), np.float32), "seq_lengths": np.array([6.5, 1, 1], np.float32)})
    with pytest.raises(OpError, match=r"seq_lengths\[2\] = nan"):
        irexec.run(path, {"data": np.zeros((3, 5), np.float32), "seq_lengths": np.array([1, 1, np.nan], np.float32)})


def test_runtime_length_error_from_the_cli(write_ir, save_npz, run_cli):
    path = runtime_model(write_ir, ([3], "i64"))
    inputs = save_npz(data=np.zeros((3, 5), np.float32), seq_lengths=np.array([1, 9, 2], np.int64))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1
    assert "error[bad-value]" in result.output and "seq_lengths[1] = 9 is outside [0, 5]" in result.output
    assert "Traceback" not in result.output


def test_runtime_batch_mismatch_with_dynamic_shapes(write_ir):
    path, _ = revseq_model(write_ir, "?,5", ([-1], "i32"))
    with pytest.raises(OpError) as e:
        irexec.run(path, {"data": np.zeros((3, 5), np.float32), "seq_lengths": np.array([1, 2], I32)})
    assert e.value.code == "incompatible-inputs" and "seq_lengths has 2 elements but the batch axis" in str(e.value)


def test_run_computes_the_spec_example(write_ir):
    lengths = np.array([2, 4, 8, 10], I32)
    path, _ = revseq_model(write_ir, "4,10,3", lengths)
    data = np.random.default_rng(0).standard_normal((4, 10, 3)).astype(np.float32)
    (out,) = irexec.run(path, {"data": data}).values()
    assert out.tobytes() == element_reverse_sequence(data, lengths.tolist(), 0, 1).tobytes()
