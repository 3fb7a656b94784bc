"""A clone in a folder named ``irexec``, installed in editable mode (setuptools'
import finder) and used from the folder holding the clone: Python imports
``irexec`` as a namespace package of that folder.  The command line still
works, ``check -j 2`` workers included (docs/install.md)."""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(np.__file__).resolve().parents[1]  # where numpy, lxml and click are
FINDERS = sorted(glob.glob(str(SITE / "__editable___irexec_*_finder.py")))


def _editable_env(tmp_path: Path) -> Path:
    """A virtual environment whose only irexec is an editable install of this tree."""
    venv = tmp_path / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(glob.glob(str(venv / "lib" / "python3*" / "site-packages"))[0])
    (site / "shared.pth").write_text(f"{SITE}\n")  # a path entry: its own .pth files (another irexec) are not run
    finder = Path(FINDERS[0]).read_text()
    finder = re.sub(r"MAPPING: dict\[str, str\] = \{.*\}", f"MAPPING: dict[str, str] = {{'irexec': {str(ROOT / 'irexec')!r}}}",
                    finder)
    (site / "__editable___irexec_finder.py").write_text(finder)
    (site / "__editable__.irexec.pth").write_text("import __editable___irexec_finder; __editable___irexec_finder.install()\n")
    script = venv / "bin" / "irexec"
    script.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom irexec.cli import main\n"
                      "if __name__ == '__main__':\n    sys.exit(main())\n")
    script.chmod(0o755)
    return venv


@pytest.mark.skipif(not FINDERS or os.name != "posix", reason="needs an editable install made by setuptools' finder")
def test_the_command_line_works_from_the_folder_holding_a_clone_named_irexec(tmp_path: Path) -> None:
    venv = _editable_env(tmp_path)
    parent = tmp_path / "work"
    (parent / "irexec").mkdir(parents=True)
    (parent / "irexec" / "README.md").write_text("a clone\n")
    for k in range(2):
        b = IRBuilder()
        b.result(b.layer("Relu", "opset1", [b.parameter("x", [2], "f32")]))
        b.write(parent / f"m{k}.xml")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    shadowed = subprocess.run([str(venv / "bin" / "python"), "-c", "import irexec; print(irexec.__file__)"],
                              cwd=parent, env=env, capture_output=True, text=True)
    assert shadowed.stdout.strip() == "None", shadowed.stdout + shadowed.stderr  # the situation this test is about
    for command in ([str(venv / "bin" / "irexec")], [str(venv / "bin" / "python"), "-m", "irexec"]):
        proc = subprocess.run([*command, "check", "-j", "2", "m0.xml", "m1.xml"], cwd=parent, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "2 files, 0 errors" in proc.stdout and "internal" not in proc.stdout + proc.stderr
