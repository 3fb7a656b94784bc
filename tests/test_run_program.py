"""A plain run on a feed signature seen before runs as a program (irexec/executor/program.py):
the shape layers fixed per signature, the kernels called in a flat loop.  It must give what
the layer loop gives, bit for bit, whichever signatures come in whichever order, and refuse
or fail exactly where the loop does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irexec
from irexec.base.errors import IRExecError
from irexec.model.builder import IRBuilder

BERT = Path(__file__).resolve().parent.parent / ".." / "shared" / "models" / "bert_tiny"


def _flatten_doubled(builder: IRBuilder) -> IRBuilder:
    """x [?, ?] -> Reshape(x, ReduceProd(ShapeOf(x))) * 2: a Reshape target from shape arithmetic."""
    x = builder.parameter("x", "?,?")
    count = builder.layer("ReduceProd", "opset1", [builder.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}),
                                                   builder.const(np.array([0], np.int64))], {"keep_dims": "true"})
    flat = builder.layer("Reshape", "opset1", [x, count], {"special_zero": "false"})
    builder.result(builder.layer("Multiply", "opset1", [flat, builder.const(np.array(2, np.float32))]), "y")
    return builder


def test_signatures_in_turn_give_what_each_gives_alone(builder, write_ir):
    path = write_ir(_flatten_doubled(builder))
    model = irexec.load(path)
    rng = np.random.default_rng(0)
    feeds = {shape: rng.standard_normal(shape).astype(np.float32) for shape in ((2, 3), (4, 5), (1, 7))}
    for _ in range(4):  # each signature is replayed, then run as a program, between the others
        for x in feeds.values():
            y = irexec.run(model, {"x": x})["y"]
            assert y.shape == (x.size,)
            assert np.array_equal(y, x.reshape(-1) * np.float32(2))


@pytest.mark.skipif(not BERT.is_dir(), reason="needs ../shared/models/bert_tiny")
def test_bert_outputs_bit_for_bit_across_signatures():
    full = dict(np.load(BERT / "inputs.npz"))
    signatures = [full, {k: v[:1, :7] for k, v in full.items()}, {k: np.tile(v[:, :5], (2, 1)) for k, v in full.items()}]
    # each signature's first run on a fresh model goes through the layer loop
    alone = [irexec.run(irexec.load(str(BERT / "model.xml")), feeds) for feeds in signatures]
    model = irexec.load(str(BERT / "model.xml"))
    for order in ([0, 1, 2] * 3, [2, 0, 1, 0, 2, 1]):
        for i in order:
            got = irexec.run(model, signatures[i])
            assert got.keys() == alone[i].keys()
            for name, value in got.items():
                assert value.dtype == alone[i][name].dtype and np.array_equal(value, alone[i][name]), (i, name)
    expected = dict(np.load(BERT / "expected.npz"))
    for name, value in irexec.run(model, full).items():
        np.testing.assert_allclose(value, expected[name], rtol=1e-4, atol=1e-4)


def _refusal(model, x, limit) -> str:
    with pytest.raises(IRExecError) as caught:
        irexec.run(model, {"x": x}, max_memory=limit)
    assert "memory-limit" in str(caught.value) or getattr(caught.value, "code", "") == "memory-limit"
    return str(caught.value)


def test_memory_limit_refuses_where_the_layer_loop_does(builder, write_ir):
    path = write_ir(_flatten_doubled(builder))
    x = np.ones((1000, 1000), np.float32)  # 4 MB; the Reshape's view is charged its 4 MB too
    reused = irexec.load(path)
    for _ in range(3):
        irexec.run(reused, {"x": x})  # the signature's program is made
    fresh = _refusal(irexec.load(path), x, 7 << 20)
    assert _refusal(reused, x, 7 << 20) == fresh
    # 8 MiB: the upper bound of a program passes it, the layer loop's exact count does not
    assert np.array_equal(irexec.run(reused, {"x": x}, max_memory=8 << 20)["y"], np.full(10**6, 2, np.float32))
    assert np.array_equal(irexec.run(reused, {"x": x})["y"], np.full(10**6, 2, np.float32))


def test_a_kernel_failure_is_told_as_the_layer_loop_tells_it(builder, write_ir):
    a, b = builder.parameter("a", "?", "i32"), builder.parameter("b", "?", "i32")
    builder.result(builder.layer("Divide", "opset1", [a, b], {"m_pythondiv": "true"}), "q")
    path = write_ir(builder)
    reused = irexec.load(path)
    ones = np.ones(4, np.int32)
    for _ in range(3):
        assert np.array_equal(irexec.run(reused, {"a": ones * 6, "b": ones * 3})["q"], ones * 2)
    zero = {"a": ones, "b": np.array([1, 0, 1, 1], np.int32)}
    with pytest.raises(IRExecError) as fresh:
        irexec.run(irexec.load(path), zero)
    with pytest.raises(IRExecError) as again:
        irexec.run(reused, zero)
    assert str(again.value) == str(fresh.value)
    assert type(again.value) is type(fresh.value)


def test_a_stateful_model_carries_its_state_through_program_runs(tmp_path):
    pytest.importorskip("openvino")
    from stateful_models import accumulator, save

    path = save(accumulator("v6-init"), tmp_path)  # out = state + x, state = out, from fives
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with irexec.Session(path) as session:
        for n in range(1, 9):  # the same signature each time: the later runs are programs
            out = next(iter(session.run({"x": x}).outputs.values()))
            assert np.array_equal(out, 5 + n * x), n
        session.reset_state()
        assert np.array_equal(next(iter(session.run({"x": x}).outputs.values())), 5 + x)
