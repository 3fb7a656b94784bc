"""``irexec diff SOURCE MODEL.xml --extract DIR``: the smallest IR that reproduces the first origin of a
conversion, with the source's own tensors as its inputs and expected outputs.

The damaged IRs are tests/data/conversion_pairs (make_conversion_pairs.py): copies of OpenVINO's
conversions of a CNN and a transformer block with one converter-like edit each.  The extracted model,
run by irexec at the command line (and by OpenVINO), departs from the source's tensor by the planted
amount; an undamaged conversion extracts nothing."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irexec

pytest.importorskip("onnxruntime")

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "tests" / "data" / "conversion_pairs"
DAMAGES: dict[str, str] = json.loads((PAIRS / "damages.json").read_text())  # damaged IR -> the layer damaged
TORCH_DAMAGES: dict[str, str] = json.loads((PAIRS / "damages_torch.json").read_text())
FILES = ["README.md", "expected.npz", "inputs.npz", "model.bin", "model.xml"]


def _layer_names(xml: Path) -> list[str]:
    from lxml import etree

    return [el.get("name") for el in etree.parse(str(xml)).iter("layer")]


def _extracted(tmp_path: Path, run_cli, source: Path, damaged: Path, *more: Any) -> tuple[Path, dict]:
    """Diff with --extract; the folder and the JSON report."""
    folder, out = tmp_path / "repro", tmp_path / "r.json"
    r = run_cli("diff", source, damaged, *more, "--json", out, "--fail-on", "origin", "--extract", folder)
    assert r.exit_code == 1, r.output
    assert f"the reproducer of {json.loads(out.read_text())['finding']} is in {folder}" in r.output
    assert sorted(p.name for p in folder.iterdir()) == FILES
    return folder, json.loads(out.read_text())


def _run_extracted(run_cli, folder: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(inputs, what `irexec run` gives for them, what the source computed): the folder's own files."""
    got = folder.parent / "got.npz"
    done = run_cli.subprocess("run", folder / "model.xml", "--inputs", folder / "inputs.npz", "--output", got)
    assert done.returncode == 0, done.stderr
    return dict(np.load(folder / "inputs.npz")), dict(np.load(got)), dict(np.load(folder / "expected.npz"))


