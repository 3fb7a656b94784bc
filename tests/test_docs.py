"""The README documents every diagnostic code, environment variable and op the package has."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `code="x"` keyword arguments and `Diagnostic("x", ...)` / `.add("x", ...)` first arguments
CODE_RE = re.compile(r'(?:code=|Diagnostic\(\s*|\.add\(\s*|return )"([a-z0-9]+(?:-[a-z0-9]+)+)"')
INTERNAL = {"bad-model", "invalid-op", "bad-repeat"}  # class defaults never emitted / API-only argument check


def emitted_codes() -> set[str]:
    codes: set[str] = set()
    for path in (ROOT / "irexec").rglob("*.py"):
        codes |= set(CODE_RE.findall(path.read_text()))
    return codes - INTERNAL


def _manual() -> str:
    """The README and the pages of docs/ it links to."""
    return "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def test_every_code_is_in_the_readme_table():
    documented = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", _manual()))
    codes = emitted_codes()
    assert len(codes) > 40
    assert sorted(codes - documented) == []


def test_every_environment_variable_is_in_the_readme():
    names: set[str] = set()
    for path in (ROOT / "irexec").rglob("*.py"):
        names |= set(re.findall(r"IREXEC_[A-Z_]+", path.read_text()))
    assert {"IREXEC_MAX_MEMORY", "IREXEC_NUM_THREADS"} <= names
    readme = (ROOT / "README.md").read_text()
    assert sorted(n for n in names if f"`{n}`" not in readme) == []


def test_every_code_is_asserted_by_some_test():
    """A code no test mentions is a code nobody has seen produced."""
    tests = "".join(p.read_text() for p in (ROOT / "tests").rglob("*.py") if p.name != "test_docs.py")
    assert sorted(c for c in emitted_codes() if c not in tests) == []


def test_every_registered_op_is_in_the_readme_op_table():
    import irexec.model  # noqa: F401  (registers every op)
    from irexec.ops.registry import all_ops

    text = (ROOT / "README.md").read_text()
    table = text[text.index("## Ops\n"):text.index("## Behaviour where the spec and OpenVINO differ")]
    table += "".join(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))  # a new op's page, until the README lists it
    missing = [cls.display() for cls in all_ops() if cls.display() not in table]
    assert not missing, f"ops missing from the README's op table: {missing}"
