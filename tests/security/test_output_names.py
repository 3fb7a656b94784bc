"""Every output format survives any bytes in a file name or a layer name.

A file name that is not UTF-8 in a checked folder used to end --format sarif
and --format gitlab in an internal error, with no report for any file; layer
and tensor names holding a line break and ``::error ...::`` forged GitHub
Actions workflow commands in ``irexec run`` and ``irexec inspect``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ["text", "json", "sarif", "gitlab", "junit", "github"]


def irexec(*args: str | bytes | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    full = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    if "GITHUB_ACTIONS" not in (env or {}):
        full.pop("GITHUB_ACTIONS", None)  # the suite may itself run under GitHub Actions
    return subprocess.run([sys.executable, "-m", "irexec", *args], capture_output=True, timeout=300, env=full)


def _forged_model(directory: Path) -> tuple[Path, Path]:
    """Every name a line break away from a workflow command."""
    b = IRBuilder()
    x = b.parameter("x\n::error title=forged::parameter", [2], "f32", names=["::error title=forged::tensor"])
    y = b.layer("Relu", "opset1", [x], name="relu\r\n::error title=forged::layer", names=["y\n::warning::output"])
    b.result(y, name="::add-mask::result")
    xml, _ = b.write(directory / "model.xml")
    inputs = directory / "inputs.npz"
    np.savez(inputs, **{"x\n::error title=forged::parameter": np.ones(2, np.float32)})
    return Path(xml), inputs


def workflow_commands(log: str) -> list[str]:
    """The workflow commands a GitHub Actions runner would act on in ``log``
    (stop-commands holds them until its token comes back)."""
    found, token = [], None
    for line in re.split(r"\r\n|\r|\n", log):
        line = line.strip()
        if token is not None:
            if line == f"::{token}::":
                token = None
            continue
        m = re.match(r"^::([A-Za-z-]+)", line)
        if m:
            if m.group(1) == "stop-commands":
                token = line.split("::")[2]
            else:
                found.append(line)
    return found


@pytest.mark.parametrize("command", [["run", "{xml}", "--inputs", "{inputs}"], ["run", "{xml}"],
                                     ["inspect", "{xml}"], ["inspect", "{xml}", "--shapes"],
                                     ["check", "{xml}", "--format", "text"], ["check", "{xml}"]])
def test_names_forge_no_workflow_command(tmp_path: Path, command: list[str]) -> None:
    xml, inputs = _forged_model(tmp_path)
    args = [a.format(xml=xml, inputs=inputs) for a in command]
    proc = irexec(*args, env={"GITHUB_ACTIONS": "true"})
    assert proc.returncode == 0, proc.stderr
    log = proc.stdout.decode() + proc.stderr.decode()
    assert "::error title=forged" in log or "::warning::output" in log or command[0] == "check"  # the names are shown...
    assert workflow_commands(log) == []  # ...and none of them is acted on


def test_table_cells_never_break_a_line(tmp_path: Path) -> None:
    xml, inputs = _forged_model(tmp_path)
    out = irexec("run", xml, "--inputs", inputs).stdout.decode()
    assert "::stop-commands::" not in out  # outside GitHub Actions: no hold
    assert "y\\n::warning::output" in out and not any(line.startswith("::warning") for line in out.splitlines())


def test_check_github_annotations_still_work(tmp_path: Path) -> None:
    (tmp_path / "broken.xml").write_text("<net><layers>")
    proc = irexec("check", tmp_path, env={"GITHUB_ACTIONS": "true"})
    assert proc.returncode == 1
    found = workflow_commands(proc.stdout.decode())
    assert len(found) == 1 and found[0].startswith("::error file=") and "xml-syntax" in found[0]


@pytest.mark.skipif(sys.platform != "linux", reason="file names of arbitrary bytes")
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_name_that_is_not_utf8(tmp_path: Path, fmt: str) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    raw = os.fsencode(folder) + b"/bad\xff\xfe.xml"
    with open(raw, "wb") as f:
        f.write(b"<net><layers>")
    xml, _ = _forged_model(tmp_path)
    (folder / "good.xml").write_bytes(xml.read_bytes())
    (folder / "good.bin").write_bytes(xml.with_suffix(".bin").read_bytes())
    out = tmp_path / f"report.{fmt}"
    for target in (["--output-file", str(out)], []):
        proc = irexec("check", folder, "--format", fmt, *target)
        assert proc.returncode == 1, proc.stderr
        assert b"internal error" not in proc.stderr and b"Traceback" not in proc.stderr
    report = out.read_bytes().decode("utf-8")  # valid UTF-8
    printed = proc.stdout.decode("utf-8")
    assert printed == report or fmt == "junit"  # (junit carries the seconds taken)
    if fmt in ("json", "sarif", "gitlab"):
        data = json.loads(report)
        text = json.dumps(data)
        assert "good.xml" in text or fmt != "json"
        if fmt == "sarif":
            uris = [loc["physicalLocation"]["artifactLocation"]["uri"] for r in data["runs"][0]["results"] for loc in r["locations"]]
            assert any(u.endswith("bad%FF%FE.xml") for u in uris), uris
        if fmt == "gitlab":
            again = json.loads(irexec("check", folder, "--format", fmt).stdout)
            assert [i["fingerprint"] for i in data] == [i["fingerprint"] for i in again]
            assert any(os.fsencode(i["location"]["path"]).endswith(b"bad\xff\xfe.xml") for i in data)
    elif fmt == "junit":  # lxml writes the undecodable bytes as replacement characters
        assert "bad\ufffd\ufffd.xml" in report
    else:
        assert "bad\\xff\\xfe.xml" in report


@pytest.mark.skipif(sys.platform != "linux", reason="file names of arbitrary bytes")
def test_run_reports_a_model_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """The run report, the dump index and every file a run writes name the model by
    its bytes (JSON reads the \\udcXX escape back to them), into paths of any bytes."""
    xml, inputs = _forged_model(tmp_path)
    folder = os.fsencode(tmp_path)
    model = folder + b"/model\xff.xml"
    os.rename(os.fsencode(xml), model)
    os.rename(os.fsencode(xml.with_suffix(".bin")), folder + b"/model\xff.bin")
    out = folder + b"/out\xfe"
    proc = irexec("run", model, "--inputs", inputs, "--report", out + b".json", "--dump", out + b".d",
                  "--output", out + b".npz", "--save-inputs", out + b".in.npz")
    assert proc.returncode == 0 and b"internal error" not in proc.stderr, proc.stderr
    with open(out + b".json", "rb") as f:
        report = json.loads(f.read().decode("utf-8"))  # valid UTF-8
    with open(out + b".d/index.json", "rb") as f:
        index = json.loads(f.read().decode("utf-8"))
    assert os.fsencode(report["model"]) == model and os.fsencode(index["model"]) == model
    with np.load(out + b".npz") as data:
        assert list(data.files) == ["y\n::warning::output"]
    failing = irexec("run", model, "--inputs", inputs, "--check-finite", "--report", out + b"2.json")
    assert failing.returncode == 0 and b"internal error" not in failing.stderr
