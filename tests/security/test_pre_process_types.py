"""Legacy ``<pre-process>`` mean values on an input whose type nothing subtracts
from: a coded error at the section's line in ``check`` and in ``run``, never an
internal one; types that compute still run."""

from __future__ import annotations

from pathlib import Path

import pytest

CASE = Path(__file__).resolve().parents[1] / "data" / "ov_ir_cases" / "pre_process_v10_mean_values.xml"
PRECISION = {"boolean": "BOOL", "u3": "U3", "u6": "U6", "nf4": "NF4", "i8": "I8", "f8e4m3": "F8E4M3", "u1": "BIN"}


def _model(tmp_path: Path, etype: str, means: tuple[str, str, str] = ("0.5", "-1.25", "3")) -> Path:
    text = CASE.read_text().replace('element_type="f32"', f'element_type="{etype}"')
    text = text.replace('precision="FP32"', f'precision="{PRECISION[etype]}"')
    for old, new in zip(("0.5", "-1.25", "3"), means):
        text = text.replace(f'<mean value="{old}"/>', f'<mean value="{new}"/>')
    path = tmp_path / f"{etype}.xml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("etype", ["boolean", "u3", "u6", "nf4"])
def test_means_on_a_type_nothing_subtracts_from(etype: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _model(tmp_path, etype, ("0", "1", "1"))
    for args in (["check", xml], ["run", xml]):
        r = run_cli(*args)
        assert r.exit_code == 1, r.output
        assert f"{xml.name}:3: error[bad-pre-process]" in r.output and etype in r.output, r.output


def test_openvino_refuses_means_on_booleans(tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    with pytest.raises(Exception, match="Subtract"):
        ov.Core().read_model(str(_model(tmp_path, "boolean", ("0", "1", "1"))))


@pytest.mark.parametrize("etype", ["i8", "f8e4m3", "u1"])
def test_means_on_types_that_compute_still_run(etype: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _model(tmp_path, etype, ("0", "1", "1"))
    assert run_cli("check", xml).exit_code == 0
    r = run_cli("run", xml)
    assert r.exit_code == 0 and "output" in r.output, r.output
