"""Gather-1/7/8: kernel against a loop-per-element reference, shape inference
(OpenVINO's type_prop scenarios), the spec examples, and one test per
validation rule through ``irexec.check``."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

import irexec
from conformance.movement.references import element_gather
from irexec.base import dtypes
from irexec.base.errors import OpError
from irexec.base.shapes import PartialShape, parse_partial_shape
from irexec.model.builder import IRBuilder
from irexec.ops.framework.base import TensorInfo
from irexec.ops.framework.registry import NEWEST_OPSET, resolve
from irexec.ops.movement import gather as gather_module
from irexec.system import parallel

VERSIONS = {1: "opset1", 7: "opset7", 8: "opset8"}
DATA_TYPES = [np.float64, np.float32, np.float16, ml_dtypes.bfloat16, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]
INDEX_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def make_op(version: int, batch_dims: int = 0):
    cls = resolve("Gather", VERSIONS[version])
    assert cls is not None and cls.version == version
    return cls(None, {} if version == 1 else {"batch_dims": batch_dims})


# (the element-at-a-time reference, element_gather, is in references.py)


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def random_data(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> np.ndarray:
    """Arbitrary bit patterns (NaN payloads, -0, denormals included)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dt.itemsize, dtype=np.uint8)
    return raw.view(dt).reshape(shape)


