"""irexec's verdict on IR documents of the kinds OpenVINO's own IR-reader tests
use equals OpenVINO's: a file OpenVINO 2026.4 reads and compiles gets no
error from ``irexec check``, a file it refuses gets one.

The corpus (tests/data/ov_ir_cases, written by its generate.py) reproduces
each class where the two once disagreed: content around the root element,
IR v10's ``<pre-process>`` and name rules, opset names, If/Loop port maps,
legacy body dims.  OpenVINO is run in the test as the oracle; ``cases.json``
also pins what OpenVINO says, so a change in OpenVINO shows up as such.
The few deliberate differences are listed there with their reason.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import irexec

ov = pytest.importorskip("openvino")

CORPUS = Path(__file__).resolve().parent / "data" / "ov_ir_cases"
CASES: dict[str, dict] = json.loads((CORPUS / "cases.json").read_text())


def openvino_verdict(xml: Path) -> str:
    core = ov.Core()
    try:
        core.compile_model(core.read_model(str(xml)), "CPU")
    except Exception:  # noqa: BLE001 - any refusal is the verdict
        return "error"
    return "ok"


def copy_case(name: str, tmp_path: Path) -> Path:
    """The case in a folder of its own (OpenVINO refuses symbolic links; a copy is plain)."""
    for suffix in (".xml", ".bin"):
        src = CORPUS / f"{name}{suffix}"
        if src.exists():
            shutil.copy(src, tmp_path / src.name)
    return tmp_path / f"{name}.xml"


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict_matches_openvino(name: str, tmp_path: Path) -> None:
    spec = CASES[name]
    xml = copy_case(name, tmp_path)
    theirs = openvino_verdict(xml)
    assert theirs == spec["openvino"], f"OpenVINO now says {theirs} for {name} ({spec['source']})"
    result = irexec.check(str(xml))
    ours = "error" if result.errors else "ok"
    codes = {d.code for d in result.diagnostics}
    assert set(spec["irexec_codes"]) <= codes, f"{name}: expected {spec['irexec_codes']}, got {sorted(codes)}"
    if "documented_difference" in spec:
        assert ours != theirs, f"{name} is listed as a difference but now agrees: drop the entry"
    else:
        assert ours == theirs, f"{name}: irexec says {ours} ({[str(d) for d in result.errors]}), OpenVINO {theirs}"


@pytest.mark.parametrize("name", sorted(n for n, s in CASES.items() if s["run"]))
def test_run_matches_openvino(name: str, tmp_path: Path) -> None:
    """The files both read also compute the same: the mean values subtracted,
    the If outputs in the order their ids give, the legacy Loop run on its
    inferred shapes."""
    xml = copy_case(name, tmp_path)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(xml)), "CPU")
    model = irexec.load(str(xml))
    rng = np.random.default_rng(len(name))
    feeds = {}
    for p in model.parameters:
        op = model.ops[p.id]
        shape = op.shape.to_tuple()  # type: ignore[union-attr]
        dtype = op.element_type.dtype  # type: ignore[union-attr]
        feeds[p.name] = (rng.standard_normal(shape) * 4).astype(dtype) if dtype != np.bool_ else np.array(True)
    for cond in ([True, False] if "cond" in feeds else [None]):
        if cond is not None:
            feeds["cond"] = np.array(cond)
        ours = list(irexec.run(model, feeds).values())
        theirs = list(compiled([feeds[p.name] for p in model.parameters]).values())
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_pre_process_mean_values_are_subtracted(tmp_path: Path) -> None:
    xml = copy_case("pre_process_v10_mean_values", tmp_path)
    x = np.ones((1, 3, 22, 22), np.float32)
    out = irexec.run(str(xml), {"input": x})
    got = next(iter(out.values()))
    np.testing.assert_array_equal(got[0, :, 0, 0], np.array([1 - 0.5, 1 + 1.25, 1 - 3], np.float32))


def test_leading_whitespace_keeps_every_line_number(tmp_path: Path, write_ir) -> None:  # type: ignore[no-untyped-def]
    """The repaired document is read at the file's own lines: a finding after
    leading blank lines points at the line an editor shows."""
    text = (CORPUS / "leading_newline.xml").read_text()
    bad = text.replace("<dim>22</dim></port>\n            </output>", "<dim>23</dim></port>\n            </output>", 1)
    xml = write_ir("\n\n   \n" + bad.lstrip("\n"), name="lines")
    lines = Path(xml).read_text().splitlines()
    want = next(i for i, line in enumerate(lines, 1) if "<dim>23</dim>" in line)
    found = {d.code: d for d in irexec.check(xml).diagnostics}
    assert found["shape-mismatch"].line == want
    assert found["xml-leading-content"].line == 4  # where <?xml stands


def test_trailing_content_error_names_its_line(tmp_path: Path, write_ir) -> None:  # type: ignore[no-untyped-def]
    text = (CORPUS / "trailing_unpaired_close_tag.xml").read_text()
    xml = write_ir(text, name="tail")
    lines = Path(xml).read_text().splitlines()
    d = irexec.check(xml).errors[0]
    assert d.code == "xml-syntax" and "after </net>" in d.message
    assert lines[d.line - 1].strip() == "</net>" and d.line == len(lines)


def test_check_cli_exit_status_on_the_corpus(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What CI sees: warnings only (exit 0) for what OpenVINO reads, exit 1 for what it refuses."""
    ok = copy_case("trailing_slashes", tmp_path)
    r = run_cli("check", str(ok))
    assert r.exit_code == 0 and "warning[xml-trailing-content]" in r.output
    (tmp_path / "b").mkdir()
    bad = copy_case("wrong_opset_parameter", tmp_path / "b")
    r = run_cli("check", str(bad))
    assert r.exit_code == 1 and "error[unknown-op-version]" in r.output and "Traceback" not in r.output