def _departure(got: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> float:
    assert sorted(got) == sorted(expected) and expected
    return max(float(np.abs(got[k].astype(np.float64) - expected[k].astype(np.float64)).max()) for k in expected)


def _origin(doc: dict) -> dict:
    return next(layer for layer in doc["layers"] if layer["name"] == doc["finding"])


def test_a_changed_relu6_bound_is_extracted_with_the_planted_departure(tmp_path: Path, run_cli) -> None:
    folder, doc = _extracted(tmp_path, run_cli, PAIRS / "cnn.onnx", PAIRS / "cnn_relu6_bound.xml")
    assert _layer_names(folder / "model.xml") == ["input0", "relu6", "output0"]  # the layer alone
    inputs, got, expected = _run_extracted(run_cli, folder)
    x = inputs["input0"]
    # the source clips at 6, the damaged conversion at 3: exactly that, on the source's own tensor
    assert np.array_equal(got["output0"], np.clip(x, 0, 3))
    assert np.allclose(expected["output0"], np.clip(x, 0, 6), rtol=0, atol=1e-6)
    planted = float((np.minimum(x, 6) - 3).max())
    assert planted > 0.5 and _departure(got, expected) == pytest.approx(planted, abs=1e-6)
    assert _departure(got, expected) == pytest.approx(_origin(doc)["local"]["max_abs_error"], rel=1e-6)
    compare = run_cli.subprocess("run", folder / "model.xml", "--inputs", folder / "inputs.npz",
                                 "--compare", folder / "expected.npz")
    assert compare.returncode == 1  # the README's command line shows it too


@pytest.mark.parametrize("damaged", ["transformer_gelu_tanh", "transformer_layernorm_eps", "transformer_transpose_b"])
def test_each_transformer_damage_departs_in_the_extracted_ir(tmp_path: Path, run_cli, damaged: str) -> None:
    folder, doc = _extracted(tmp_path, run_cli, PAIRS / "transformer.onnx", PAIRS / f"{damaged}.xml")
    origin = _origin(doc)
    names = _layer_names(folder / "model.xml")
    assert DAMAGES[damaged] in names  # the damaged layer, alone or with the group it was re-run with
    assert set(names) - {"output0"} - {n for n in names if n.startswith(("input", "Const_"))} == \
        {origin["name"], *origin.get("replayed_with", [])}
    inputs, got, expected = _run_extracted(run_cli, folder)
    departure = _departure(got, expected)
    assert departure == pytest.approx(origin["local"]["max_abs_error"], rel=1e-5)
    if damaged == "transformer_gelu_tanh":  # the source's exact Gelu against the IR's tanh approximation
        x = inputs["input0"].astype(np.float64)
        erf = 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
        tanh = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        assert np.allclose(expected["output0"], erf, atol=1e-5) and np.allclose(got["output0"], tanh, atol=1e-5)
        assert departure == pytest.approx(float(np.abs(erf - tanh).max()), rel=0.05)
    else:
        assert departure > 1e-2


def test_the_readme_snippet_runs_and_names_the_command(tmp_path: Path, run_cli) -> None:
    folder, doc = _extracted(tmp_path, run_cli, PAIRS / "transformer.onnx", PAIRS / "transformer_layernorm_eps.xml")
    readme = (folder / "README.md").read_text()
    assert f"irexec diff {PAIRS / 'transformer.onnx'} {PAIRS / 'transformer_layernorm_eps.xml'}" in readme
    assert "--extract" in readme and "irexec run model.xml --inputs inputs.npz --compare expected.npz" in readme
    snippet = readme.split("```python\n", 1)[1].split("```", 1)[0]
    done = subprocess.run([sys.executable, "-c", snippet], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line.split() for line in done.stdout.splitlines()}
    words = lines["irexec"]
    assert float(words[words.index("departure") + 1]) == pytest.approx(_origin(doc)["local"]["max_abs_error"], rel=1e-5)


def test_openvino_departs_from_the_source_on_the_extracted_ir(tmp_path: Path, run_cli) -> None:
    ov = pytest.importorskip("openvino")
    folder, doc = _extracted(tmp_path, run_cli, PAIRS / "transformer.onnx", PAIRS / "transformer_layernorm_eps.xml")
    compiled = ov.Core().compile_model(str(folder / "model.xml"), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    inputs, got, expected = _run_extracted(run_cli, folder)
    result = compiled(inputs)
    from_ov = {k: np.asarray(result[k]) for k in expected}
    departure = _departure(from_ov, expected)
    assert departure > 1e-2  # the damage is in the IR: OpenVINO departs as irexec does
    assert departure == pytest.approx(_departure(got, expected), rel=1e-3)


@pytest.mark.parametrize("arch", ["cnn", "transformer"])
def test_an_undamaged_conversion_extracts_nothing(tmp_path: Path, run_cli, arch: str) -> None:
    folder = tmp_path / "repro"
    r = run_cli("diff", PAIRS / f"{arch}.onnx", PAIRS / f"{arch}.xml", "--fail-on", "origin", "--extract", folder)
    assert r.exit_code == 0, r.output
    assert not folder.exists() and f"no origin: nothing was extracted to {folder}" in r.output
    assert list(tmp_path.iterdir()) == []  # no temporary left either


def test_a_folder_that_cannot_be_written_leaves_nothing(tmp_path: Path, run_cli) -> None:
    folder = tmp_path / "repro"
    folder.mkdir()
    (folder / "mine.txt").write_text("kept")
    r = run_cli.subprocess("diff", PAIRS / "cnn.onnx", PAIRS / "cnn_relu6_bound.xml", "--extract", folder)
    assert r.returncode == 1 and "error[cannot-write-output]" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repro"] and [p.name for p in folder.iterdir()] == ["mine.txt"]


def test_the_python_call_takes_extract(tmp_path: Path) -> None:
    folder = tmp_path / "repro"
    report = irexec.diff(str(PAIRS / "cnn.onnx"), str(PAIRS / "cnn_relu6_bound.xml"), extract=str(folder))
    assert report.finding is not None and report.finding.name == "relu6"
    assert sorted(p.name for p in folder.iterdir()) == FILES
    with pytest.raises(irexec.UsageError, match="extract"):
        irexec.diff(str(PAIRS / "cnn.xml"), str(PAIRS / "cnn_relu6_bound.xml"), extract=str(tmp_path / "other"))
    assert not (tmp_path / "other").exists()


def test_extract_with_two_irs_is_a_usage_error(tmp_path: Path, run_cli) -> None:
    r = run_cli.subprocess("diff", PAIRS / "cnn.xml", PAIRS / "cnn_relu6_bound.xml", "--extract", tmp_path / "x")
    assert r.returncode == 2 and "error[diff-usage]" in r.stderr and "--extract" in r.stderr, r.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("damaged", ["transformer_pt_gelu_tanh", "cnn_pt_relu6_bound"])
def test_a_torch_export_source_is_extracted(tmp_path: Path, run_cli, damaged: str) -> None:
    pytest.importorskip("torch")
    arch = damaged.split("_")[0]
    folder, doc = _extracted(tmp_path, run_cli, PAIRS / f"{arch}.pt2", PAIRS / f"{damaged}.xml",
                             "--inputs", PAIRS / f"{arch}_in.npz")
    assert TORCH_DAMAGES[damaged] in _layer_names(folder / "model.xml")
    _, got, expected = _run_extracted(run_cli, folder)
    departure = _departure(got, expected)
    assert departure == pytest.approx(_origin(doc)["local"]["max_abs_error"], rel=1e-4)
    assert departure > 1e-4


def test_a_live_module_is_extracted_from_python(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    ov = pytest.importorskip("openvino")

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.up, self.act, self.down = torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 16)

        def forward(self, x: Any) -> Any:
            return x + self.down(self.act(self.up(x)))

    torch.manual_seed(0)
    module, x = Block().eval(), torch.randn(1, 6, 16)
    xml = tmp_path / "scripted.xml"
    ov.save_model(ov.convert_model(module, example_input=x), str(xml), compress_to_fp16=False)
    xml.write_text(xml.read_text().replace('approximation_mode="ERF"', 'approximation_mode="TANH"', 1))
    folder = tmp_path / "repro"
    report = irexec.diff(module, str(xml), example_inputs=(x,), extract=str(folder))
    assert report.finding is not None and report.finding.name == "__module.act/aten::gelu/Gelu"
    assert sorted(p.name for p in folder.iterdir()) == FILES
    readme = (folder / "README.md").read_text()
    assert f"irexec.diff(module, {str(xml)!r}, example_inputs=example_inputs, extract={str(folder)!r})" in readme
    got = irexec.Session(str(folder / "model.xml")).run(dict(np.load(folder / "inputs.npz"))).outputs
    departure = _departure({k: np.asarray(v) for k, v in got.items()}, dict(np.load(folder / "expected.npz")))
    assert departure == pytest.approx(report.finding.local.max_abs_error, rel=1e-4) and departure > 1e-5  # type: ignore[union-attr]
