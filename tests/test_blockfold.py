"""Weight-decompression chains folded in blocks of rows: the same values as the
layer-by-layer path, bit for bit, in the memory of the weight alone; and a
memory limit below the weights' f32 size still runs (what is not kept is
computed again)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino")
import openvino as ov  # noqa: E402
import openvino.opset8 as o8  # noqa: E402

from irexec import IRExecError  # noqa: E402
from irexec.execute import _folded, run_model  # noqa: E402
from irexec.model import load  # noqa: E402
from irexec.session import Session  # noqa: E402

ROWS, COLS = 4096, 512  # each weight: 8 MiB of f32


def _compressed_linear(tmp_path, layers: int = 2, group: bool = False) -> str:
    """x [2,COLS] through ``layers`` linear layers whose u8 weights are decompressed as NNCF
    writes it: Convert f16 -> Subtract zero point -> Multiply scale (-> Reshape) -> Convert f32."""
    rng = np.random.default_rng(0)
    x = o8.parameter([2, COLS], np.float32, name="x")
    h = x
    for i in range(layers):
        if group:  # u8 [ROWS, COLS/64, 64] with a zero point and scale per group of 64, then Reshape
            w = o8.constant(rng.integers(0, 255, (ROWS, COLS // 64, 64), dtype=np.uint8))
            zp = o8.constant(rng.integers(0, 255, (ROWS, COLS // 64, 1), dtype=np.uint8))
            scale = o8.constant(rng.uniform(1e-3, 1e-2, (ROWS, COLS // 64, 1)).astype(np.float16))
        else:
            w = o8.constant(rng.integers(0, 255, (ROWS, COLS), dtype=np.uint8))
            zp = o8.constant(rng.integers(0, 255, (ROWS, 1), dtype=np.uint8))
            scale = o8.constant(rng.uniform(1e-3, 1e-2, (ROWS, 1)).astype(np.float16))
        sub = o8.subtract(o8.convert(w, "f16"), o8.convert(zp, "f16"))
        weight = o8.multiply(sub, scale)
        if group:
            weight = o8.reshape(weight, o8.constant(np.int64([ROWS, COLS])), False)
        h = o8.matmul(h, o8.convert(weight, "f32"), False, True)
        if i + 1 < layers:
            h = o8.slice(h, [0, 0], [2, COLS], [1, 1])
    path = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([o8.result(h)], [x], "compressed"), path, compress_to_fp16=False)
    return path


def _everything_shown(layer, outs, seconds):  # a hook that reads values: the layer-by-layer path
    pass


@pytest.mark.parametrize("group", [False, True])
def test_blocks_give_the_layer_by_layer_values(tmp_path, group):
    path = _compressed_linear(tmp_path, group=group)
    x = {"x": np.random.default_rng(1).normal(size=(2, COLS)).astype(np.float32)}
    model = load(path)
    assert len(_folded(model).chains) == 2  # both weights are folded in blocks
    blocks = run_model(model, x).outputs
    layered = run_model(load(path), x, on_layer=_everything_shown).outputs
    for key in blocks:
        np.testing.assert_array_equal(blocks[key], layered[key])
    reference = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request().infer(x)[0]
    got = next(iter(blocks.values()))
    assert np.abs(got - reference).max() <= 1e-3 * np.abs(reference).max()


def test_a_limit_the_layer_by_layer_path_exceeds(tmp_path):
    path = _compressed_linear(tmp_path, layers=1)
    x = {"x": np.ones((2, COLS), np.float32)}
    limit = 10 << 20  # the 8 MiB weight fits; with its f16 steps beside it, it does not
    run_model(load(path), x, max_memory=limit)
    with pytest.raises(IRExecError) as e:
        run_model(load(path), x, max_memory=limit, on_layer=_everything_shown)
    assert e.value.code == "memory-limit"


def test_weights_are_kept_within_the_limit_and_recomputed_beyond_it(tmp_path):
    path = _compressed_linear(tmp_path, layers=2)
    x = {"x": np.ones((2, COLS), np.float32)}
    with Session(path) as s:  # default limit: both weights kept after the first run
        first = s.run(x).outputs
        kept = _folded(s.model)
        assert all(c in kept.outputs for c in kept.chains)
        np.testing.assert_array_equal(s.run(x).outputs[s.output_names[0]], first[s.output_names[0]])
    with Session(path, max_memory=12 << 20) as s:  # below the weights' 16 MiB of f32: none kept, each run recomputes
        for _ in range(2):
            np.testing.assert_array_equal(s.run(x).outputs[s.output_names[0]], first[s.output_names[0]])
        kept = _folded(s.model)
        assert not any(c in kept.outputs for c in kept.chains)
