"""``irexec diff model.pt2 model.xml`` and ``irexec.diff(module, "model.xml", example_inputs=...)``:
an IR against the PyTorch model it was converted from, by torch.export and through TorchScript,
with a converter-like damage (Gelu's approximation switched) named as the origin."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irexec

torch = pytest.importorskip("torch")
ov = pytest.importorskip("openvino")

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "diff-report.schema.json"


class Block(torch.nn.Module):
    """A transformer's MLP half: LayerNorm, Linear, GELU, Linear and the residual."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)
        self.up = torch.nn.Linear(16, 32)
        self.act = torch.nn.GELU()
        self.down = torch.nn.Linear(32, 16)

    def forward(self, x: Any) -> Any:
        return x + self.down(self.act(self.up(self.norm(x))))


def _damaged(xml: Path, name: str, edit: tuple[str, str]) -> Path:
    text = xml.read_text()
    assert edit[0] in text
    out = xml.with_name(f"{name}.xml")
    out.write_text(text.replace(edit[0], edit[1], 1))
    shutil.copy(xml.with_suffix(".bin"), out.with_suffix(".bin"))
    return out


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("torch")
    torch.manual_seed(0)
    module = Block().eval()
    x = torch.randn(1, 6, 16)
    program = torch.export.export(module, (x,))
    torch.export.save(program, d / "model.pt2")
    ov.save_model(ov.convert_model(program), str(d / "exported.xml"), compress_to_fp16=False)
    ov.save_model(ov.convert_model(module, example_input=x), str(d / "scripted.xml"), compress_to_fp16=False)
    np.savez(d / "in.npz", x=x.numpy())
    gelu = ('approximation_mode="ERF"', 'approximation_mode="TANH"')
    eps = ('eps="9.9999997473787516e-06"', 'eps="0.0099999997764825821"')
    return {"dir": d, "module": module, "x": x, "gelu_exported": _damaged(d / "exported.xml", "exported_tanh", gelu),
            "gelu_scripted": _damaged(d / "scripted.xml", "scripted_tanh", gelu),
            "eps_exported": _damaged(d / "exported.xml", "exported_eps", eps),
            "eps_scripted": _damaged(d / "scripted.xml", "scripted_eps", eps)}


def test_a_torch_export_program_matches_per_fx_node(converted: dict[str, Any], run_cli, tmp_path: Path) -> None:
    d = converted["dir"]
    out = tmp_path / "r.json"
    r = run_cli("diff", d / "model.pt2", d / "exported.xml", "--inputs", d / "in.npz", "--json", out,
                "--fail-on", "origin")
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    matched = {m["b"] for m in doc["matching"]["matched"]}
    assert {"linear:0", "gelu:0", "linear_1:0", "add:0"} <= matched  # FX node names, kept as tensor names
    assert {s["name"]: s["role"] for s in doc["sides"]} == {"irexec": "compared", "torch": "reference"}
    r = run_cli("diff", d / "model.pt2", converted["gelu_exported"], "--inputs", d / "in.npz", "--fail-on", "origin")
    assert r.exit_code == 1 and "ORIGIN (1)" in r.output and "gelu/aten.gelu.default/Gelu (Gelu-7)" in r.output


def test_a_live_module_matches_per_module_path(converted: dict[str, Any]) -> None:
    d, module, x = converted["dir"], converted["module"], converted["x"]
    report = irexec.diff(module, str(d / "scripted.xml"), example_inputs=(x,))
    assert report.origins == [] and report.outputs_within
    assert report.matching is not None and report.matching["counts"] == {"module path": 4}
    report = irexec.diff(module, str(converted["gelu_scripted"]), example_inputs=(x,))
    assert [r.name for r in report.origins] == ["__module.act/aten::gelu/Gelu"]


@pytest.mark.parametrize("how", ["exported", "scripted"])
def test_a_changed_normalisation_epsilon_is_named(converted: dict[str, Any], how: str) -> None:
    """The MVN of LayerNorm's conversion has no counterpart: it is re-run with the first matched layer after it."""
    d = converted["dir"]
    if how == "exported":
        report = irexec.diff(str(d / "model.pt2"), str(converted["eps_exported"]), inputs=str(d / "in.npz"))
    else:
        report = irexec.diff(converted["module"], str(converted["eps_scripted"]), example_inputs=(converted["x"],))
    assert len(report.origins) == 1, [r.name for r in report.origins]
    assert any("MVN" in name for name in report.origins[0].replayed_with)


def test_example_inputs_only_for_a_live_module(converted: dict[str, Any]) -> None:
    with pytest.raises(irexec.UsageError, match="example_inputs"):
        irexec.diff(str(converted["dir"] / "exported.xml"), str(converted["dir"] / "scripted.xml"),
                    example_inputs=(converted["x"],))


# ------------------------------------------------------------------ the committed pairs (make_conversion_pairs.py)

PAIRS = Path(__file__).resolve().parent / "data" / "conversion_pairs"
TORCH_DAMAGES: dict[str, str] = json.loads((PAIRS / "damages_torch.json").read_text())


@pytest.mark.parametrize("damaged", sorted(TORCH_DAMAGES))
def test_each_damage_of_a_torch_export_conversion_is_the_first_origin(tmp_path: Path, run_cli, damaged: str) -> None:
    arch = damaged.split("_")[0]
    out = tmp_path / "r.json"
    r = run_cli("diff", PAIRS / f"{arch}.pt2", PAIRS / f"{damaged}.xml", "--inputs", PAIRS / f"{arch}_in.npz",
                "--json", out, "--fail-on", "origin")
    assert r.exit_code == 1, r.output
    doc = json.loads(out.read_text())
    first = next(layer for layer in doc["layers"] if layer["name"] == doc["origins"][0])
    assert TORCH_DAMAGES[damaged] in [first["name"], *first.get("replayed_with", [])], doc["origins"]


@pytest.mark.parametrize("arch", ["cnn", "transformer"])
def test_undamaged_torch_export_conversions_show_no_origin(run_cli, arch: str) -> None:
    r = run_cli("diff", PAIRS / f"{arch}.pt2", PAIRS / f"{arch}_pt.xml", "--inputs", PAIRS / f"{arch}_in.npz",
                "--fail-on", "origin")
    assert r.exit_code == 0 and "outputs within stated accuracy" in r.output, r.output
