"""One typo in one <edge> is one problem: its errors come first, the layers it
cuts off from every Result are told in the edge's error, and every format
gives the same counts in a handful of lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from irexec.model.builder import IRBuilder

CHAIN = 40


def _typo_model(write_ir) -> str:
    """x -> 40 Relu -> Result, the edge into the Result pointing at a layer id that does not exist."""
    b = IRBuilder()
    t = b.parameter("x", "1,8", "f32")
    for k in range(CHAIN):
        t = b.layer("Relu", "opset1", [t], {}, name=f"relu{k}")
    b.result(t, name="out")
    path = write_ir(b)
    text = open(path).read()
    edges = list(re.finditer(r'<edge from-layer="(\d+)" from-port="(\d+)" to-layer="(\d+)"', text))
    last = edges[-1]
    fixed = last.group(0).replace(f'to-layer="{last[3]}"', f'to-layer="{last[3]}9"')
    with open(path, "w") as f:
        f.write(text[:last.start()] + fixed + text[last.end():])
    return path


def test_text_gives_the_errors_first_and_folds_the_unreachable_layers(write_ir, run_cli):
    path = _typo_model(write_ir)
    r = run_cli("check", path)
    lines = r.stdout.splitlines()
    assert r.exit_code == 1
    assert len(lines) <= 4, r.stdout
    assert all("error[" in line for line in lines[:-1]), r.stdout
    assert "unreachable-layer" not in r.stdout
    unknown = next(line for line in lines if "error[unknown-layer]" in line)
    assert f"{CHAIN} layers cut off by it from every Result" in unknown
    assert 'perhaps layer' in unknown and '"out"' in unknown and "its input port 0 is fed by no edge" in unknown
    assert lines[-1] == "1 file, 2 errors, 0 warnings"
    stats = run_cli("check", path, "--statistics")
    assert sum(int(line.split()[0]) for line in stats.stdout.splitlines()[:-1]) == 2, stats.stdout
    assert stats.stdout.splitlines()[-1] == lines[-1]


@pytest.mark.parametrize("fmt", ["json", "github", "gitlab", "junit", "sarif"])
def test_every_format_reports_two_errors(write_ir, run_cli, fmt):
    path = _typo_model(write_ir)
    r = run_cli("check", path, "-f", fmt)
    assert r.exit_code == 1
    out = r.stdout
    if fmt != "sarif":  # SARIF lists every rule it knows, that one included
        assert "unreachable-layer" not in out
    if fmt == "json":
        doc = json.loads(out)
        assert (doc["summary"]["errors"], doc["summary"]["warnings"]) == (2, 0)
        assert len(doc["files"][0]["diagnostics"]) == 2
        schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "check-report.schema.json").read_text())
        jsonschema.Draft202012Validator(schema).validate(doc)
        cut = next(d for d in doc["files"][0]["diagnostics"] if d["code"] == "unknown-layer")
        assert len(cut["unreachable_layers"]) == CHAIN
    elif fmt == "github":
        assert out.count("::error ") == 2 and "::warning" not in out and len(out.splitlines()) == 3
    elif fmt == "gitlab":
        assert len(json.loads(out)) == 2
    elif fmt == "junit":
        assert 'message="2 findings:' in out and out.count("error[") == 2 + 1  # the message repeats the first
    else:
        results = json.loads(out)["runs"][0]["results"]
        assert len(results) == 2 and {x["ruleId"] for x in results} == {"unknown-layer", "result-without-input"}
