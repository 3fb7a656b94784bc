"""docs/cli.md, the README and `irexec run --help` state the same default
tolerances as irexec.api.tolerances, and docs/cli.md's Python block runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from irexec.api.tolerances import DEFAULT_TOLERANCES

ROOT = Path(__file__).resolve().parent.parent
CLI_MD = (ROOT / "docs" / "cli.md").read_text()
README = (ROOT / "README.md").read_text()
DEBUGGING = (ROOT / "docs" / "run-debugging.md").read_text()
SHORT = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}


def _num(x: float) -> str:
    return f"{x:.0e}".replace("e-0", "e-")  # 1e-4, 8e-2


@pytest.fixture(scope="module")
def run_help() -> str:
    out = subprocess.run([sys.executable, "-m", "irexec", "run", "--help"], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "1000"}, cwd=ROOT, check=True).stdout
    return " ".join(out.split())


@pytest.mark.parametrize("dtype", sorted(SHORT))
def test_every_text_states_the_default_tolerances(dtype, run_help):
    d, short = DEFAULT_TOLERANCES[dtype], SHORT[dtype]
    scale, rtol = _num(d.scale), _num(d.rtol)
    assert f"{scale} for {short}" in run_help and f"{rtol} for {short}" in run_help, run_help
    assert re.search(rf"\| {short}[^|]*\| {scale} x max\\\|ref\\\| \| {rtol} \|", README), short
    assert re.search(rf"\| {short} \| {scale} x max\\\|ref\\\| \| {rtol} \|", DEBUGGING), short
    if dtype == "float32":
        assert f"for f32 atol = {scale} x the reference's largest |value| and rtol =\n{rtol}" in CLI_MD
    else:
        assert f"{short}: {scale} and {rtol}" in CLI_MD


def test_no_text_says_exact_by_default():
    for text in (CLI_MD, README, DEBUGGING):
        assert "exact by default" not in text.replace("\n", " ")


def test_the_python_block_of_cli_md_runs(monkeypatch, capsys):
    (code,) = re.findall(r"```python\n(.*?)```", CLI_MD[CLI_MD.index("## Python API"):], flags=re.S)[:1]
    monkeypatch.chdir(ROOT)
    exec(compile(code, "docs/cli.md", "exec"), {})
    out = capsys.readouterr().out
    assert "RunReport: 1 output(s)" in out and "ok" in out
