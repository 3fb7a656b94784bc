"""A program's elementwise steps written in place (irexec/executor/in_place.py): an Add,
Subtract or Multiply whose input it alone reads, made by a MatMul, Transpose or another
such step, writes its result there.  Outputs stay bit for bit those of the
layer loop (NaN, infinities and -0 included); feeds, outputs and tensors another layer
still reads are never written; the memory limit refuses where the layer loop does."""

from __future__ import annotations

import numpy as np
import pytest
from program_runs import memory_limit_held, program_built, repeated_runs_match_the_loop, same_outputs, same_without, special_values

import irexec
from irexec.executor import fusions
from irexec.model.builder import IRBuilder

RNG = np.random.default_rng(11)


def _matmul(b: IRBuilder, x, c_in: int, c_out: int):
    w = (RNG.standard_normal((c_out, c_in)) * 0.4).astype(np.float32)
    return b.layer("MatMul", "opset1", [x, b.const(w)], {"transpose_a": "false", "transpose_b": "true"})


def _transpose(b: IRBuilder, x, order: list[int]):
    return b.layer("Transpose", "opset1", [x, b.const(np.array(order, np.int64))])


def _convnext_block(channels: int = 8, size: int = 6, raw_output: bool = False) -> IRBuilder:
    """ConvNeXt's pointwise half: channels last, MatMul + bias, Gelu, MatMul, layer
    scale, channels first again, residual Add with the block's input (a feed)."""
    b = IRBuilder()
    x = b.parameter("x", [1, channels, size, size])
    t = _transpose(b, x, [0, 2, 3, 1])
    bias = (RNG.standard_normal(4 * channels)).astype(np.float32)
    h = b.layer("Add", "opset1", [_matmul(b, t, channels, 4 * channels), b.const(bias)])
    g = b.layer("Gelu", "opset7", [h], {"approximation_mode": "ERF"})
    m = _matmul(b, g, 4 * channels, channels)
    gamma = (RNG.standard_normal(channels) * 0.1).astype(np.float32)
    s = b.layer("Multiply", "opset1", [b.const(gamma), m])
    y = b.layer("Add", "opset1", [x, _transpose(b, s, [0, 3, 1, 2])])
    b.result(y, "y")
    if raw_output:  # the second MatMul's output is an output too: the Multiply must not write it
        b.result(m, "raw")
    return b


def _special_values(shape) -> np.ndarray:
    return special_values(RNG, shape, nan=True)


def _in_place_kinds(calls: list) -> list[str]:
    names = [getattr(call[2], "__qualname__", "") for call in calls]
    return [name.split(".")[0] for name in names if name.startswith("_binary_into")]


@pytest.mark.parametrize("channels, size", [(8, 6), (16, 24)])
def test_convnext_block_bit_for_bit_with_the_layer_loop(write_ir, monkeypatch, channels, size):
    path = write_ir(_convnext_block(channels, size))
    feeds = {"x": _special_values((1, channels, size, size))}
    kept = feeds["x"].copy()
    program = program_built(path, feeds, monkeypatch)
    # the bias Add and the layer scale write in place; the residual Add writes into the
    # Transpose's output (its other input is the feed)
    assert _in_place_kinds(program.calls) == ["_binary_into"] * 3
    assert feeds["x"].tobytes() == kept.tobytes()  # the feed is never written


def test_without_in_place_the_same_bits(write_ir, monkeypatch):
    """The program with its in-place steps against one without, on every special value."""
    path = write_ir(_convnext_block(16, 24))
    same_without(path, {"x": _special_values((1, 16, 24, 24))}, monkeypatch, fusions, "write_in_place")


def test_an_input_read_elsewhere_or_returned_is_not_written(write_ir, builder):
    """A MatMul's output that is also an output of the model keeps its own values."""
    path = write_ir(_convnext_block(raw_output=True))
    repeated_runs_match_the_loop(path, {"x": _special_values((1, 8, 6, 6))})
    # and a tensor two layers read: the first Add must leave it for the second
    b = builder
    x = b.parameter("x", [2, 5, 8])
    m = _matmul(b, x, 8, 8)
    first = b.layer("Add", "opset1", [m, b.const(np.ones(8, np.float32))])
    b.result(b.layer("Multiply", "opset1", [first, m]), "y")
    path = write_ir(b, "shared")
    repeated_runs_match_the_loop(path, {"x": _special_values((2, 5, 8))})


def test_a_view_of_a_feed_is_not_written(write_ir, builder):
    """A Reshape hands on a view of the feed: the Add after it allocates."""
    b = builder
    x = b.parameter("x", [4, 6])
    r = b.layer("Reshape", "opset1", [x, b.const(np.array([2, 12], np.int64))], {"special_zero": "false"})
    b.result(b.layer("Add", "opset1", [r, b.const(np.full(12, 0.5, np.float32))]), "y")
    path = write_ir(b)
    feeds = {"x": _special_values((4, 6))}
    kept = feeds["x"].copy()
    repeated_runs_match_the_loop(path, feeds)
    assert feeds["x"].tobytes() == kept.tobytes()


def test_in_place_keeps_the_memory_limit(write_ir):
    """Steps that allocate nothing are still charged as before: a limit the layer loop
    refuses is refused by the program with the same message, and one it passes passes."""
    path = write_ir(_convnext_block(16, 24))
    memory_limit_held(path, {"x": _special_values((1, 16, 24, 24))}, 200 << 10, 1 << 20)


def test_cli_repeated_runs_give_the_layer_loop_bits(write_ir, save_npz, run_cli, tmp_path):
    path = write_ir(_convnext_block(16, 24))
    x = _special_values((1, 16, 24, 24))
    inputs = save_npz(x=x)
    loop = irexec.run(irexec.load(path), {"x": x})
    out = tmp_path / "out.npz"
    done = run_cli.subprocess("run", path, "--inputs", inputs, "--repeat", "4", "--output", out)
    assert done.returncode == 0, done.stderr
    with np.load(out) as got:
        same_outputs(dict(got), loop)
