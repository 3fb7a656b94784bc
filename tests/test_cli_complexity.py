"""The command line only parses options and renders: no function in irexec/cli/ reaches
radon's grade D (cyclomatic complexity above 20).  Mode validity is declared on the
options (cli/option_groups.py), not written as chains of ``if``."""

from __future__ import annotations

from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity")

CLI = Path(__file__).resolve().parents[1] / "irexec" / "cli"


def _too_complex(source: str) -> list[str]:
    blocks = radon_complexity.cc_visit(source)
    found = []
    for block in radon_complexity.sorted_results(blocks):
        for item in [block, *getattr(block, "methods", [])]:
            if radon_complexity.cc_rank(item.complexity) >= "D":
                found.append(f"{item.name}: {radon_complexity.cc_rank(item.complexity)} ({item.complexity})")
    return found


def test_every_cli_function_is_below_grade_d():
    found = {path.name: bad for path in sorted(CLI.glob("*.py")) if (bad := _too_complex(path.read_text()))}
    assert not found, found


def test_the_measure_sees_a_long_chain():
    chain = "def f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(25)) + "    return -1\n"
    assert _too_complex(chain) == ["f: D (26)"]
