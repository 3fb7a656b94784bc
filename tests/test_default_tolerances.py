"""`run --compare` at its default tolerances passes a correct run of a long
reduction against OpenVINO, fails a run whose weight is 0.1% off, and is exact
for an output the graph only moves (a few ulps off fails)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import oracle

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _matmul_model(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """x f32[2,4096] @ W f32[4096,64] then Relu: a reduction over 4096 terms."""
    rng = np.random.default_rng(7)
    x = oracle.parameter([2, 4096], "f32", "x")
    w = rng.normal(0, 1, (4096, 64)).astype(np.float32)
    y = ops.relu(ops.matmul(x, ops.constant(w), False, False))
    y.output(0).get_tensor().set_names({"y"})
    xml = tmp_path / "good" / "model.xml"
    xml.parent.mkdir()
    oracle.save(ov.Model([y], [x], "mm"), xml)
    return xml, {"x": rng.normal(0, 1, (2, 4096)).astype(np.float32)}


def _scale_weight(xml: Path, dst: Path, factor: float) -> Path:
    """A copy of the model whose f32[4096,64] Const is scaled by ``factor``."""
    dst.mkdir()
    shutil.copy(xml, dst / "model.xml")
    text = xml.read_text()
    m = re.search(r'<data element_type="f32" shape="4096, 64" offset="(\d+)" size="(\d+)"', text)
    assert m, "the weight Const is not where it was written"
    offset, size = int(m[1]), int(m[2])
    raw = bytearray((xml.parent / "model.bin").read_bytes())
    w = np.frombuffer(bytes(raw[offset:offset + size]), np.float32) * np.float32(factor)
    raw[offset:offset + size] = w.astype(np.float32).tobytes()
    (dst / "model.bin").write_bytes(bytes(raw))
    return dst / "model.xml"


def test_a_correct_long_matmul_passes_and_a_weight_off_by_0_1_percent_fails(tmp_path, run_cli, save_npz):
    xml, feeds = _matmul_model(tmp_path)
    expected = oracle.run_ir(xml, feeds)
    inputs = save_npz("inputs", **feeds)
    ref = save_npz("expected", y=expected["y"])
    ok = run_cli.subprocess("run", xml, "-q", "--inputs", inputs, "--compare", ref)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASSED" in ok.stdout and "x max|ref|" in ok.stdout, ok.stdout
    bad_xml = _scale_weight(xml, tmp_path / "scaled", 1.001)
    bad = run_cli.subprocess("run", bad_xml, "-q", "--inputs", inputs, "--compare", ref)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "FAILED: 1 of 1 output(s)" in bad.stdout, bad.stdout
    assert "error[compare-mismatch] output 'y'" in bad.stderr, bad.stderr
    # --atol 0 --rtol 0 stays exact: the correct run differs from OpenVINO's summation order
    exact = run_cli.subprocess("run", xml, "-q", "--inputs", inputs, "--compare", ref, "--atol", "0", "--rtol", "0")
    assert "exact (atol=0, rtol=0), as given" in exact.stdout + exact.stderr


def test_a_moved_float_output_is_exact_a_few_ulps_off_fail(tmp_path, run_cli, save_npz):
    d = EXAMPLES / "shape-subgraph"
    expected = dict(np.load(d / "expected.npz"))
    ok = run_cli("run", d / "model.xml", "-q", "--inputs", d / "inputs.npz", "--compare", d / "expected.npz")
    assert ok.exit_code == 0, ok.output
    assert "exact (atol=0, rtol=0), the graph only moves data" in ok.output
    off = expected["output"].copy()
    flat = off.reshape(-1)
    k = int(np.flatnonzero(flat)[0])
    flat[k] = np.nextafter(np.nextafter(np.nextafter(flat[k], np.float32(np.inf)), np.float32(np.inf)),
                           np.float32(np.inf))  # 3 ulps
    bad = run_cli("run", d / "model.xml", "-q", "--inputs", d / "inputs.npz",
                  "--compare", save_npz("off", output=off))
    assert bad.exit_code == 1, bad.output
    assert "1 of " in bad.output and "differ beyond exact (atol=0, rtol=0), the graph only moves data" in bad.output


def test_an_integer_output_one_off_fails(tmp_path, run_cli, save_npz):
    d = EXAMPLES / "gather-example-1"
    off = dict(np.load(d / "expected.npz"))["output"].copy()
    off[0] += 1
    bad = run_cli("run", d / "model.xml", "-q", "--inputs", d / "inputs.npz", "--compare", save_npz("off", output=off))
    assert bad.exit_code == 1 and "FAILED" in bad.output, bad.output
