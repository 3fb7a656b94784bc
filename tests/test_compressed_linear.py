"""A linear layer's product read from its compressed weight (u8/u4 with a zero
point and scale per row or group) gives the decompression chain's exact values and
each output the f32 dot product's bound; a run never makes the f32 weight unless it
shows values, and agrees with OpenVINO either way."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from irexec.kernels import compressed_linear
from irexec.kernels.compressed_linear import CompressedWeight

pytest.importorskip("numba")

EPS = np.finfo(np.float32).eps


_RANGES = {np.uint8: (0, 255), np.int8: (-128, 127), ml_dtypes.uint4: (0, 15), ml_dtypes.int4: (-8, 7)}


def _weight(rng: np.random.Generator, n: int, k: int, groups: int, dtype: object = np.uint8):
    """Quantized values, zero points and scales as a chain reads them, and the f32 weight it makes."""
    low, top = _RANGES[dtype]  # type: ignore[index]
    q = rng.integers(low, top + 1, (n, groups, k // groups)).astype(dtype)
    zero = rng.integers(low, top + 1, (n, groups, 1)).astype(np.float32)
    # full f32 scales: with f16 ones every step is exact and any arithmetic would agree
    scale = rng.uniform(1e-3, 1e-1, (n, groups, 1)).astype(np.float32)
    weight = ((q.astype(np.float32) - zero) * scale).reshape(n, k)  # the chain's arithmetic, in f32
    return (q if groups > 1 else q.reshape(n, k)), zero, scale, weight


def _assert_scaled_one_hot_rows(packed: CompressedWeight, weight: np.ndarray) -> None:
    """One-hot rows scaled by c (one row, a few and many): each output is the weight column
    the row picks, times c in one f32 rounding."""
    c = np.float32(0.7071)
    for rows, any_rows in ((1, False), (3, False), (7, True)):
        for k in (0, 63, 64, 575):
            one_hot = np.zeros((rows, 576), np.float32)
            one_hot[:, k] = c
            got = packed.product(one_hot, any_rows=any_rows)
            assert got is not None
            for row in got:
                np.testing.assert_array_equal(row, c * weight[:, k])


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, ml_dtypes.uint4, ml_dtypes.int4], ids=["u8", "i8", "u4", "i4"])
@pytest.mark.parametrize("groups", [1, 9])
def test_the_product_reads_the_chains_exact_values(dtype, groups):
    rng = np.random.default_rng(groups)
    q, zero, scale, weight = _weight(rng, 300, 576, groups, dtype)
    stored = None
    if dtype in (ml_dtypes.uint4, ml_dtypes.int4):  # as the .bin holds them: two a byte, the first in the low nibble
        values = q.astype(np.int8).astype(np.uint8).reshape(-1) & 15
        stored = values[0::2] | (values[1::2] << 4)
        assert CompressedWeight.of(q, zero, scale) is None  # an unpacked copy is not read
    packed = CompressedWeight.of(q, zero if groups > 1 else zero[:, 0], scale if groups > 1 else scale[:, 0], stored)
    assert packed is not None and packed.shape == weight.shape
    index = np.array([[0, 299], [-1 + 300, 17]])  # an embedding lookup's rows, as the chain computes them
    np.testing.assert_array_equal(packed.rows(index), weight[index])
    # scaled one-hot rows: each output is one weight, as the chain computes it, times
    # c in one f32 rounding (a kernel that folded c or the activation into the
    # weight's own arithmetic would round differently); one row, a few and many
    _assert_scaled_one_hot_rows(packed, weight)
    for rows in (1, 2, compressed_linear.MAX_ROWS):
        a = rng.standard_normal((1, rows, 576)).astype(np.float32)
        got = packed.product(a)
        assert got is not None and got.shape == (1, rows, 300) and got.dtype == np.float32
        exact = a.astype(np.float64) @ weight.astype(np.float64).T
        bound = 576 * EPS * (np.abs(a).astype(np.float64) @ np.abs(weight).astype(np.float64).T)
        assert np.all(np.abs(got - exact) <= bound)


def test_a_product_it_does_not_fit_is_left_to_blas():
    q, zero, scale, _ = _weight(np.random.default_rng(0), 64, 128, 1)
    packed = CompressedWeight.of(q, zero[:, 0], scale[:, 0])
    assert packed is not None
    assert packed.product(np.ones((compressed_linear.MAX_ROWS + 1, 128), np.float32)) is None  # a prefill
    assert packed.product(np.ones((1, 128), np.float64)) is None
    assert packed.product(np.ones((1, 64), np.float32)) is None
    # a zero point or scale that varies along a row's group is not this form
    assert CompressedWeight.of(q, zero[:, 0], np.ones((1, 128), np.float32)) is None
    assert CompressedWeight.of(q.astype(np.int16), zero[:, 0], scale[:, 0]) is None  # no 16-bit weight type


def _compressed_model(tmp_path, group: bool, signed: bool = False) -> str:
    """A linear layer as NNCF writes it: u8 per row or u4 in groups of 64 with zero points
    (asymmetric), or i8/i4 without (symmetric)."""
    ov = pytest.importorskip("openvino")
    import openvino.opset8 as o8

    rng = np.random.default_rng(1)
    x = o8.parameter([-1, 512], np.float32, name="x")
    shape = (1024, 8, 64) if group else (1024, 512)
    low, top = (-8, 7) if group and signed else (0, 15) if group else (-128, 127) if signed else (0, 255)
    values = rng.integers(low, top + 1, shape)
    kind = ov.Type.i4 if signed else ov.Type.u4
    w = (ov.op.Constant(kind, ov.Shape(list(shape)), values.reshape(-1).tolist()) if group
         else o8.constant(values.astype(np.int8 if signed else np.uint8)))
    scale = o8.constant(rng.uniform(1e-3, 1e-2, (*shape[:-1], 1)).astype(np.float16))
    data = o8.convert(w, "f16")
    if not signed:
        data = o8.subtract(data, o8.convert(o8.constant(rng.integers(low, top + 1, (*shape[:-1], 1)).astype(np.uint8)),
                                            "f16"))
    weight = o8.multiply(data, scale)
    if group:
        weight = o8.reshape(weight, o8.constant(np.int64([1024, 512])), False)
    y = o8.matmul(x, o8.convert(weight, "f32"), False, True)
    path = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([o8.result(y)], [x], "linear"), path, compress_to_fp16=False)
    return path


@pytest.mark.parametrize("group, signed", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["u8-per-row", "u4-groups", "i8-per-row", "i4-groups"])
def test_a_run_never_makes_the_f32_weight_and_agrees_with_openvino(tmp_path, monkeypatch, group, signed):
    import openvino as ov

    from irexec.api.session import Session
    from irexec.executor.cache import run_cache
    from irexec.kernels.compressed_linear import StandIn

    path = _compressed_model(tmp_path, group, signed)
    # (without dynamic quantization, which OpenVINO CPU applies to compressed weights by default)
    request = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                   "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}).create_infer_request()
    used = []
    product = CompressedWeight.product
    monkeypatch.setattr(CompressedWeight, "product", lambda self, a, **kw: used.append(a.shape) or product(self, a, **kw))
    rng = np.random.default_rng(2)
    with Session(path) as s:
        for rows in (8, 1, 3):  # a prefill (blocks of rows for BLAS), then decode-sized products (the kernel)
            x = rng.standard_normal((rows, 512)).astype(np.float32)
            got = s.run({"x": x}).outputs[s.output_names[0]]
            want = request.infer({"x": x})[0]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
        kept = run_cache(s.model).outputs
        weights = [outs[0] for outs in kept.values() if isinstance(outs[0], StandIn)]
        assert len(weights) == 1 and weights[0].shape == (1024, 512)  # stood in for, never made
        assert run_cache(s.model).nbytes == 0
    assert used == [(8, 512), (1, 512), (3, 512)]


def test_a_run_that_reads_values_gets_the_real_weight(tmp_path):
    """A hook that reads every value, a dump, or ``stop_at`` the chain's end sees the f32
    weight the chain computes, never the stand-in's NaN; the plain runs around keep theirs."""
    from irexec.api.session import Session

    path = _compressed_model(tmp_path, group=True)
    x = {"x": np.random.default_rng(4).standard_normal((1, 512)).astype(np.float32)}
    with Session(path) as s:
        plain = s.run(x).outputs[s.output_names[0]]
        end = next(layer for layer in s.model.layers.values() if layer.type == "Convert"
                   and layer.outputs[0].precision is not None and layer.outputs[0].precision.name == "f32")
        seen: list[np.ndarray] = []
        shown = s.run(x, on_layer=lambda layer, outs, _: seen.extend(outs) if layer.id == end.id else None)
        weight = next(iter(s.run(x, stop_at=end.id).outputs.values()))
        again = s.run(x).outputs[s.output_names[0]]
    assert weight.shape == (1024, 512) and np.isfinite(weight).all() and type(weight) is np.ndarray
    np.testing.assert_array_equal(seen[0], weight)
    np.testing.assert_array_equal(again, plain)
    exact = x["x"].astype(np.float64) @ weight.astype(np.float64).T
    bound = 512 * EPS * (np.abs(x["x"]).astype(np.float64) @ np.abs(weight).astype(np.float64).T)
    for got in (plain, shown.outputs[s.output_names[0]]):
        assert np.all(np.abs(got - exact) <= bound)


