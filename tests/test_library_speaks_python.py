"""The library names the Python API's parameters, never the command line's
options: only irexec/cli/ knows how an option is spelled, and it spells the
library's messages its own way (cli/options.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import irexec
from irexec.cli import cli

ROOT = Path(irexec.__file__).resolve().parent
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
# The code descriptions of SARIF reports document the command line's codes, as docs/diagnostics.md does.
# documents for a person at the command line: the rules' help, and the README of an extracted reproducer
CLI_DOCUMENTS = {"report/rules.py", "api/diff/extract.py", "api/diff/source_extract.py"}


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings]


def test_no_module_outside_the_cli_writes_an_option_in_a_message():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("cli/") or rel in CLI_DOCUMENTS:
            continue
        for line, text in _strings(ast.parse(path.read_text(encoding="utf-8"))):
            found += [f"{rel}:{line}: {m}" for m in FLAG.findall(text)]
    assert found == []


def test_the_library_names_parameters_and_the_command_line_names_options(tmp_path):
    from click.testing import CliRunner

    xml = Path(__file__).resolve().parent.parent / "examples" / "roll-example-1" / "model.xml"
    with irexec.Session(str(xml)) as s, pytest.raises(irexec.UsageError) as e:
        s.run(seed=0, stop_at="no such layer")
    assert "`stop_at` 'no such layer' names no layer" in str(e.value) and "--" not in str(e.value)
    r = CliRunner().invoke(cli, ["run", str(xml), "--seed", "0", "--stop-at", "no such layer"])
    assert r.exit_code == 2 and "--stop-at 'no such layer' names no layer" in r.output and "`stop_at`" not in r.output
    # and the library speaks Python again after a command has run in the same process
    with irexec.Session(str(xml)) as s, pytest.raises(irexec.UsageError) as e:
        s.run(seed=0, stop_at="no such layer")
    assert "`stop_at`" in str(e.value)
