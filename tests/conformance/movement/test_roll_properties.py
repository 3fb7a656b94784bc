"""Roll-7: kernel against a slow reference, shape inference over partial
shapes, and every validation rule through irexec.check / irexec.run / the CLI."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irexec
from conformance.diagnostic_helpers import only_error, xml_line
from conformance.movement.references import element_roll
from conformance.strategies import EXECUTABLE, any_bits
from irexec.base import dtypes
from irexec.base.errors import OpError
from irexec.base.shapes import PartialShape, parse_partial_shape
from irexec.model.builder import IRBuilder, Out
from irexec.ops.framework.base import TensorInfo
from irexec.ops.framework.registry import NEWEST_OPSET, resolve
from irexec.ops.movement import roll as roll_module
from irexec.ops.movement.roll import Roll7
from irexec.system import parallel

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
MATRIX = np.arange(1, 13, dtype=np.int32).reshape(4, 3)


def roll(data, shift, axes) -> np.ndarray:
    return Roll7().run(np.asarray(data), np.asarray(shift), np.asarray(axes))[0]


def same_bits(got: np.ndarray, want_bits: np.ndarray, data: np.ndarray) -> None:
    assert got.dtype == data.dtype and got.shape == data.shape
    assert got.tobytes() == want_bits.tobytes()


# ------------------------------------------------------------- spec examples


# The spec's examples and OpenVINO's reference test are cases of the Roll table
# (tests/conformance/movement/test_roll.py); what follows is what a table cannot say.


def test_one_element_shift_applies_to_every_axis():
    assert roll(MATRIX, [1], [0, 1]).tolist() == roll(MATRIX, [1, 1], [0, 1]).tolist()
    assert roll(MATRIX, 1, [0, 1]).tolist() == np.roll(MATRIX, (1, 1), (0, 1)).tolist()


@pytest.mark.parametrize("shift", [I64_MIN, I64_MAX, I64_MIN + 1, (1 << 40) + 1, -(1 << 62)])
def test_huge_shifts_are_exact_modulo_the_dim(shift):
    got = roll(MATRIX, np.array([shift], np.int64), np.array([0, 1], np.int64))
    assert got.tolist() == np.roll(MATRIX, (shift % 4, shift % 3), (0, 1)).tolist()


def test_repeated_axes_sum_without_int64_overflow():
    # I64_MAX + I64_MAX overflows int64; the exact sum mod 4 is 2.
    got = roll(MATRIX, np.array([I64_MAX, I64_MAX], np.int64), np.array([0, 0], np.int64))
    assert got.tolist() == np.roll(MATRIX, (2 * I64_MAX) % 4, 0).tolist()


def test_empty_shift_and_axes_is_an_identity_copy():
    got = roll(MATRIX, np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert got.tolist() == MATRIX.tolist() and not np.shares_memory(got, MATRIX)


def test_rank_0_data_with_no_axes_is_copied():
    data = np.array(7.5, np.float64)
    got = roll(data, np.zeros(0, np.int32), np.zeros(0, np.int32))
    assert got.shape == () and got.item() == 7.5


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4, 2)])
def test_zero_size_dims_roll_to_themselves(shape):
    data = np.zeros(shape, np.float32)
    got = roll(data, np.array([5, -3], np.int64), np.array([0, -1], np.int64))
    assert got.shape == shape and got.dtype == np.float32


def test_large_tensor_paths_match_numpy():
    rng = np.random.default_rng(5)
    data = rng.integers(-1000, 1000, (3, 5, 40, 33)).astype(np.int16)
    for shift, axes in [([7], [3]), ([30], [3]), ([2, 17], [1, 2]), ([1, 2, 3, 4], [0, 1, 2, 3]), ([9], [2])]:
        want = np.roll(data, shift, axes)
        assert np.array_equal(roll(data, np.array(shift), np.array(axes)), want)
        # a non-contiguous input takes the general path
        view = np.asfortranarray(data)
        assert np.array_equal(roll(view, np.array(shift), np.array(axes)), want)


# ----------------------------------------------------------- property tests


@st.composite
def roll_cases(draw):
    rank = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    etype = draw(st.sampled_from(EXECUTABLE))
    data = draw(any_bits(shape, etype))
    if rank >= 2 and draw(st.booleans()):
        data = data.transpose()  # not C-contiguous
    axes = [] if rank == 0 else draw(st.lists(st.integers(-rank, rank - 1), max_size=4))
    index_type = draw(st.sampled_from([np.int32, np.int64]))
    lo, hi = (I32_MIN, I32_MAX) if index_type is np.int32 else (I64_MIN, I64_MAX)
    one_shift = st.one_of(st.integers(-9, 9), st.integers(lo, hi), st.sampled_from([lo, hi]))
    form = draw(st.sampled_from(["scalar", "one", "per-axis"]))
    if form == "per-axis":
        shift = np.array(draw(st.lists(one_shift, min_size=len(axes), max_size=len(axes))), index_type)
    else:
        shift = np.array(draw(one_shift), index_type)
        shift = shift if form == "scalar" else shift.reshape(1)
    axes_arr = np.array(axes, draw(st.sampled_from([np.int32, np.int64])))
    if len(axes) == 1 and draw(st.booleans()):
        axes_arr = axes_arr.reshape(())  # scalar axes
    return data, shift, axes_arr


# Size thresholds of the kernel, lowered so that tiny tensors take the paths
# big ones do: one shifted copy plus a fix-up, or two block copies per axis.
PATHS = {
    "small": {},
    "shifted-copy": {"_SMALL_BYTES": -1},
    "block-copies": {"_SMALL_BYTES": -1, "_SHORT_ROW_BYTES": 0},
    # cut into parts down to single elements, filled from two threads
    "parts-threaded": {"IREXEC_NUM_THREADS": "2", "_TILED_ROW_BYTES": 1 << 62, "_TILE_BYTES": 1},
    "parts-threaded-shifted-copy": {"IREXEC_NUM_THREADS": "2", "_SMALL_BYTES": -1,
                                    "_TILED_ROW_BYTES": 1 << 62, "_TILE_BYTES": 1},
    "parts-threaded-block-copies": {"IREXEC_NUM_THREADS": "2", "_SMALL_BYTES": -1, "_SHORT_ROW_BYTES": 0,
                                    "_TILED_ROW_BYTES": 1 << 62, "MIN_PARALLEL_BYTES": 0,
                                    "MIN_PIECE_BYTES": 1},
    # long rows: cut by the thread pool's piece size only, no tiles
    "parts-threaded-long-rows": {"IREXEC_NUM_THREADS": "2", "_SMALL_BYTES": -1, "_TILED_ROW_BYTES": 0,
                                 "MIN_PARALLEL_BYTES": 0, "MIN_PIECE_BYTES": 1},
}


def apply_path(mp: pytest.MonkeyPatch, path: str) -> None:
    for name, value in PATHS[path].items():
        if name == parallel.ENV_VAR:
            mp.setenv(name, value)
        else:
            mp.setattr(parallel if hasattr(parallel, name) else roll_module, name, value)


@pytest.mark.parametrize("path", list(PATHS))
@settings(max_examples=80, deadline=None)
@given(case=roll_cases())
def test_kernel_matches_slow_reference(path, case):
    data, shift, axes = case
    before = data.copy()
    with pytest.MonkeyPatch.context() as mp:
        apply_path(mp, path)
        got = Roll7().run(data, shift, axes)[0]
    same_bits(got, element_roll(data, shift.reshape(-1).tolist(), axes.reshape(-1).tolist()), data)
    assert data.tobytes() == before.tobytes(), "input mutated"
    if got.size:
        assert not np.shares_memory(got, data)


# ------------------------------------------------------------ shape inference


def info(shape: str, etype: str = "f32", value=None) -> TensorInfo:
    return TensorInfo(parse_partial_shape(shape), dtypes.get(etype), None if value is None else np.asarray(value))


def infer(data: TensorInfo, shift: TensorInfo, axes: TensorInfo) -> TensorInfo:
    (out,) = Roll7().inference([data, shift, axes]).outputs
    return out


def test_resolves_from_opset7_on():
    assert resolve("Roll", "opset7") is Roll7 and resolve("Roll", f"opset{NEWEST_OPSET}") is Roll7
    assert resolve("Roll", "opset6") is None


@pytest.mark.parametrize("etype", ["f32", "i8", "bf16", "boolean", "u64"])
def test_output_type_and_shape_are_the_data_ones(etype):
    out = infer(info("3,3,4,1,5", etype), info("2", "i32"), info("2", "i64"))
    assert out.etype.name == etype and str(out.shape) == "[3,3,4,1,5]"


@pytest.mark.parametrize("shape", ["?,?", "...", "2..5,..10,4..,?", "1", ""])
def test_partial_shapes_pass_through(shape):
    data = info(shape)
    assert infer(data, info("?", "i32"), info("?", "i64")).shape == data.shape
    assert infer(data, info("...", "i32"), info("...", "i64")).shape == data.shape


def test_constant_axes_in_range_pass():
    assert str(infer(info("1,2,3"), info("3", "i64"), info("3", "i64", [0, 1, -1])).shape) == "[1,2,3]"
    # OpenVINO's roll_axis_scalar_test: scalar shift, runtime axes
    assert infer(info("3,2,5", "i32"), info("", "i32", 5), info("3", "i64")).etype.name == "i32"


def test_constant_shift_axes_and_interval_dims():
    data = info("2..5,..10,4..,?")
    assert infer(data, info("2", "i64", [3, 2]), info("2", "i64", [1, -1])).shape == data.shape


def test_spec_example_2_one_shift_for_two_axes_is_accepted():
    assert str(infer(info("3,10,100,200"), info("1", "i64"), info("2", "i64")).shape) == "[3,10,100,200]"
    assert str(infer(info("3,10"), info("1", "i64"), info("", "i64")).shape) == "[3,10]"


def test_one_element_shift_interval_may_match_any_axes():
    infer(info("3,10"), info("..4", "i64"), info("7", "i64"))  # the shift may hold one element


@pytest.mark.parametrize(
    "shift, axes, code, words",
    [
        (info("2", "f32"), info("2", "i64"), "bad-input-type", "shift must have element type i32 or i64, got f32"),
        (info("2", "u8"), info("2", "i64"), "bad-input-type", "got u8"),
        (info("2", "i64"), info("2", "i8"), "bad-input-type", "axes must have element type i32 or i64, got i8"),
        (info("2", "i64"), info("2", "boolean"), "bad-input-type", "got boolean"),
        (info("2,1", "i64"), info("2", "i64"), "bad-input-rank", "shift must be a scalar or 1-D, got rank 2"),
        (info("2", "i64"), info("1,2", "i64"), "bad-input-rank", "axes must be a scalar or 1-D, got rank 2"),
        (info("3", "i64"), info("1", "i64"), "incompatible-inputs", "shift has 3 elements but axes has 1"),
        (info("2", "i64"), info("", "i64"), "incompatible-inputs", "shift has 2 elements but axes has 1"),
        (info("2..3", "i64"), info("5..", "i64"), "incompatible-inputs", "shift has 2..3 elements but axes has 5.."),
        (info("2", "i64"), info("2", "i64", [0, 2]), "axis-out-of-range", "axis 2 is out of range [-2, 1] for rank 2"),
        (info("2", "i64"), info("2", "i64", [0, -5]), "axis-out-of-range", "axis -5 is out of range [-2, 1]"),
    ],
)
def test_infer_rejects(shift, axes, code, words):
    with pytest.raises(OpError) as e:
        infer(info("3,4"), shift, axes)
    assert e.value.code == code and words in str(e.value)


def test_rank_0_data_has_no_axis_to_roll():
    with pytest.raises(OpError) as e:
        infer(info(""), info("", "i64"), info("1", "i64"))
    assert e.value.code == "axis-out-of-range" and "scalar (rank 0)" in str(e.value)
    with pytest.raises(OpError, match="rank 0"):
        infer(info(""), info("", "i64"), info("", "i64", 0))
    assert infer(info(""), info("0", "i64"), info("0", "i64")).shape == PartialShape(())  # no axes: fine
    assert infer(info(""), info("", "i64"), info("?", "i64")).shape == PartialShape(())  # may be empty


# ------------------------------------------------ diagnostics through check


def tensor(b: IRBuilder, name: str, spec) -> Out:
    """A Const for an array, a Parameter for (shape, element type)."""
    if isinstance(spec, np.ndarray):
        return b.const(spec)
    return b.parameter(name, spec[0], spec[1])


def roll_model(write_ir, data_shape, shift, axes, data_type="f32") -> tuple[str, int]:
    b = IRBuilder()
    data = b.parameter("data", data_shape, data_type)
    ins = [data, tensor(b, "shift", shift), tensor(b, "axes", axes)]
    declared = [int(d) for d in data_shape.split(",")] if data_shape else []
    y = b.layer("Roll", "opset7", ins, outputs=[(declared, data_type)], name="roll")
    b.result(y)
    return write_ir(b), y.layer


I64 = np.int64


@pytest.mark.parametrize(
    "data_shape, shift, axes, code, port, words",
    [
        ("4,3", np.array([1.0], np.float32), np.array([0], I64), "bad-input-type", 1, "got f32"),
        ("4,3", np.array([1], I64), np.array([0], np.uint8), "bad-input-type", 2, "axes must have element type i32 or i64, got u8"),
        ("4,3", np.ones((1, 1), I64), np.array([0], I64), "bad-input-rank", 1, "shift must be a scalar or 1-D, got rank 2 (shape [1,1])"),
        ("4,3", np.array([1], I64), np.zeros((1, 2), I64), "bad-input-rank", 2, "axes must be a scalar or 1-D, got rank 2"),
        ("4,3", np.array([1, 2, 3], I64), np.array([0], I64), "incompatible-inputs", 1, "shift has 3 elements but axes has 1"),
        ("4,3", np.array([1, 2], I64), ("", "i64"), "incompatible-inputs", 1, "shift has 2 elements but axes has 1"),
        ("4,3", np.array([1, 2], I64), np.array([0, 2], I64), "axis-out-of-range", 2, "axis 2 is out of range [-2, 1] for rank 2"),
        ("4,3", np.array([1, 2], I64), np.array([0, -5], np.int32), "axis-out-of-range", 2, "axis -5 is out of range [-2, 1] for rank 2"),
        ("", ("", "i64"), np.array([0], I64), "axis-out-of-range", 2, "axis 0 is invalid: the data is a scalar (rank 0)"),
        ("", ("", "i64"), ([1], "i64"), "axis-out-of-range", 2, "data is a scalar (rank 0) and has no axes to roll"),
        ("4,3", ([2], "i64"), ([3], "i32"), "incompatible-inputs", 1, "shift has 2 elements but axes has 3"),
    ],
)
def test_check_reports_each_rule_at_the_input_port(write_ir, data_shape, shift, axes, code, port, words):
    path, lid = roll_model(write_ir, data_shape, shift, axes)
    d = only_error(path)
    assert (d.code, d.layer_id, d.port, d.port_kind, d.op) == (code, lid, port, "input", "Roll-7")
    assert d.line == xml_line(path, lid, port)
    assert words in d.message


def test_check_accepts_spec_example_2_and_runs_it(write_ir):
    # shift port <dim>1</dim>, axes port <dim>2</dim>: rejected by OpenVINO, the spec's own example
    path, _ = roll_model(write_ir, "3,10,100,200", np.array([1], I64), np.array([2, 3], I64))
    assert irexec.check(path).errors == []
    path, _ = roll_model(write_ir, "4,3", np.array([1], I64), np.array([0, 1], I64))
    out = irexec.run(path, {"data": MATRIX.astype(np.float32)})
    assert next(iter(out.values())).tolist() == np.roll(MATRIX, (1, 1), (0, 1)).tolist()


# ------------------------------------------------------------ run-time errors


def runtime_axes_model(write_ir) -> str:
    path, _ = roll_model(write_ir, "4,3", np.array([1], I64), ([2], "i64"))
    assert irexec.check(path).errors == []  # the axes are only known at run time
    return path


def test_runtime_axis_out_of_range_has_the_check_time_code(write_ir):
    path = runtime_axes_model(write_ir)
    with pytest.raises(OpError) as e:
        irexec.run(path, {"data": np.zeros((4, 3), np.float32), "axes": np.array([0, -3], I64)})
    d = e.value.diagnostics[0]
    assert d.code == "axis-out-of-range" and d.layer_name == "roll" and d.port == 2 and d.line == xml_line(path, 3, 2)
    assert "axis -3 is out of range [-2, 1] for rank 2" in d.message


def test_runtime_axis_error_from_the_cli(write_ir, save_npz, run_cli):
    path = runtime_axes_model(write_ir)
    inputs = save_npz(data=np.zeros((4, 3), np.float32), axes=np.array([1, 2], I64))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1
    assert "error[axis-out-of-range]" in result.output and "axis 2 is out of range [-2, 1] for rank 2" in result.output
    assert "Traceback" not in result.output


def test_runtime_shift_axes_length_mismatch(write_ir):
    path, _ = roll_model(write_ir, "4,3", ([-1], "i64"), ([-1], "i64"))
    with pytest.raises(OpError) as e:
        irexec.run(path, {"data": np.zeros((4, 3), np.float32), "shift": np.array([1, 2], I64),
                          "axes": np.array([0, 1, 0], I64)})
    assert e.value.code == "incompatible-inputs" and "shift has 2 elements but axes has 3" in str(e.value)
