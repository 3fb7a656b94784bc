"""Every README snippet that can run offline runs here as a reader would run it:
the quick start, the CI and debugging commands, the pyproject and pre-commit
settings, the stateful-model commands and the Python API example, each on the
shipped examples."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end >= 0 else None]


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def _commands(text: str) -> list[str]:
    """The irexec command lines of a section's bash blocks (comments dropped)."""
    lines = [line.split(" #")[0].strip() for block in _blocks(text, "bash") for line in block.splitlines()]
    return [line for line in lines if line.startswith("irexec ")]


def _irexec(line: str, cwd: Path) -> subprocess.CompletedProcess:
    args = shlex.split(line)
    assert args[0] == "irexec"
    return subprocess.run([sys.executable, "-m", "irexec", *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_COLOR": "1"})


def _all_pass(commands: list[str], cwd: Path) -> list[subprocess.CompletedProcess]:
    results = []
    for line in commands:
        result = _irexec(line, cwd)
        assert result.returncode == 0, f"{line}: {result.stdout}{result.stderr}"
        results.append(result)
    return results


@pytest.fixture
def reader_dir(tmp_path: Path) -> Path:
    """A folder as a reader's: the shipped examples, and models/ holding some of them."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("*.py"))
    for name in ("gather-spec-xml", "shape-subgraph", "roll-example-1"):
        shutil.copytree(ROOT / "examples" / name, tmp_path / "models" / name)
    return tmp_path


def test_one_install_recipe_and_a_quick_start_that_works(reader_dir: Path):
    (install,) = _blocks(_section("Install"), "bash")
    assert "pip install -e '.[test]'" in install and install.count("-m venv") == 1
    assert README.count("python3 -m venv") == 1  # one recipe, not one per section
    run_example, run_tests = _blocks(_section("Quick start"), "bash")
    # the second is the test command CI runs, word for word
    assert run_tests.strip() in (ROOT / ".ci" / "run").read_text()
    result = _irexec(run_example.strip(), reader_dir)
    assert result.returncode == 0, result.stderr
    assert (reader_dir / "out.npz").is_file()


def test_the_test_extra_is_listed_as_it_is():
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    names = {re.split(r"[<>=\[ ]", req)[0].lower() for req in extra if not req.startswith("irexec[")}  # own extras
    said = _section("Install")
    listed = said[said.index("The `test` extra adds"):said.index("the differential oracle")]
    assert {n for n in names if n.lower() in listed.lower()} == names, listed
    assert len(re.findall(r"[A-Za-z][\w-]+", listed.split("adds", 1)[1].replace(" and ", ", "))) == len(names), listed


def test_the_ci_commands_run_clean_on_clean_models(reader_dir: Path):
    commands = _commands(_section("Checking models in CI"))
    assert len(commands) >= 4
    _all_pass(commands, reader_dir)
    assert (reader_dir / "irexec.sarif").is_file()


def test_the_pyproject_settings_are_read(reader_dir: Path):
    (toml,) = _blocks(_section("Checking models in CI"), "toml")
    (reader_dir / "pyproject.toml").write_text(toml)
    assert _irexec("irexec check models/", reader_dir).returncode == 0
    # the table is read: an unknown code in it is a usage error naming the file
    (reader_dir / "pyproject.toml").write_text(toml + 'select = ["no-such-code"]\n')
    result = _irexec("irexec check models/", reader_dir)
    assert result.returncode == 2 and "pyproject.toml" in result.stderr + result.stdout


def test_the_pre_commit_hook_passes_over_xml_that_is_not_ir(reader_dir: Path):
    """What pre-commit does with the README's local hook: the entry on every staged
    file its `files` pattern matches, a Maven pom.xml among them."""
    (block,) = _blocks(_section("Checking models in CI"), "yaml")[-1:]
    entry = re.search(r"entry: (.+)", block).group(1).strip()
    pattern = re.search(r"files: (.+)", block).group(1).strip()
    (reader_dir / "pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion></project>\n")
    staged = sorted(str(p.relative_to(reader_dir)) for p in reader_dir.rglob("*") if re.search(pattern, p.name))
    assert "pom.xml" in staged and any(s.endswith("model.xml") for s in staged)
    result = _irexec(f"{entry} {' '.join(staged)}", reader_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    # without the flag the pom.xml is a finding: the hook needs it
    assert _irexec("irexec check pom.xml", reader_dir).returncode == 1


def test_the_debugging_commands_run(reader_dir: Path):
    commands = _commands(_section("Debugging a model"))
    assert len(commands) >= 3
    _all_pass(commands, reader_dir)
    assert (reader_dir / "run.json").is_file() and (reader_dir / "out.npz").is_file()


def test_the_stateful_commands_reproduce_openvino(reader_dir: Path):
    commands = _commands(_section("Stateful models and LLMs"))
    assert [c.split()[1] for c in commands] == ["run", "run", "generate", "generate"]
    for line, result in zip(commands, _all_pass(commands, reader_dir)):
        assert "PASSED" in result.stdout or "--compare" not in line, result.stdout
    assert (reader_dir / "state.npz").is_file() and (reader_dir / "tokens.npy").is_file()


def test_the_diff_commands_run(reader_dir: Path):
    pytest.importorskip("openvino")
    pytest.importorskip("plotly")
    commands = _commands(_section("Where a device departs from irexec"))
    assert [c.split()[1] for c in commands] == ["diff", "diff", "diff"]
    results = _all_pass(commands, reader_dir)
    assert "outputs within stated accuracy" in results[0].stdout
    assert "step" in results[1].stdout and (reader_dir / "diff.json").is_file() and (reader_dir / "diff.html").is_file()


def test_the_python_api_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    (code,) = _blocks(_section("Python API"), "python")
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "['data'] ['output']" in printed and "(2, 32, 21, 128)" in printed


def test_the_strings_and_tokenizers_commands_run(reader_dir: Path):
    pytest.importorskip("pcre2")
    commands = _commands(_section("Strings and tokenizers"))
    assert [c.split()[1] for c in commands] == ["check", "run", "run", "generate"]
    for line, result in zip(commands, _all_pass(commands, reader_dir)):
        assert "PASSED" in result.stdout + result.stderr or "--compare" not in line, result.stdout


_WRITES = re.compile(r"(?:--output|--state-out|--report|--save-inputs|--output-file|-o)[ =](\S+)")


def test_the_files_readme_commands_write_are_ignored_by_git():
    """A reader who runs the README's commands in a clone sees no new files in `git status`."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git clone")
    written = sorted({m for line in _commands(README) for m in _WRITES.findall(line)})
    assert {"out.npz", "run.json", "state.npz", "tokens.npy"} <= set(written), written
    ignored = subprocess.run(["git", "check-ignore", *written], cwd=ROOT, capture_output=True, text=True)
    assert sorted(ignored.stdout.split()) == written, ignored.stdout + ignored.stderr


def test_the_quick_subset_the_readme_names_is_there():
    """`-m quick` (README, docs/testing.md) marks the files conftest.py lists: each exists and holds tests."""
    # by its path: a run of several folders leaves another folder's conftest.py as `conftest`
    spec = importlib.util.spec_from_file_location("tests_conftest", ROOT / "tests" / "conftest.py")
    assert spec is not None and spec.loader is not None
    top_conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(top_conftest)
    QUICK = top_conftest.QUICK

    assert "`-m quick`" in _section("Quick start")
    assert "-m quick" in (ROOT / "docs" / "testing.md").read_text()
    tests = ROOT / "tests"
    assert sorted(f for f in QUICK if "test_" not in (tests / f).read_text()) == []
    listed = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "quick",
                             *sorted(f"tests/{f}" for f in QUICK)[:2]], cwd=ROOT, capture_output=True, text=True, timeout=600)
    # every test of a listed file is marked: none deselected
    assert re.search(r"^[1-9]\d* tests collected", listed.stdout, flags=re.M), listed.stdout[-2000:]
