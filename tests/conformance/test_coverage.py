"""The harness covers every registered op, and every op declares the
attributes OpenVINO reads and writes for it."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

ov = pytest.importorskip("openvino")

from oracle import core  # noqa: E402

import conformance  # noqa: E402
from conformance.harness import REGISTERED, OpTable, _batch  # noqa: E402
from irexec.ops.framework.base import Op  # noqa: E402
from irexec.ops.framework.registry import all_ops, resolve  # noqa: E402

# the tables of tests/conformance/ and of its family folders (tests/conformance/<family>/)
for _info in pkgutil.walk_packages(conformance.__path__, "conformance."):
    _leaf = _info.name.rpartition(".")[2]
    if _leaf.startswith("test_") and _leaf != "test_coverage":
        importlib.import_module(_info.name)

TABLES: dict[type[Op], object] = {}
for _table in (t for tables in REGISTERED for t in tables):
    _cls = resolve(_table.type, _table.opset)
    assert _cls is not None, f"table {_table} names no registered op"
    TABLES.setdefault(_cls, _table)


def test_every_registered_op_has_a_conformance_table():
    assert len(TABLES) > 100  # the tables were found (a broken import would make the check below vacuous)
    # Parameter, Const and Result are in every table: each case is written as Parameters and Consts into Results
    io = {c for c in all_ops() if c.family == "io"}
    assert sorted(c.display() for c in io) == ["Const-1", "Parameter-1", "Result-1"]
    assert sorted(c.display() for c in all_ops() if c not in TABLES and c not in io) == []


OP_TABLES = sorted(((c, t) for c, t in TABLES.items() if isinstance(t, OpTable)), key=lambda ct: ct[0].display())


@pytest.mark.parametrize(("cls", "table"), OP_TABLES, ids=[c.display() for c, _ in OP_TABLES])
def test_declared_attributes_are_openvinos(cls: type[Op], table: OpTable, tmp_path: Path):
    """The IR of a case of the table, read by OpenVINO: the node's
    get_attributes() names exactly the attributes the op declares."""
    for k, case in enumerate(table.cases):
        if case.ov_shapes is not True:
            continue  # a case OpenVINO may not read
        xml = _batch(table, [(0, case)], tmp_path / f"case{k}.xml")
        try:
            model = core().read_model(xml)
        except RuntimeError:
            continue  # e.g. an optional input OpenVINO's reader wants
        node = next(n for n in model.get_ops() if n.get_friendly_name() == "op0")
        assert sorted(cls.attributes) == sorted(node.get_attributes())
        return
    pytest.fail(f"OpenVINO reads none of the cases of {table}")
