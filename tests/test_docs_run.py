"""Every Python and shell block of README.md and docs/*.md runs as written, in a fresh
folder holding the repository's examples, or says on the line before it why it does not:

    <!-- docs-test: skip: the reason -->

Every fenced block names its language, so no shell or Python snippet goes unseen: `bash`
and `python` blocks run (the README's in tests/test_readme.py, which checks their output:
README_SKIPS); `text` (output), `toml`, `yaml` and `json` blocks are not code. The folder
holds `examples/`, `models/` (three examples, for the `irexec check models/` lines), `other/`
(one), `conversion_pairs/` (tests/data's, for docs/diff.md's source models) and, for the
pages' generic `model.xml --inputs in.npz` lines, `model.xml`, `model.bin`, `in.npz`,
`inputs.npz` and `expected.npz` (examples/gather-spec-xml); a block that names
`tests/data/NAME` (committed, so in every clone) gets a copy of it at that path."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNS = {"bash", "python"}
NOT_CODE = {"text", "toml", "yaml", "json"}
SKIP = re.compile(r"<!-- docs-test: skip: (.+?) -->")
FENCE = re.compile(r"^```(\S*)\n(.*?)^```\s*$", flags=re.S | re.M)
# The README's blocks, by their first line: tests/test_readme.py runs each section's commands and
# checks their output, and three are a contributor's steps (the README keeps its markers out).
README_RUN_ELSEWHERE = "run, and its output checked, by tests/test_readme.py"
README_SKIPS = {
    "git clone": "clones and installs the repository, as .ci/fresh-clone-test does in a temporary folder",
    "python -m pytest": "the whole test suite, of which this test is a part",
    "ruff check": "ruff and .ci/fresh-clone-test work on the repository itself (a fresh clone running the whole suite)",
}
# what each block needs beyond irexec's own dependencies
NEEDS = {"--device": "openvino", "--html": "plotly", "tiny-export": "re2", ".onnx": "onnxruntime"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    code: str
    skip: str | None  # the stated reason, or None: the block runs

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for m in FENCE.finditer(text):
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = SKIP.fullmatch(before.strip())
            reason = marker.group(1) if marker else None
            if page.name == "README.md" and reason is None and m.group(1) in RUNS:
                reason = next((why for start, why in README_SKIPS.items() if m.group(2).startswith(start)),
                              README_RUN_ELSEWHERE)
            found.append(Block(str(page.relative_to(ROOT)), text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2),
                               reason))
    return found


BLOCKS = _blocks()
CODE = [b for b in BLOCKS if b.lang in RUNS]


def test_every_block_names_its_language():
    """An unnamed block could be a command nobody runs: each says bash, python or what it shows."""
    assert len(CODE) > 40
    assert [f"{b} ```{b.lang}" for b in BLOCKS if b.lang not in RUNS | NOT_CODE] == []


def test_a_skip_marker_sits_only_before_code():
    """A marker before a block that would not run anyway is a stale reason."""
    assert [str(b) for b in BLOCKS if b.skip and b.lang not in RUNS] == []


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    for name in ("gather-spec-xml", "shape-subgraph", "roll-example-1"):
        shutil.copytree(ROOT / "examples" / name, tmp_path / "models" / name)
    shutil.copytree(ROOT / "examples" / "roll-example-1", tmp_path / "other")
    shutil.copytree(ROOT / "tests" / "data" / "conversion_pairs", tmp_path / "conversion_pairs")  # docs/diff.md's source models
    spec = ROOT / "examples" / "gather-spec-xml"
    for src, dst in [("model.xml", "model.xml"), ("model.bin", "model.bin"), ("inputs.npz", "in.npz"),
                     ("inputs.npz", "inputs.npz"), ("expected.npz", "expected.npz")]:
        shutil.copy(spec / src, tmp_path / dst)
    return tmp_path


def _environment() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "NO_COLOR": "1", "COLUMNS": "120"}


def _run(block: Block, cwd: Path) -> subprocess.CompletedProcess:
    if block.lang == "python":
        script = cwd / "snippet.py"
        script.write_text(block.code)
        args = [sys.executable, str(script)]
    else:
        # `irexec` and `python` as a reader's activated venv has them, on this interpreter
        prelude = (f'set -e -o pipefail\nirexec() {{ "{sys.executable}" -m irexec "$@"; }}\n'
                   f'python() {{ "{sys.executable}" "$@"; }}\n')
        args = ["bash", "-c", prelude + block.code]
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900, env=_environment())


@pytest.mark.parametrize("block", CODE, ids=str)
def test_the_block_runs_as_written(block: Block, workspace: Path):
    if block.skip:
        pytest.skip(block.skip)
    for marker, module in NEEDS.items():
        if marker in block.code:
            pytest.importorskip(module)
    if ("--svg" in block.code or "| dot " in block.code) and shutil.which("dot") is None:
        pytest.skip("needs Graphviz's dot on PATH")
    # the repository's committed test data a block names, copied: the snippet never writes to the repository
    for name in sorted(set(re.findall(r"\btests/data/([\w.-]+)", block.code))):
        source, copy = ROOT / "tests" / "data" / name, workspace / "tests" / "data" / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, copy)
        elif source.is_file():
            shutil.copy(source, copy)
    result = _run(block, workspace)
    assert result.returncode == 0, f"{block}:\n{block.code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def test_the_documented_functions_import_from_irexec_and_lazily():
    """`irexec.diff`, `irexec.check` and `irexec.run` are there as the docs use them, and
    `import irexec` stays cheap: no OpenVINO, plotly or Dask until a diff needs them."""
    code = ("import sys, irexec\n"
            "heavy = ('openvino', 'plotly', 'dask', 'networkx', 'lxml')\n"
            "print(sorted(m for m in heavy if m in sys.modules))\n"
            "from irexec import check, diff, run\n"
            "print(hasattr(irexec, 'diff'), 'diff' in irexec.__all__, callable(diff), callable(check), callable(run))\n"
            "print(sorted(m for m in heavy[:3] if m in sys.modules))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=_environment())
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["[]", "True True True True True", "[]"], result.stdout


def test_irexec_diff_compares_two_irs(tmp_path: Path):
    """The function docs/diff.md calls: two copies of an example agree on every layer."""
    import irexec

    xml = ROOT / "examples" / "gather-spec-xml" / "model.xml"
    report = irexec.diff(str(xml), str(xml), inputs=str(ROOT / "examples" / "gather-spec-xml" / "inputs.npz"))
    assert report.outputs_within and report.origins == [] and report.layers