def test_a_zero_point_per_weight_is_made_and_charged_as_the_chain_says(tmp_path):
    """Not the form the compressed product reads (a zero point per weight, not per group):
    the run computes the f32 weight, charged to its memory limit, and agrees with OpenVINO."""
    ov = pytest.importorskip("openvino")
    import openvino.opset8 as o8

    from irexec import IRExecError
    from irexec.api.load import load
    from irexec.executor.cache import run_cache
    from irexec.executor.engine import run_model
    from irexec.kernels.compressed_linear import StandIn

    rng = np.random.default_rng(6)
    x = o8.parameter([1, 512], np.float32, name="x")
    w = o8.constant(rng.integers(0, 256, (1024, 512), dtype=np.uint8))
    zp = o8.constant(rng.integers(0, 256, (1024, 512), dtype=np.uint8))
    scale = o8.constant(rng.uniform(1e-3, 1e-2, (1024, 1)).astype(np.float16))
    weight = o8.multiply(o8.subtract(o8.convert(w, "f16"), o8.convert(zp, "f16")), scale)
    path = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([o8.result(o8.matmul(x, o8.convert(weight, "f32"), False, True))], [x], "m"), path,
                  compress_to_fp16=False)
    feeds = {"x": rng.standard_normal((1, 512)).astype(np.float32)}
    model = load(path)
    got = next(iter(run_model(model, feeds).outputs.values()))
    want = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
                                   ).create_infer_request().infer(feeds)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    assert not any(isinstance(outs[0], StandIn) for outs in run_cache(model).outputs.values())
    with pytest.raises(IRExecError) as e:
        run_model(load(path), feeds, max_memory=1 << 20)  # the 2 MiB f32 weight is made, and charged
    assert e.value.code == "memory-limit"