@st.composite
def gather_cases(draw):
    rank = draw(st.integers(1, 4))
    data_shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    axis = draw(st.integers(0, rank - 1))
    b = draw(st.integers(0, axis))
    extra = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    indices_shape = data_shape[:b] + extra
    index_type = draw(st.sampled_from(INDEX_TYPES))
    dim = data_shape[axis]
    lo, hi = int(np.iinfo(index_type).min), int(np.iinfo(index_type).max)
    # mostly in or near [-dim, dim-1], sometimes the extremes of the index type
    values = st.one_of(st.integers(max(lo, -dim - 2), dim + 2), st.sampled_from([lo, hi, hi // 2 + 1]))
    count = int(np.prod(indices_shape))
    flat = draw(st.lists(values, min_size=count, max_size=count))
    indices = np.array(flat, dtype=index_type).reshape(indices_shape)
    # spell axis and batch_dims either way round
    axis_spelled = draw(st.sampled_from([axis, axis - rank]))
    b_spelled = draw(st.sampled_from([b, b - indices.ndim]))
    if b_spelled < -min(rank, indices.ndim):  # outside the spec's range: only the positive spelling is valid
        b_spelled = b
    data_type = draw(st.sampled_from(DATA_TYPES))
    seed = draw(st.integers(0, 2**32 - 1))
    data = random_data(np.random.default_rng(seed), data_shape, data_type)
    return data, indices, axis_spelled, b_spelled


@settings(max_examples=200, deadline=None)
@given(gather_cases(), st.sampled_from([7, 8]))
def test_compute_matches_reference(case, version):
    data, indices, axis, b = case
    data_before, indices_before = data.copy(), indices.copy()
    axis_arr = np.array([axis], dtype=np.int64)
    op = make_op(version, b)
    (got,) = op.run(data, indices, axis_arr)
    assert same_bits(got, element_gather(data, indices, axis, b))
    assert same_bits(data, data_before) and same_bits(indices, indices_before)  # inputs untouched
    (inferred,) = op.inference([TensorInfo(PartialShape.static(data.shape), dtypes.from_dtype(data.dtype)),
                           TensorInfo(PartialShape.static(indices.shape), dtypes.from_dtype(indices.dtype)),
                           TensorInfo(PartialShape.static((1,)), dtypes.get("i64"), axis_arr)]).outputs
    assert inferred.shape == PartialShape.static(got.shape)


# Thresholds lowered so that tiny tensors are cut into pieces filled from two
# threads, on each of the kernel's paths.
THREADED = {"MIN_PARALLEL_BYTES": 0, "MIN_PIECE_BYTES": 1}
GATHER_PATHS = {
    "take": {},
    "pieces-per-index": {"PIECES_PER_THREAD": 64},
    "row-numbers": {"_MAX_BATCH_LOOP": 0, "_MIN_BLOCK_ELEMENTS": 1 << 62},
}


@pytest.mark.parametrize("path", list(GATHER_PATHS))
@settings(max_examples=80, deadline=None)
@given(case=gather_cases(), transpose=st.booleans())
def test_threaded_pieces_match_reference(path, case, transpose):
    data, indices, axis, b = case
    if transpose and data.ndim >= 2:
        data = np.asfortranarray(data)  # not C-contiguous
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(parallel.ENV_VAR, "2")
        for name, value in {**THREADED, **GATHER_PATHS[path]}.items():
            mp.setattr(parallel if hasattr(parallel, name) else gather_module, name, value)
        (got,) = make_op(8, b).run(data, indices, np.array([axis], dtype=np.int64))
    assert same_bits(got, element_gather(data, indices, axis, b))


@settings(max_examples=60, deadline=None)
@given(gather_cases())
def test_gather1_matches_reference_without_batch_dims(case):
    data, indices, axis, _ = case
    (got,) = make_op(1).run(data, indices, np.array(axis, dtype=np.int32))
    assert same_bits(got, element_gather(data, indices, axis, 0))


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda t: np.dtype(t).name)
def test_every_element_type_is_moved_bit_exactly(dtype):
    rng = np.random.default_rng(1)
    data = random_data(rng, (3, 5, 2), dtype)
    indices = np.array([[4, -1, 7], [0, -5, -6]], dtype=np.int32)  # 7 and -6 are out of range
    (got,) = make_op(8).run(data, indices, np.array(1))
    assert same_bits(got, element_gather(data, indices, 1, 0))
    assert not got[:, 0, 2].any() and not got[:, 1, 2].any()


def test_large_batch_count_uses_the_same_formula():
    # more batches than the per-batch loop handles, tiny blocks: the row-number path
    rng = np.random.default_rng(2)
    data = rng.integers(0, 1000, size=(70, 3, 5, 2)).astype(np.int16)
    indices = rng.integers(-7, 7, size=(70, 4))
    (got,) = make_op(8, 1).run(data, indices, np.array(2))
    assert same_bits(got, element_gather(data, indices, 2, 1))
    (got,) = make_op(7, -1).run(data, indices, np.array(-2))
    assert same_bits(got, element_gather(data, indices, 2, 1))


def test_scalar_indices_drop_the_axis():
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    for version in (1, 7, 8):
        (got,) = make_op(version).run(data, np.array(-1, dtype=np.int64), np.array(1))
        assert got.shape == (3,) and np.array_equal(got, [3, 7, 11])
        (got,) = make_op(version).run(data, np.array(5, dtype=np.int8), np.array(1))
        assert got.shape == (3,) and not got.any()


def test_u64_indices_above_2_63_are_out_of_range():
    data = np.array([10, 20, 30, 40], dtype=np.int64)
    indices = np.array([2**63, 2**64 - 1, 3, 2**63 + 1], dtype=np.uint64)
    for version in (1, 7, 8):
        (got,) = make_op(version).run(data, indices, np.array(0))
        assert got.tolist() == [0, 0, 40, 0]


def test_indices_at_the_limits_of_their_type():
    data = np.arange(300, dtype=np.int32)
    indices = np.array([-128, 127, -1, 0], dtype=np.int8)
    (got,) = make_op(8).run(data, indices, np.array(0))
    assert got.tolist() == [172, 127, 299, 0]
    big = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, -300, 299, -301, 300], dtype=np.int64)
    (got,) = make_op(8).run(data, big, np.array(0))
    assert got.tolist() == [0, 0, 0, 299, 0, 0]


@pytest.mark.parametrize("data_shape, indices_shape, axis, b, out_shape, zeros", [
    ((2, 0), (2,), 1, 0, (2, 2), True),         # nothing to gather from: zeros
    ((0, 3), (2,), 1, 0, (0, 2), False),        # empty outer dim
    ((2, 3), (2, 0), 1, 0, (2, 2, 0), False),   # empty indices
    ((2, 3), (0,), 0, 0, (0, 3), False),
    ((2, 0, 3), (2, 4), 1, 1, (2, 4, 3), True),  # batch_dims with an empty gather axis
    ((0, 4), (0, 2), 1, 1, (0, 2), False),      # empty batch
])
def test_zero_size_dims(data_shape, indices_shape, axis, b, out_shape, zeros):
    data = np.ones(data_shape, dtype=np.float32)
    indices = np.ones(indices_shape, dtype=np.int64)
    (got,) = make_op(8, b).run(data, indices, np.array(axis))
    assert got.shape == out_shape
    if zeros:
        assert got.size and not got.any()
    assert same_bits(got, element_gather(data, indices, axis, b))


