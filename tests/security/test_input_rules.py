"""Every input rule lives in inference: seven ops whose check was clean and
whose run ended in an internal error now either refuse the model at check
time with a coded error (and the run with the same code), or compute the
right result."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from irexec.cli import cli
from irexec.model.builder import IRBuilder, Out

Maker = Callable[[IRBuilder, dict[str, np.ndarray]], tuple[Out, list[tuple[list[int], str]]]]


def _param(b: IRBuilder, feeds: dict[str, np.ndarray], name: str, value: np.ndarray, et: str) -> Out:
    feeds[name] = value
    return b.parameter(name, list(value.shape), et)


def _write(tmp_path: Path, make: Maker) -> tuple[Path, Path]:
    """The model as a file, its outputs declared as the test says (not inferred)."""
    b = IRBuilder()
    feeds: dict[str, np.ndarray] = {}
    y = make(b, feeds)
    b.result(y)
    xml, _ = b.write(tmp_path / "model.xml")
    inputs = tmp_path / "inputs.npz"
    np.savez(inputs, **feeds)
    return Path(xml), inputs


F = np.ones((2, 3), np.float32)

REFUSED: dict[str, tuple[Maker, str]] = {
    "rdft-empty-axes": (lambda b, f: b.layer("RDFT", "opset9", [_param(b, f, "x", np.ones((2, 4), np.float32), "f32"),
                                                              b.const(np.zeros(0, np.int64))], outputs=[([2, 4, 2], "f32")]),
                        "bad-value"),
    "prelu-slope-widens-data": (lambda b, f: b.layer("PRelu", "opset1", [_param(b, f, "x", np.ones((1, 4, 4, 1), np.float32), "f32"),
                                                                          b.const(np.ones((1, 4, 3), np.float32))],
                                                     outputs=[([1, 4, 4, 1], "f32")]), "incompatible-inputs"),
    "clamp-min-nan-int": (lambda b, f: b.layer("Clamp", "opset1", [_param(b, f, "x", np.ones((2, 3), np.int32), "i32")],
                                               {"min": "nan", "max": "3"}, outputs=[([2, 3], "i32")]), "bad-attribute"),
    "clamp-min-nan-float": (lambda b, f: b.layer("Clamp", "opset1", [_param(b, f, "x", F, "f32")], {"min": "nan", "max": "3"},
                                                 outputs=[([2, 3], "f32")]), "bad-attribute"),
    "clamp-min-above-max": (lambda b, f: b.layer("Clamp", "opset1", [_param(b, f, "x", F, "f32")], {"min": "4", "max": "3"},
                                                 outputs=[([2, 3], "f32")]), "bad-attribute"),
    "scatter-elements-indices-wider-than-data": (
        lambda b, f: b.layer("ScatterElementsUpdate", "opset12",
                             [_param(b, f, "x", F, "f32"), b.const(np.zeros((2, 7), np.int64)),
                              b.const(np.ones((2, 7), np.float32)), b.const(np.array(0, np.int64))],
                             outputs=[([2, 3], "f32")]), "incompatible-inputs"),
    "sdpa-key-last-dim-broadcast": (
        lambda b, f: b.layer("ScaledDotProductAttention", "opset13",
                             [_param(b, f, "q", np.ones((3, 2, 1, 2), np.float32), "f32"),
                              _param(b, f, "k", np.ones((1, 2, 2, 1), np.float32), "f32"),
                              _param(b, f, "v", np.ones((1, 1, 3), np.float32), "f32")], {"causal": "false"},
                             outputs=[([3, 2, 1, 3], "f32")]), "incompatible-inputs"),
    "sdpa-mask-widens-query": (
        lambda b, f: b.layer("ScaledDotProductAttention", "opset13",
                             [_param(b, f, "q", np.ones((3, 1, 1, 3), np.float32), "f32"),
                              _param(b, f, "k", np.ones((3, 3, 1, 3), np.float32), "f32"),
                              _param(b, f, "v", np.ones((3, 1, 1, 3), np.float32), "f32"),
                              _param(b, f, "m", np.ones((1, 3, 3), np.float32), "f32")], {"causal": "false"},
                             outputs=[([3, 3, 3, 3], "f32")]), "incompatible-inputs"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_at_check_and_run(tmp_path: Path, name: str) -> None:
    make, code = REFUSED[name]
    xml, inputs = _write(tmp_path, make)
    runner = CliRunner()
    checked = runner.invoke(cli, ["check", str(xml)])
    assert checked.exit_code == 1 and f"error[{code}]" in checked.output, checked.output
    ran = runner.invoke(cli, ["run", str(xml), "--inputs", str(inputs)])
    assert ran.exit_code == 1 and f"error[{code}]" in ran.output, ran.output
    assert "Traceback" not in checked.output + ran.output


COMPUTED: dict[str, tuple[Maker, Callable[[dict[str, np.ndarray]], np.ndarray]]] = {
    # an empty index tuple picks all of data (after the batch dims): four copies of it
    "gathernd-empty-tuples": (
        lambda b, f: b.layer("GatherND", "opset8", [_param(b, f, "x", np.arange(6, dtype=np.float32).reshape(2, 3), "f32"),
                                                    b.const(np.zeros((4, 0), np.int64))], {"batch_dims": 0}),
        lambda f: np.stack([f["x"]] * 4)),
    "gathernd-empty-tuples-batch": (
        lambda b, f: b.layer("GatherND", "opset8", [_param(b, f, "x", np.arange(6, dtype=np.float32).reshape(2, 3), "f32"),
                                                    b.const(np.zeros((2, 0), np.int64))], {"batch_dims": 1}),
        lambda f: f["x"]),
    "pad-of-a-scalar": (lambda b, f: b.layer("Pad", "opset12", [_param(b, f, "x", np.array(7, np.float32), "f32"),
                                                                b.const(np.zeros(0, np.int64)), b.const(np.zeros(0, np.int64))],
                                             {"pad_mode": "constant"}),
                        lambda f: f["x"]),
    "sdpa-no-keys": (lambda b, f: b.layer("ScaledDotProductAttention", "opset13",
                                          [_param(b, f, "q", np.ones((1, 2, 4, 8), np.float32), "f32"),
                                           _param(b, f, "k", np.ones((1, 2, 0, 8), np.float32), "f32"),
                                           _param(b, f, "v", np.ones((1, 2, 0, 5), np.float32), "f32")], {"causal": "false"}),
                     lambda f: np.zeros((1, 2, 4, 5), np.float32)),
    "scatter-elements-indices-longer-along-the-axis": (
        lambda b, f: b.layer("ScatterElementsUpdate", "opset12",
                             [_param(b, f, "x", F, "f32"), b.const(np.array([[0, 1, 0], [1, 0, 1], [1, 1, 1]], np.int64)),
                              b.const(np.arange(9, dtype=np.float32).reshape(3, 3) + 10), b.const(np.array(0, np.int64))]),
        lambda f: np.array([[10, 14, 12], [16, 17, 18]], np.float32)),
}


@pytest.mark.parametrize("name", sorted(COMPUTED))
def test_computed(tmp_path: Path, name: str) -> None:
    make, expect = COMPUTED[name]
    xml, inputs = _write(tmp_path, make)
    runner = CliRunner()
    checked = runner.invoke(cli, ["check", str(xml)])
    assert checked.exit_code == 0, checked.output
    out = tmp_path / "out.npz"
    ran = runner.invoke(cli, ["run", str(xml), "--inputs", str(inputs), "-o", str(out)])
    assert ran.exit_code == 0, ran.output
    (value,) = np.load(out).values()
    np.testing.assert_array_equal(value, expect(dict(np.load(inputs))))
