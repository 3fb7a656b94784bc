"""Feeds whose dims grow with one length (a decode step's KV cache and mask) run as a program
learnt per shape pattern (irexec/executor/program_pattern.py): it must give what the layer
loop gives, bit for bit, fall back to the loop where the shapes do not follow one length,
and refuse under a memory limit exactly where the loop does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irexec
from irexec.api.generate import generate
from irexec.api.session import Session
from irexec.base.errors import IRExecError
from irexec.executor import program_pattern
from irexec.model.builder import IRBuilder

SMOLLM = Path(__file__).resolve().parents[1].parent / "shared" / "models" / "smollm_int4_stateful"


def _nothing(layer, outs, seconds) -> None:  # type: ignore[no-untyped-def]
    """A hook that looks at nothing: its runs go through the layer loop, never a program."""


_nothing.reads_values = False  # type: ignore[attr-defined]


class LoggedRuns(Session):
    """A session that keeps every call's outputs; ``loop``: every run through the layer loop."""

    def __init__(self, path: str, loop: bool = False) -> None:
        super().__init__(path)
        self.loop, self.calls = loop, []  # type: ignore[var-annotated]

    def run(self, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        if self.loop:
            kwargs["on_layer"] = _nothing
        result = super().run(*args, **kwargs)
        self.calls.append({k: v.copy() for k, v in result.outputs.items()})
        return result


def _same_generation(xml: str, prompt: dict[str, np.ndarray], new: int, times: int = 1) -> int:
    """Generate through the loop, and ``times`` through the pattern in one session; every
    call's outputs byte for byte the same. The number of runs the pattern served the first time."""
    loop, served = LoggedRuns(xml, loop=True), LoggedRuns(xml)
    want = generate(loop, prompt, new)
    before = program_pattern.served()
    got = generate(served, prompt, new)
    count = program_pattern.served() - before
    for _ in range(times - 1):  # again: the lengths seen, each call's inference kept per length
        assert np.array_equal(generate(served, prompt, new).tokens, want.tokens)
    assert np.array_equal(got.tokens, want.tokens)
    assert len(served.calls) == len(loop.calls) * times == new * times
    for a, b in zip(served.calls, loop.calls * times):
        assert a.keys() == b.keys()
        for name in a:
            assert a[name].dtype == b[name].dtype and a[name].shape == b[name].shape
            assert a[name].tobytes() == b[name].tobytes(), name
    return count


@pytest.mark.skipif(not SMOLLM.is_dir(), reason="needs ../shared/models/smollm_int4_stateful")
def test_smollm_decode_steps_run_by_pattern_give_the_loops_logits():
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 49152, (1, 11)).astype(np.int64)
    # prefill and three decode steps through the loop (the third fits the pattern), then the pattern
    assert _same_generation(str(SMOLLM / "model.xml"), {"input_ids": ids}, 10) == 6
    padded = rng.integers(0, 49152, (2, 7)).astype(np.int64)
    mask = np.ones((2, 7), np.int64)
    mask[1, :3] = 0  # a left-padded row
    assert _same_generation(str(SMOLLM / "model.xml"), {"input_ids": padded, "attention_mask": mask}, 9) == 5


@pytest.mark.parametrize("batch", [1, 2])
def test_a_tiny_lm_and_a_single_cli_generate_take_the_pattern(batch, tmp_path, save_npz, run_cli):
    pytest.importorskip("openvino")
    from stateful_models import save, tiny_lm

    path = save(tiny_lm(), tmp_path)
    ids = np.random.default_rng(batch).integers(0, 50, (batch, 5)).astype(np.int64)
    assert _same_generation(path, {"input_ids": ids}, 12, times=3) == 8
    before = program_pattern.served()
    out = tmp_path / "tokens.npy"
    r = run_cli("generate", path, "-i", save_npz("prompt", input_ids=ids), "-n", 12, "-o", out)
    assert r.exit_code == 0, r.output
    assert program_pattern.served() - before == 8
    assert np.array_equal(np.load(out), generate(LoggedRuns(path, loop=True), {"input_ids": ids}, 12).tokens)


def _growing(builder: IRBuilder, square: bool) -> IRBuilder:
    """x [1, n] -> Concat(x, Range(0, n) as f32) * 2 ([1, 2n]); ``square``: the outer product
    of that row with itself ([2n, 2n]), whose bytes grow as n squared."""
    x = builder.parameter("x", "1,?")
    n = builder.layer("Gather", "opset8", [builder.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}),
                                           builder.const(np.array(1, np.int64)), builder.const(np.array(0, np.int64))],
                      {"batch_dims": "0"})
    counting = builder.layer("Range", "opset4", [builder.const(np.array(0, np.int64)), n,
                                                 builder.const(np.array(1, np.int64))], {"output_type": "f32"})
    row = builder.layer("Concat", "opset1", [x, builder.layer("Unsqueeze", "opset1", [
        counting, builder.const(np.array([0], np.int64))])], {"axis": "1"})
    y = builder.layer("Multiply", "opset1", [row, builder.const(np.array(2, np.float32))])
    if square:
        y = builder.layer("MatMul", "opset1", [y, y], {"transpose_a": "true", "transpose_b": "false"})
    builder.result(y, "y")
    return builder


def _expected(x: np.ndarray, square: bool) -> np.ndarray:
    row = np.concatenate([x, np.arange(x.shape[1], dtype=np.float32)[None]], 1) * np.float32(2)
    return row.T @ row if square else row