def test_non_contiguous_and_read_only_inputs():
    base = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    data = base.transpose(2, 0, 1)[:, ::-1]  # (5, 3, 4), strided
    indices = np.array([[3, -1], [0, 9]], dtype=np.int32)
    indices.setflags(write=False)
    (got,) = make_op(7).run(data, indices, np.array([-1]))
    assert same_bits(got, element_gather(data, indices, 2, 0))


def test_gather1_real_indices_truncate_toward_zero():
    data = np.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], dtype=np.int32)
    indices = np.array([1.9, -1.5, -0.5, 4.99, 5.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    (got,) = make_op(1).run(data, indices, np.array(1.0, dtype=np.float32))
    # 1.9 -> 1, -1.5 -> -1 (last), -0.5 -> 0, 4.99 -> 4, 5 / NaN / inf out of range
    assert got.tolist() == [[2, 5, 1, 5, 0, 0, 0, 0], [7, 10, 6, 10, 0, 0, 0, 0]]
    for dtype in (np.float16, ml_dtypes.bfloat16, np.float64):
        (got,) = make_op(1).run(data, np.array([-1.5, 3.5], dtype=dtype), np.array(0, dtype=np.uint8))
        assert got.tolist() == [[6, 7, 8, 9, 10], [0, 0, 0, 0, 0]]


# ------------------------------------------------------------ the spec examples

SPEC_EXAMPLES = [
    # (name, batch_dims, axis, indices, data, output)
    ("example1", 0, 0, [0, 0, 4], [1, 2, 3, 4, 5], [1, 1, 5]),
    ("example2", 1, 1, [[0, 0, 4], [4, 0, 0]], [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], [[1, 1, 5], [10, 6, 6]]),
    ("example3", 2, 2, [[[0, 0, 4], [4, 0, 0]], [[1, 2, 4], [4, 3, 2]]],
     [[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], [[11, 12, 13, 14, 15], [16, 17, 18, 19, 20]]],
     [[[1, 1, 5], [10, 6, 6]], [[12, 13, 15], [20, 19, 18]]]),
    ("example4", 1, 2, [[1, 2, 4], [4, 3, 2]], np.arange(1, 41).reshape(2, 1, 5, 4).tolist(),
     [[[[5, 6, 7, 8], [9, 10, 11, 12], [17, 18, 19, 20]]], [[[37, 38, 39, 40], [33, 34, 35, 36], [29, 30, 31, 32]]]]),
    ("example5", -1, 1, [[0, 0, 4], [4, 0, 0]], [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], [[1, 1, 5], [10, 6, 6]]),
    ("example6", 0, 0, [0, -2, -1], [1, 2, 3, 4, 5], [1, 4, 5]),
    ("example7", 0, 0, [3, 10, -20], [1, 2, 3, 4, 5], [4, 0, 0]),
]


def spec_cases():
    for name, b, axis, indices, data, output in SPEC_EXAMPLES:
        for version in (1, 7, 8):
            if version == 1 and b != 0:
                continue  # Gather-1 has no batch_dims
            yield pytest.param(version, b, axis, indices, data, output, id=f"{name}-v{version}")


@pytest.mark.parametrize("version, b, axis, indices, data, output", list(spec_cases()))
def test_spec_examples_run_end_to_end(tmp_path, version, b, axis, indices, data, output):
    data_arr = np.array(data, dtype=np.int32)
    builder = IRBuilder()
    x = builder.parameter("data", list(data_arr.shape), "i32")
    y = builder.layer("Gather", VERSIONS[version],
                      [x, builder.const(np.array(indices, dtype=np.int64)), builder.const(np.array(axis, dtype=np.int64))],
                      None if version == 1 else {"batch_dims": b}, names=["out"])
    builder.result(y)
    path = builder.write(tmp_path / "model.xml")[0]
    assert y.dims == np.array(output).shape  # inferred output dims, written to the XML
    assert irexec.check(path).errors == []
    got = irexec.run(path, {"data": data_arr})["out"]
    assert got.dtype == np.int32 and got.tolist() == output


# -------------------------------------------------------------- shape inference


def info(shape: str, etype: str = "f32", value=None) -> TensorInfo:
    return TensorInfo(parse_partial_shape(shape), dtypes.get(etype), value)


def const_axis(axis: int, shape=(1,)) -> TensorInfo:
    value = np.array(axis, dtype=np.int64).reshape(shape)
    return TensorInfo(PartialShape.static(value.shape), dtypes.get("i64"), value)


def infer(version: int, data: TensorInfo, indices: TensorInfo, axis: TensorInfo, batch_dims: int = 0) -> str:
    (out,) = make_op(version, batch_dims).inference([data, indices, axis]).outputs
    assert out.etype == data.etype
    return str(out.shape)


# OpenVINO's type_prop gather tests: (name, versions, data, indices, axis (None: runtime i32 [1]), b, expected)
INFER_CASES = [
    ("axis_0", (1, 7, 8), "3,2", "2,2", 0, 0, "[2,2,2]"),
    ("axis_1", (1, 7, 8), "3,3", "1,2", 1, 0, "[3,1,2]"),
    ("negative_axis", (1, 7, 8), "5,6,7", "4", -2, 0, "[5,4,7]"),
    ("dynamic_pshape_batch_dims_1_axis_1", (7, 8), "1..7,20,20", "7..10,3,8", 1, 1, "[7,3,8,20]"),
    ("dynamic_pshape_batch_dims_1_axis_3", (7, 8), "1..7,1..3,200,400", "7..10,2..10,3,8", 3, 1,
     "[7,1..3,200,2..10,3,8]"),
    ("dim_no_bound_pshape_batch_dims_1_axis_3", (7, 8), "7..,..3,200,400", "7..10,2..10,3,8", 3, 1,
     "[7..10,..3,200,2..10,3,8]"),
    ("dynamic_2d_pshape_batch_dim", (7, 8), "1..7,1..3,200,400", "7..10,2..10,3,8", 2, 2, "[7,2..3,3,8,400]"),
    ("dynamic_2d_pshape_batch_dim_axis_3", (7, 8), "1..7,1..3,200,400", "7..10,2..10,3,8", 3, 2,
     "[7,2..3,200,3,8]"),
    # OpenVINO's interval ranks (3..5 -> 4..6) are not expressible in IR: dynamic rank
    ("dynamic_rank", (7, 8), "1..7,1..3,200,400", "...", 3, 2, "[...]"),
    ("axis_boundcheck_for_dynamic_data_rank", (7, 8), "...", "7,3,8", 3, 2, "[...]"),
    ("dynamic_rank_negative_batch_dims", (7, 8), "1..7,1..3,200,400", "...", 3, -2, "[...]"),
    ("axis_not_set", (1, 7, 8), "1,1,200,400", "2,2", None, 0, "[?,?,?,?,?]"),
    ("axis_not_set_positive_batch_dims", (7, 8), "2,1,200,400", "2,2", None, 1, "[2,?,?,?]"),
    ("use_default_ctor", (7, 8), "2,1,200,400", "2,2", -1, 1, "[2,1,200,2]"),
    # beyond OpenVINO's list: dynamic dims, scalar indices, negative batch_dims with static ranks
    ("dynamic_dims_pass_through", (1, 7, 8), "?,3,-1", "2..4,?", 1, 0, "[?,2..4,?,?]"),
    ("scalar_indices", (1, 7, 8), "4,5,6", "", -1, 0, "[4,5]"),
    ("negative_batch_dims_static", (7, 8), "?,5,6", "3,2", 2, -1, "[3,5,2]"),
    ("batch_dims_equal_indices_rank", (7, 8), "2,3,5", "2,3", 2, 2, "[2,3]"),
    ("data_dynamic_rank_axis_not_set", (7, 8), "...", "2,2", None, 1, "[...]"),
]


def infer_params():
    for name, versions, data, indices, axis, b, expected in INFER_CASES:
        for v in versions:
            yield pytest.param(v, data, indices, axis, b, expected, id=f"{name}-v{v}")


@pytest.mark.parametrize("version, data, indices, axis, b, expected", list(infer_params()))
def test_infer_type_prop_scenarios(version, data, indices, axis, b, expected):
    axis_info = info("1", "i32") if axis is None else const_axis(axis)
    assert infer(version, info(data), info(indices, "i64"), axis_info, b) == expected


def test_gather1_accepts_any_numeric_indices_and_axis():
    # type_prop gather_v1_uint8 / gather_v1_float32: Gather-1 checks no index type
    for et in ("u8", "f32", "f16", "bf16"):
        assert infer(1, info("3,2"), info("2,2", et), const_axis(0)) == "[2,2,2]"
    axis = TensorInfo(PartialShape.static(()), dtypes.get("f32"), np.array(1.0, dtype=np.float32))
    assert infer(1, info("3,3"), info("1,2", "i32"), axis) == "[3,1,2]"


def test_scalar_and_one_element_axis_shapes():
    for shape in ((), (1,)):
        assert infer(8, info("3,4"), info("2", "i32"), const_axis(1, shape)) == "[3,2]"
    # an axis of unknown length or rank is accepted until run time
    for axis_shape in ("?", "..."):
        assert infer(8, info("3,4"), info("2", "i32"), info(axis_shape, "i64")) == "[?,?]"


def test_constant_inputs_fold():
    """A Gather of a constant (e.g. a shape vector) is itself a known value."""
    shape_vector = TensorInfo(PartialShape.static((4,)), dtypes.get("i64"), np.array([3, 4, 5, 6], dtype=np.int64))
    picks = TensorInfo(PartialShape.static((2,)), dtypes.get("i32"), np.array([-1, 0], dtype=np.int32))
    op = make_op(8)
    inputs = [shape_vector, picks, const_axis(0, ())]
    inference = op.inference(inputs)
    assert str(inference.outputs[0].shape) == "[2]"
    (folded,) = op.fold(inputs, inference)
    assert folded.is_constant and folded.value().tolist() == [6, 3]


# (name, versions, data, indices(etype), axis info, b, code, message substring)
INFER_ERRORS = [
    ("incorrect_axis_shape", (1, 7, 8), info("5,6"), info("4", "i64"), info("2", "i64"), 0,
     "bad-input-rank", "axis must hold one value, got shape [2]"),
    ("axis_rank_2", (1, 7, 8), info("5,6"), info("4", "i64"), info("1,1", "i64"), 0,
     "bad-input-rank", "axis must be a scalar or 1-D, got rank 2 (shape [1,1])"),
    ("axis_out_of_input_rank", (1, 7, 8), info("5,6"), info("4", "i64"), const_axis(2), 0,
     "axis-out-of-range", "axis 2 is out of range [-2, 1] for rank 2"),
    ("negative_axis_out_of_input_rank", (1, 7, 8), info("5,?,7"), info("4", "i64"), const_axis(-4), 0,
     "axis-out-of-range", "axis -4 is out of range [-3, 2] for rank 3"),
    ("scalar_data", (1, 7, 8), info(""), info("4", "i64"), const_axis(0), 0,
     "bad-input-rank", "data must have rank 1 or more"),
    ("dynamic_batch_dims_inconsistent", (7, 8), info("1..7,20,20"), info("8..10,3,8", "i64"), const_axis(1), 1,
     "incompatible-inputs", "dim 0 is 1..7 in data and 8..10 in indices"),
    ("batch_dims_less_check", (7, 8), info("1,3,20"), info("1,3,8", "i64"), const_axis(1), 2,
     "bad-attribute", "batch_dims 2 must be <= axis 1"),
    ("negative_batch_dims_greater_than_axis", (7, 8), info("4,3,20"), info("4,3,8", "i64"), const_axis(0), -2,
     "bad-attribute", "batch_dims -2 (normalized 1) must be <= axis 0"),
    ("batch_dims_less_indices_rank_check", (7, 8), info("1,20,20,22,22"), info("1,3", "i64"), const_axis(4), 3,
     "bad-attribute", "batch_dims 3 must be <= indices rank 2"),
    ("batch_dims_below_range", (7, 8), info("2,3,4"), info("2,3", "i64"), const_axis(2), -3,
     "bad-attribute", "batch_dims -3 is out of range [-2, 2]"),
    ("batch_dims_below_data_rank_indices_rank_unknown", (7, 8), info("2,3"), info("...", "i64"), const_axis(1), -3,
     "bad-attribute", "batch_dims -3 is below -2, the lowest data rank 2 allows"),
    ("batch_dims_equal_data_rank", (7, 8), info("2,3"), info("2,3,4", "i64"), info("", "i64"), 2,
     "bad-attribute", "batch_dims 2 leaves no axis to gather along in data of rank 2"),
    ("indices_type_check", (7, 8), info("1,20,20,22,22"), info("1,3", "f32"), const_axis(4), 0,
     "bad-input-type", "indices must have an integer element type, got f32"),
    ("boolean_indices", (7, 8), info("3"), info("2", "boolean"), const_axis(0), 0,
     "bad-input-type", "got boolean"),
    ("axis_type_check", (7, 8), info("1,20,20,22,22"), info("1,3", "i32"), info("1", "f32", np.array([4.0])), 0,
     "bad-input-type", "axis must have an integer element type, got f32"),
    ("gather1_boolean_indices", (1,), info("3"), info("2", "boolean"), const_axis(0), 0,
     "bad-input-type", "indices must have a numeric element type, got boolean"),
]


def infer_error_params():
    for name, versions, data, indices, axis, b, code, text in INFER_ERRORS:
        for v in versions:
            yield pytest.param(v, data, indices, axis, b, code, text, id=f"{name}-v{v}")


@pytest.mark.parametrize("version, data, indices, axis, b, code, text", list(infer_error_params()))
def test_infer_rejects(version, data, indices, axis, b, code, text):
    with pytest.raises(OpError) as err:
        make_op(version, b).inference([data, indices, axis])
    assert err.value.code == code
    assert text in err.value.diagnostics[0].message


# ------------------------------------------------ diagnostics through irexec.check


def input_port_line(path: str, layer_name: str, index: int | None) -> int:
    """The XML line of a layer (index None) or of its index-th input port."""
    tree = etree.parse(path)
    (layer,) = tree.xpath("//layer[@name=$n]", n=layer_name)
    if index is None:
        return layer.sourceline
    return layer.find("input").findall("port")[index].sourceline


def gather_model(tmp_path, version, data, indices, axis, b=0, out=((2,), "f32"), data_type="f32"):
    """Parameter data, indices and axis given as arrays (Consts) or (shape, etype) (Parameters)."""
    builder = IRBuilder()

    def source(name, spec, default_et):
        if isinstance(spec, np.ndarray):
            return builder.const(spec)
        shape, et = spec if isinstance(spec, tuple) and isinstance(spec[1], str) else (spec, default_et)
        return builder.parameter(name, shape, et)

    inputs = [source("data", data, data_type), source("indices", indices, "i64"), source("axis", axis, "i64")]
    y = builder.layer("Gather", VERSIONS[version] if isinstance(version, int) else version, inputs,
                      None if version == 1 else {"batch_dims": b}, name="the_gather", outputs=[out], names=["out"])
    builder.result(y)
    return builder.write(tmp_path / "model.xml")[0]


def the_diagnostic(path, code):
    found = [d for d in irexec.check(path).diagnostics if d.code == code]
    assert found, f"no {code} in {[d.format() for d in irexec.check(path).diagnostics]}"
    return found[0]


CHECK_ERRORS = [
    # (id, version, data, indices, axis, b, code, input index or None, message substring)
    ("float-indices", 7, [5, 6], ([2], "f32"), np.array(1), 0, "bad-input-type", 1,
     "indices must have an integer element type, got f32"),
    ("float-axis", 8, [5, 6], np.array([1, 2]), ([], "f32"), 0, "bad-input-type", 2,
     "axis must have an integer element type, got f32"),
    ("boolean-indices-v1", 1, [5, 6], np.array([True, False]), np.array(0), 0, "bad-input-type", 1,
     "must have a numeric element type, got boolean"),
    ("axis-shape", 8, [5, 6], np.array([1, 2]), np.array([0, 1]), 0, "bad-input-rank", 2,
     "axis must hold one value, got shape [2]"),
    ("scalar-data", 8, [], np.array([0]), np.array(0), 0, "bad-input-rank", 0, "data must have rank 1 or more"),
    ("axis-out-of-range", 8, [5, 6], np.array([1]), np.array([2]), 0, "axis-out-of-range", 2,
     "axis 2 is out of range [-2, 1] for rank 2"),
    ("negative-axis-out-of-range", 1, [5, 6], np.array([1]), np.array(-3), 0, "axis-out-of-range", 2,
     "axis -3 is out of range [-2, 1] for rank 2"),
    ("batch-dims-gt-axis", 8, [2, 3, 4], np.zeros((2, 3), np.int64), np.array(1), 2, "bad-attribute", None,
     "batch_dims 2 must be <= axis 1"),
    ("batch-dims-gt-indices-rank", 7, [1, 20, 20, 22], np.zeros((1, 3), np.int64), np.array(3), 3, "bad-attribute", None,
     "batch_dims 3 must be <= indices rank 2"),
    ("batch-dims-below-range", 8, [2, 3, 4], np.zeros((2, 3), np.int64), np.array(2), -3, "bad-attribute", None,
     "batch_dims -3 is out of range [-2, 2] for data rank 3, indices rank 2"),
    ("batch-dims-mismatch", 8, [2, 5], np.zeros((3, 2), np.int64), np.array(1), 1, "incompatible-inputs", 1,
     "must agree in the first 1 (batch) dims, but dim 0 is 2 in data and 3 in indices"),
]


@pytest.mark.parametrize("case", CHECK_ERRORS, ids=lambda c: c[0])
def test_check_reports_each_rule_at_its_line(tmp_path, case):
    _, version, data, indices, axis, b, code, index, text = case
    path = gather_model(tmp_path, version, data, indices, axis, b)
    d = the_diagnostic(path, code)
    assert d.severity == "error"
    assert d.layer_name == "the_gather" and d.op == f"Gather-{version}"
    assert d.line == input_port_line(path, "the_gather", index)
    assert text in d.message
    if index is not None:
        assert d.port_kind == "input" and d.port == index  # the builder numbers input ports 0..n-1


def test_check_reports_a_non_integer_batch_dims(tmp_path):
    path = gather_model(tmp_path, 8, [2, 3], np.array([0]), np.array(1), b="1.5")
    d = the_diagnostic(path, "bad-attribute")
    assert "batch_dims='1.5' is not an integer" in d.message


def test_check_accepts_a_valid_gather_and_compares_dims(tmp_path):
    path = gather_model(tmp_path, 8, ("2,3..5,4", "f32"), np.zeros((2, 6), np.int64), np.array(-1), 1, out=((2, -1, 6), "f32"))
    assert irexec.check(path).errors == []
    path = gather_model(tmp_path, 8, [2, 3, 4], np.zeros((2, 6), np.int64), np.array(-1), 1, out=((2, 3, 7), "f32"))
    d = the_diagnostic(path, "shape-mismatch")
    assert "declared [2,3,7] but inferred [2,3,6]" in d.message


@pytest.mark.parametrize("version", ["opset99", "extension", "opset0"])
def test_a_version_openvino_has_not_got_is_an_error_naming_the_ones_it_has(tmp_path, version):
    # OpenVINO refuses these files ("Cannot create Gather layer ... from unsupported opset"); Gather is a
    # core op, so the version is a defect of the file, not an extension op irexec lacks
    path = gather_model(tmp_path, version, [5, 6], np.array([1]), np.array(0))
    d = the_diagnostic(path, "unknown-op-version")
    assert d.severity == "error"
    assert d.line == input_port_line(path, "the_gather", None)
    assert f"Gather has no version {version!r}" in d.message and "opset1..opset16" in d.message


@pytest.mark.parametrize("opset, version", [("opset1", 1), ("opset6", 1), ("opset7", 7), ("opset8", 8), (f"opset{NEWEST_OPSET}", 8)])
def test_opsets_resolve_to_the_newest_gather(opset, version):
    cls = resolve("Gather", opset)
    assert cls is not None and cls.version == version


# ---------------------------------------------------------------- run-time errors


def test_runtime_axis_out_of_range(tmp_path):
    path = gather_model(tmp_path, 8, [2, 3], np.array([0]), ([], "i64"), out=((-1, -1), "f32"))
    data = np.zeros((2, 3), np.float32)
    assert irexec.run(path, {"data": data, "axis": np.array(1)})["out"].shape == (2, 1)
    with pytest.raises(OpError) as err:
        irexec.run(path, {"data": data, "axis": np.array(-3)})
    assert err.value.code == "axis-out-of-range" and "axis -3 is out of range [-2, 1]" in str(err.value)


def test_runtime_batch_dims_mismatch(tmp_path):
    path = gather_model(tmp_path, 7, ("?,4", "f32"), ("?,2", "i64"), np.array(1), b=1, out=((-1, 2), "f32"))
    with pytest.raises(OpError) as err:
        irexec.run(path, {"data": np.zeros((3, 4), np.float32), "indices": np.zeros((2, 2), np.int64)})
    assert err.value.code == "incompatible-inputs" and "data [3,4] and indices [2,2]" in str(err.value)