def test_a_limit_below_the_f32_weight_runs(tmp_path):
    """The f32 weight (2 MiB) is never made, so a limit below it runs, as OpenVINO's
    compressed MatMul would; without the kernel the same limit is refused."""
    from irexec import IRExecError
    from irexec.api.load import load
    from irexec.executor.engine import run_model

    path = _compressed_model(tmp_path, group=True)
    x = {"x": np.random.default_rng(5).standard_normal((2, 512)).astype(np.float32)}
    assert np.isfinite(next(iter(run_model(load(path), x, max_memory=1 << 20).outputs.values()))).all()
    compressed_linear._kernels, kernels = None, compressed_linear._kernels
    try:
        with pytest.raises(IRExecError) as e:
            run_model(load(path), x, max_memory=1 << 20)
    finally:
        compressed_linear._kernels = kernels
    assert e.value.code == "memory-limit"


def test_without_the_kernel_the_run_is_blas_on_the_f32_weight(tmp_path, monkeypatch):
    from irexec.api.session import Session
    from irexec.executor.cache import run_cache
    from irexec.kernels.compressed_linear import StandIn

    path = _compressed_model(tmp_path, group=False)
    x = {"x": np.random.default_rng(3).standard_normal((1, 512)).astype(np.float32)}
    with Session(path) as s:
        s.run(x)
        fast = s.run(x).outputs[s.output_names[0]]
    monkeypatch.setattr(compressed_linear, "_kernels", None)  # as without Numba, or with IREXEC_JIT=0
    with Session(path) as s:
        s.run(x)
        assert not any(isinstance(outs[0], StandIn) for outs in run_cache(s.model).outputs.values())
        assert run_cache(s.model).nbytes == 1024 * 512 * 4  # the f32 weight, kept
        blas = s.run(x).outputs[s.output_names[0]]
    bound = 512 * EPS * (np.abs(x["x"]).sum() * 255 * 1e-2)
    assert np.abs(fast - blas).max() <= bound


