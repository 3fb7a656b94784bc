"""The tests are laid out like the ops: the op defined in
irexec/ops/<family>/<module>.py has its conformance table in
tests/conformance/<family>/test_<module>.py, so a contributor finds the table
from the op's module path (and adding an op without a table there fails here)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openvino")

from conformance.graphs import GraphTable  # noqa: E402
from conformance.harness import OpTable  # noqa: E402
from irexec.ops.framework.base import Op  # noqa: E402
from irexec.ops.framework.registry import all_ops, defined_in, resolve  # noqa: E402

HERE = Path(__file__).resolve().parent

# Ops with no table in their module's test file, each with the reason.
WITHOUT_TABLE = {
    # Parameter, Const and Result write every case of every table (the harness builds each
    # case from Parameters and Consts into Results), so they have no table of their own.
    "Parameter-1", "Const-1", "Result-1",
}


def table_file(cls: type[Op]) -> Path:
    _, _, family, module = defined_in(cls).split(".")
    return HERE / family / f"test_{module}.py"


def tables_in(module: Any) -> list[OpTable | GraphTable]:
    """The tables a test module holds: in its globals, alone or in lists."""
    found: dict[int, OpTable | GraphTable] = {}
    for value in vars(module).values():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, (OpTable, GraphTable)):
                found[id(item)] = item
    return list(found.values())


OPS = [c for c in all_ops() if c.display() not in WITHOUT_TABLE]


@pytest.mark.parametrize("cls", OPS, ids=[c.display() for c in OPS])
def test_every_op_has_a_table_in_its_modules_test_file(cls: type[Op]) -> None:
    path = table_file(cls)
    assert path.is_file(), f"{cls.display()} is defined in {defined_in(cls)}: its table belongs in {path.relative_to(HERE.parent)}"
    module = importlib.import_module(".".join(("conformance", *path.relative_to(HERE).with_suffix("").parts)))
    ops = {resolve(t.type, t.opset) for t in tables_in(module)}
    assert cls in ops, f"{path.relative_to(HERE.parent)} has no table of {cls.display()}"


def test_the_allow_list_holds_only_ops_without_a_table() -> None:
    registered = {c.display(): c for c in all_ops()}
    assert WITHOUT_TABLE <= set(registered), f"not registered: {sorted(WITHOUT_TABLE - set(registered))}"
    for name in sorted(WITHOUT_TABLE):
        path = table_file(registered[name])
        if path.is_file():
            module = importlib.import_module(".".join(("conformance", *path.relative_to(HERE).with_suffix("").parts)))
            assert registered[name] not in {resolve(t.type, t.opset) for t in tables_in(module)}, f"{name} has a table now"


def test_each_family_folder_has_one_references_module() -> None:
    """A family's shared reference functions live in <family>/references.py (a short,
    single-use one may sit beside its table, docs/testing.md); a family whose tables
    compare with OpenVINO and hand-worked outputs alone, as the tokenizer ops', has none."""
    folders = sorted(p for p in HERE.iterdir() if p.is_dir() and (p / "__init__.py").is_file())
    assert len(folders) > 20  # the family folders were found
    assert len([f for f in folders if (f / "references.py").is_file()]) > 15
    for folder in folders:
        assert not list(folder.glob("references_*.py")), f"{folder.name}: references belong in {folder.name}/references.py"
    assert not list(HERE.glob("references*.py")), "references belong in their family's folder"
