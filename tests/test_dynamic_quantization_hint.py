"""A compressed-weight model compared with OpenVINO CPU's result at the f32 hint fails on most
elements: the plugin quantizes the activations of those MatMuls dynamically.  `irexec run
--compare` names that (and DYNAMIC_QUANTIZATION_GROUP_SIZE=0, with which the same reference
passes), and names it only for a model with compressed weights and an error spread so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder

ov = pytest.importorskip("openvino")

K, N = 256, 512
SETTING = "DYNAMIC_QUANTIZATION_GROUP_SIZE=0"


def _linear(tmp_path: Path, compressed: bool) -> tuple[str, str]:
    """x [1,4,K] times a [N,K] weight: NNCF's u8 decompression chain, or the same weight in f32."""
    rng = np.random.default_rng(0)
    q = rng.integers(0, 256, (N, K)).astype(np.uint8)
    scale = (rng.random((N, 1)) * 0.02).astype(np.float32)
    b = IRBuilder()
    x = b.parameter("x", [1, 4, K], "f32")
    if compressed:
        qf = b.layer("Convert", "opset1", [b.const(q)], {"destination_type": "f32"})
        zf = b.layer("Convert", "opset1", [b.const(np.full((N, 1), 128, np.uint8))], {"destination_type": "f32"})
        w = b.layer("Multiply", "opset1", [b.layer("Subtract", "opset1", [qf, zf]), b.const(scale)])
    else:
        w = b.const(((q.astype(np.float32) - 128) * scale).astype(np.float32))
    b.result(b.layer("MatMul", "opset1", [x, w], {"transpose_a": "false", "transpose_b": "true"}), "logits")
    xml, _ = b.write(tmp_path / f"{'int8' if compressed else 'f32'}.xml")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=rng.standard_normal((1, 4, K)).astype(np.float32))
    return xml, str(inputs)


def _openvino_reference(xml: str, inputs: str, path: Path, **config: object) -> str:
    core = ov.Core()
    compiled = core.compile_model(core.read_model(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32", **config})
    np.savez(path, logits=compiled({"x": np.load(inputs)["x"]})[0])
    return str(path)


def test_openvino_cpus_dynamic_quantization_is_named(tmp_path: Path, run_cli) -> None:
    xml, inputs = _linear(tmp_path, compressed=True)
    default = _openvino_reference(xml, inputs, tmp_path / "ov_default.npz")
    r = run_cli.subprocess("run", xml, "--inputs", inputs, "--compare", default)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "compare-mismatch" in r.stderr and "compressed weights" in r.stderr and SETTING in r.stderr, r.stderr
    # the setting the hint names makes the same model pass at the f32 defaults
    off = _openvino_reference(xml, inputs, tmp_path / "ov_off.npz", DYNAMIC_QUANTIZATION_GROUP_SIZE=0)
    r = run_cli.subprocess("run", xml, "--inputs", inputs, "--compare", off)
    assert r.returncode == 0 and "PASSED" in r.stdout, r.stdout + r.stderr


def test_the_hint_is_given_only_where_it_can_be_the_cause(tmp_path: Path, run_cli, save_npz) -> None:
    import irexec

    compressed, inputs = _linear(tmp_path, compressed=True)
    plain, _ = _linear(tmp_path, compressed=False)
    ours = irexec.run(compressed, dict(np.load(inputs)))["logits"]
    spread = save_npz("spread", logits=(ours * (1 + 0.01 * np.random.default_rng(1).standard_normal(ours.shape)))
                      .astype(np.float32))
    one = ours.copy()
    one[0, 0, 0] += 1.0
    single = save_npz("single", logits=one)
    # an error spread over the tensor: named for the compressed model, not for its f32 twin
    r = run_cli.subprocess("run", compressed, "--inputs", inputs, "--compare", spread)
    assert r.returncode == 1 and SETTING in r.stderr, r.stderr
    r = run_cli.subprocess("run", plain, "--inputs", inputs, "--compare", spread)
    assert r.returncode == 1 and "compare-mismatch" in r.stderr and SETTING not in r.stderr, r.stderr
    # one element wrong: not what 8-bit activations do
    r = run_cli.subprocess("run", compressed, "--inputs", inputs, "--compare", single)
    assert r.returncode == 1 and "compare-mismatch" in r.stderr and SETTING not in r.stderr, r.stderr