def _tabled(rng: np.random.Generator, n: int, k: int, groups: int, entries: int):
    """Codes, an f32 table of their values (with -0.0 and a value no f16 holds), f32 scales and
    the f32 weight the chain makes, ``(table[code] - 0) * scale``; the codes' bytes as stored."""
    table = rng.standard_normal(entries).astype(np.float32)
    table[0], table[1] = -0.0, np.float32(1 / 3)
    codes = rng.integers(0, entries, (n, groups, k // groups)).astype(np.uint8)
    scale = rng.uniform(1e-3, 1e-1, (n, groups, 1)).astype(np.float32)
    weight = (table[codes] * scale).reshape(n, k)
    flat = codes.reshape(-1)
    stored = (flat[0::2] | (flat[1::2] << 4)) if entries == 16 else None
    q = codes.view(ml_dtypes.uint4 if entries == 16 else ml_dtypes.float8_e4m3fn)
    return q, table, scale, weight, stored


@pytest.mark.parametrize("entries", [16, 256], ids=["4-bit-codes", "8-bit-codes"])
@pytest.mark.parametrize("groups", [1, 9])
def test_a_tabled_product_reads_the_chains_exact_values(entries, groups):
    """NF4, f4e2m1 and CB4 codes (16 entries) and f8 codes (256): each weight value is its
    table entry times the f32 scale, bit for bit, for one-hot rows (one, a few and many)."""
    rng = np.random.default_rng(10 + groups)
    q, table, scale, weight, stored = _tabled(rng, 300, 576, groups, entries)
    packed = CompressedWeight.of(q, None, scale, stored, table)
    assert packed is not None and packed.shape == weight.shape and packed.table is table
    index = np.array([[0, 299], [5, 17]])
    assert packed.rows(index).tobytes() == weight[index].tobytes()  # -0.0 kept
    _assert_scaled_one_hot_rows(packed, weight)
    a = rng.standard_normal((1, 2, 576)).astype(np.float32)
    got = packed.product(a)
    exact = a.astype(np.float64) @ weight.astype(np.float64).T
    bound = 576 * EPS * (np.abs(a).astype(np.float64) @ np.abs(weight).astype(np.float64).T)
    assert got is not None and np.all(np.abs(got - exact) <= bound)
    # a table of another size, or 4-bit codes without their stored bytes, is not this form
    assert CompressedWeight.of(q, None, scale, stored, table[:8].copy()) is None
    if entries == 16:
        assert CompressedWeight.of(q, None, scale, None, table) is None