@pytest.mark.parametrize("square", [False, True])
def test_growing_feeds_take_a_pattern_only_where_they_fit_one(builder, write_ir, square):
    model = irexec.load(write_ir(_growing(builder, square)))
    rng = np.random.default_rng(0)
    before = program_pattern.served()
    for n in (5, 6, 7, 8, 9, 30, 4):
        x = rng.standard_normal((1, n)).astype(np.float32)
        y = irexec.run(model, {"x": x})["y"]
        assert y.dtype == np.float32 and np.array_equal(y, _expected(x, square)), n
    # the first run keeps the Consts, 6, 7, 8 learn the pattern and 9, 30, 4 follow it; a product
    # whose bytes grow as n squared is not affine in n: every run goes through the layer loop
    assert program_pattern.served() - before == (0 if square else 3)


def _refusal(model, x, limit) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(IRExecError) as caught:
        irexec.run(model, {"x": x}, max_memory=limit)
    assert caught.value.diagnostics[0].code == "memory-limit"
    return str(caught.value)


def test_the_memory_limit_refuses_where_the_layer_loop_does(builder, write_ir):
    path = write_ir(_growing(builder, False))
    learnt = irexec.load(path)
    for n in (5, 6, 7, 8):
        irexec.run(learnt, {"x": np.ones((1, n), np.float32)})
    x = np.ones((1, 250_000), np.float32)  # 1 MB in; the loop holds at most 4 MB (the row, its double)
    before = program_pattern.served()
    assert _refusal(learnt, x, 3_999_999) == _refusal(irexec.load(path), x, 3_999_999)
    # the pattern's bound (each tensor counted from the run's start) would pass 4 MB: the loop runs it
    assert np.array_equal(irexec.run(learnt, {"x": x}, max_memory=4_000_000)["y"], _expected(x, False))
    assert program_pattern.served() == before
    assert np.array_equal(irexec.run(learnt, {"x": x}, max_memory=12_000_000)["y"], _expected(x, False))
    assert program_pattern.served() == before + 1


def _capped(builder: IRBuilder) -> IRBuilder:
    """x [1, n] -> x * 2, and the first min(n, 8) of a Const counting from 0: a value of shape
    arithmetic that is the same at lengths from 8 on, and moves below."""
    x = builder.parameter("x", "1,?")
    n = builder.layer("Gather", "opset8", [builder.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}),
                                           builder.const(np.array([1], np.int64)), builder.const(np.array(0, np.int64))],
                      {"batch_dims": "0"})
    cap = builder.layer("Minimum", "opset1", [n, builder.const(np.array([8], np.int64))])
    head = builder.layer("Slice", "opset8", [builder.const(np.arange(16, dtype=np.float32)), builder.const(np.array([0], np.int64)),
                                             cap, builder.const(np.array([1], np.int64))])
    builder.result(builder.layer("Multiply", "opset1", [x, builder.const(np.array(2, np.float32))]), "y")
    builder.result(head, "head")
    return builder


def test_a_value_taken_as_fixed_that_moves_sends_the_run_to_the_layer_loop(builder, write_ir):
    model = irexec.load(write_ir(_capped(builder)))
    before = program_pattern.served()
    for n in (9, 10, 11, 12, 13, 5, 6, 20):
        x = np.full((1, n), 3, np.float32)
        got = irexec.run(model, {"x": x})
        assert np.array_equal(got["y"], x * 2), n
        assert np.array_equal(got["head"], np.arange(min(n, 8), dtype=np.float32)), n
    # 10, 11, 12 learn (the Slice keeps its plan: its stop was 8 each time), 13 follows the pattern;
    # at 5 the stop moves: the run goes through the loop and the pattern is dropped
    assert program_pattern.served() - before == 1


def _floored(builder: IRBuilder) -> IRBuilder:
    """x [1, n] -> x * 2, and ones [max(n, 12) * 100000]: bytes that grow with n from 12 on
    (4.8 MB at 12), and stay at 4.8 MB below."""
    x = builder.parameter("x", "1,?")
    n = builder.layer("Gather", "opset8", [builder.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}),
                                           builder.const(np.array([1], np.int64)), builder.const(np.array(0, np.int64))],
                      {"batch_dims": "0"})
    size = builder.layer("Multiply", "opset1", [builder.layer("Maximum", "opset1", [n, builder.const(np.array([12], np.int64))]),
                                                builder.const(np.array([100_000], np.int64))])
    ones = builder.layer("Broadcast", "opset3", [builder.const(np.array(1, np.float32)), size], {"mode": "numpy"})
    builder.result(builder.layer("Multiply", "opset1", [x, builder.const(np.array(2, np.float32))]), "y")
    builder.result(ones, "ones")
    return builder


def test_bytes_that_stop_following_the_length_send_the_run_to_the_layer_loop(builder, write_ir):
    path = write_ir(_floored(builder))
    learnt = irexec.load(path)
    for n in (11, 12, 13, 14, 15):  # the first keeps the Consts, 12, 13, 14 learn, 15 follows the pattern
        got = irexec.run(learnt, {"x": np.ones((1, n), np.float32)})
        assert got["ones"].shape == (max(n, 12) * 100_000,)
    before = program_pattern.served()
    # at 5 the pattern's bound would be 2 MB for the ones: the layer loop counts 4.8 MB and refuses
    x = np.ones((1, 5), np.float32)
    assert _refusal(learnt, x, 4_000_000) == _refusal(irexec.load(path), x, 4_000_000)
    got = irexec.run(learnt, {"x": x})
    assert np.array_equal(got["y"], x * 2) and np.array_equal(got["ones"], np.ones(1_200_000, np.float32))
    assert program_pattern.served() == before
