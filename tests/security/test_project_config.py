"""A pyproject.toml found in the checked tree is as untrusted as the models
beside it: it may tighten a rule, never relax one or raise a limit, and a file
of any shape is a ``bad-config`` usage error, never a crash."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_files import _leaks, _leaky_model

from irexec.model.builder import IRBuilder


def _repo_config(xml: Path, table: str) -> Path:
    repo = xml.parent.parent
    (repo / "pyproject.toml").write_text('[project]\nname = "m"\n\n[tool.irexec]\n' + table)
    return repo


@pytest.mark.parametrize("command", ["check", "run", "inspect"])
def test_a_project_file_cannot_allow_a_link_out_of_the_folder(tmp_path: Path, run_cli, command: str) -> None:  # type: ignore[no-untyped-def]
    xml, _ = _leaky_model(tmp_path)
    repo = _repo_config(xml, "follow-symlinks = true\n")
    proc = run_cli.subprocess(command, str(xml.relative_to(repo)), cwd=str(repo))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "error[bad-config]" in proc.stderr and "follow-symlinks" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not _leaks(proc.stdout + proc.stderr)


def test_a_project_file_may_say_links_stay_refused(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml, _ = _leaky_model(tmp_path)
    repo = _repo_config(xml, "follow-symlinks = false\n")
    proc = run_cli.subprocess("check", str(xml.relative_to(repo)), cwd=str(repo))
    assert proc.returncode == 1 and "error[symlink-escape]" in proc.stdout, proc.stdout + proc.stderr
    assert not _leaks(proc.stdout + proc.stderr)


def _copy_model(root: Path, shape: tuple[int, ...]) -> Path:
    b = IRBuilder()
    b.result(b.layer("Convert", "opset1", [b.parameter("x", shape, "f32")], {"destination_type": "f32"},
                     outputs=[(shape, "f32")]))
    root.mkdir(parents=True, exist_ok=True)
    b.write(root / "m.xml")
    return root / "m.xml"


def test_a_project_file_lowers_the_memory_limit_but_never_raises_it(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _copy_model(tmp_path / "repo" / "models", (256, 1024))  # 1 MiB in, 1 MiB out
    repo = _repo_config(xml, 'max-memory = "1TiB"\n')
    env = {**os.environ, "IREXEC_MAX_MEMORY": "1MiB"}
    proc = run_cli.subprocess("run", "models/m.xml", cwd=str(repo), env=env)
    assert proc.returncode == 1 and "error[memory-limit]" in proc.stderr, proc.stdout + proc.stderr
    assert run_cli.subprocess("run", "models/m.xml", "--max-memory", "8MiB", cwd=str(repo), env=env).returncode == 0
    (repo / "pyproject.toml").write_text('[tool.irexec]\nmax-memory = "1MiB"\n')
    proc = run_cli.subprocess("run", "models/m.xml", cwd=str(repo))
    assert proc.returncode == 1 and "error[memory-limit]" in proc.stderr, proc.stdout + proc.stderr


@pytest.mark.parametrize("text", [
    "[tool.irexec]\nignore = " + "[" * 3000 + "]" * 3000 + "\n",
    "tool = 5\n# tool.irexec\n",
    "tool.irexec = [1, 2]\n",
    "[tool.irexec]\n" + "# padding\n" * 600_000,
    "[tool.irexec]\njobs = 1\n\xff\n",
])
@pytest.mark.parametrize("command", [["ops"], ["check", "models/m.xml"]])
def test_a_project_file_of_any_shape_is_bad_config(tmp_path: Path, run_cli, text: str, command: list[str]) -> None:  # type: ignore[no-untyped-def]
    xml = _copy_model(tmp_path / "repo" / "models", (2, 2))
    repo = xml.parent.parent
    (repo / "pyproject.toml").write_bytes(text.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    proc = run_cli.subprocess(*command, cwd=str(repo / "models"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "error[bad-config]" in proc.stderr and "pyproject.toml" in proc.stderr
    assert "Traceback" not in proc.stderr and "internal-error" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("table", ['select = ["shape-mismatch"]\n', 'ignore = "symlink-escape"\n',
                                   'ignore = ["axis-out-of-range", "unsafe-xml,symlink-escape"]\n'])
def test_a_project_file_cannot_hide_a_refused_file(tmp_path: Path, run_cli, table: str) -> None:  # type: ignore[no-untyped-def]
    xml, _ = _leaky_model(tmp_path)
    repo = _repo_config(xml, table)
    proc = run_cli.subprocess("check", str(xml.relative_to(repo)), cwd=str(repo))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out, out
    assert not _leaks(out)
    if not table.startswith("select"):
        assert proc.returncode == 2 and "error[bad-config]" in out and "cannot hide" in out, out
        return
    assert proc.returncode == 1 and "error[symlink-escape]" in out, out
    # the command line may: the person running the check decides
    proc = run_cli.subprocess("check", str(xml.relative_to(repo)), "--select", "shape-mismatch", cwd=str(repo))
    assert proc.returncode == 0 and "symlink-escape" not in proc.stdout, proc.stdout + proc.stderr
