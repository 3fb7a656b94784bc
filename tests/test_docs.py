"""The docs cover every diagnostic code (docs/diagnostics.md), environment variable (README)
and op (docs/ops.md, generated from the registry)."""

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


def test_every_code_is_in_the_diagnostics_table():
    table = (ROOT / "docs" / "diagnostics.md").read_text()
    documented = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", table))
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


def test_the_op_table_is_generated_from_the_registry():
    """docs/ops.md is what docs/make_ops_table.py writes today: a new op cannot be missing."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_ops_table", ROOT / "docs" / "make_ops_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "ops.md").read_text() == module.render(), "run: python docs/make_ops_table.py"


def _script(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_accuracy_classes_are_generated_from_the_op_classes():
    """docs/accuracy.md's table of classes is what docs/make_accuracy_table.py writes from each op's ``accuracy``."""
    page = (ROOT / "docs" / "accuracy.md").read_text()
    assert page == _script("make_accuracy_table").render(page), "run: python docs/make_accuracy_table.py"


def test_the_cli_reference_is_generated_from_the_commands():
    """docs/cli.md's option reference is what docs/make_cli_md.py writes from the click commands."""
    page = (ROOT / "docs" / "cli.md").read_text()
    assert page == _script("make_cli_md").render(page), "run: python docs/make_cli_md.py"


def test_the_cli_reference_names_every_option_help_shows():
    """Each option word of every command's --help is in docs/cli.md (check --select, run --state-in, ...)."""
    import subprocess
    import sys

    page = (ROOT / "docs" / "cli.md").read_text()
    missing = []
    for command in ("check", "run", "inspect", "diff", "generate", "ops"):
        shown = subprocess.run([sys.executable, "-m", "irexec", command, "--help"], capture_output=True, text=True,
                               check=True).stdout
        missing += [f"{command} {o}" for o in sorted(set(re.findall(r"(?<![\w-])--?[a-z][\w-]*", shown)))
                    if o not in _options_of(page, command)]
    assert missing == []


def _options_of(page: str, command: str) -> str:
    section = page.split(f"### `irexec {command}` options", 1)[1]
    return section.split("\n### ", 1)[0].split("<!-- end", 1)[0] + "-h --help"


def test_the_op_count_is_stated_only_where_it_is_generated():
    """docs/ops.md counts the ops from the registry; a count written elsewhere goes stale."""
    assert re.search(r"^\d+ op versions in \d+ families\.$", (ROOT / "docs" / "ops.md").read_text(), flags=re.M)
    for doc in [ROOT / "README.md", *(p for p in (ROOT / "docs").glob("*.md") if p.name != "ops.md")]:
        assert not re.search(r"\b\d+ (?:op versions|ops implemented)\b", doc.read_text()), doc.name


def test_every_relative_link_in_the_docs_resolves():
    broken = []
    for doc in [ROOT / "README.md", ROOT / "SECURITY.md", *(ROOT / "docs").glob("*.md"), ROOT / "benchmarks" / "README.md"]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", doc.read_text()):
            if not (doc.parent / target).exists():
                broken.append(f"{doc.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_every_install_hint_works_from_a_clone():
    """irexec is installed from its clone (the PyPI package of that name is another project): every
    `pip install` of the docs and of irexec's messages installs the clone, with extras that exist."""
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    texts = {str(p.relative_to(ROOT)): p.read_text() for p in [ROOT / "README.md", ROOT / "SECURITY.md",
                                                              *(ROOT / "docs").glob("*.md"), *(ROOT / "irexec").rglob("*.py")]}
    wrong, named = [], set()
    for name, text in texts.items():
        for command in re.findall(r"pip install\s+([^`\n]*)", text):
            if re.match(r"['\"]?irexec\b", command):
                wrong.append(f"{name}: pip install {command}")
            named |= set(re.findall(r"-e '\.\[([a-z]+)\]'", command))
    assert wrong == []
    assert {"openvino", "tokenizers", "html", "dask"} <= named and named <= extras, named - extras
    from irexec.base.extras import install_hint

    assert install_hint("openvino").endswith("pip install -e '.[openvino]'")


def test_the_readme_is_a_manual_not_a_notebook():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 420
