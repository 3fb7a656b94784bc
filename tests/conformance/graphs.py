"""The conformance harness for ops whose layers hold bodies (If, Loop,
TensorIterator): a ``GraphTable`` builds the whole model with OpenVINO's own
Python API, which writes the bodies and port maps as OpenVINO does, and runs
the same aspects as an ``OpTable``:

* ``reference``: irexec's run against a NumPy reference of what the bodies compute;
* ``openvino-values``: irexec against OpenVINO CPU on the same file;
* ``openvino-shapes``: the op's inferred outputs against OpenVINO's shape
  inference, with the outer Parameters static, dynamic, interval and of dynamic rank;
* ``declared-dims``: a corrupted declared output dim of the op is a shape-mismatch;
* ``errors``: each broken variant of the file (a port map, a body) is refused
  with its code.

Each table draws its inputs from its own generator (``table_rng``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from lxml import etree  # noqa: E402
from oracle import run_ir, save  # noqa: E402

import irexec  # noqa: E402
from irexec.base.shapes import parse_partial_shape  # noqa: E402

from .harness import ASPECTS, REGISTERED, Tol, assert_close, table_rng  # noqa: E402
from .isolated import Crash, openvino_outputs  # noqa: E402

# variant ("static", "dynamic", "interval", "dynamic-rank") -> the outer model with Parameters of that kind
Build = Callable[[str], "ov.Model"]
Feeds = Callable[[np.random.Generator], dict[str, np.ndarray]]
Reference = Callable[[dict[str, np.ndarray]], list[np.ndarray]]


@dataclass
class BrokenFile:
    """A variant of the table's file that irexec must refuse with ``code``:
    ``edit`` changes the parsed XML of the static model."""

    id: str
    edit: Callable[[etree._ElementTree], None]
    code: str
    ov: bool | str = True  # a string: why OpenVINO reads the file though irexec refuses it


@dataclass
class GraphTable:
    id: str
    type: str  # the op under test: the model's layer named "op0"
    opset: str
    build: Build
    feeds: Feeds
    reference: Reference  # outputs in the model's Result order
    tol: Tol = Tol.EXACT
    errors: list[BrokenFile] = field(default_factory=list)

    def __str__(self) -> str:
        return self.id


def partial(shape: Sequence[int], variant: str) -> ov.PartialShape:
    if variant == "static":
        return ov.PartialShape(list(shape))
    if variant == "dynamic":
        return ov.PartialShape([-1] * len(shape))
    if variant == "interval":
        return ov.PartialShape([ov.Dimension(max(d - 1, 0), d + 2) for d in shape])
    return ov.PartialShape.dynamic()


def _save(table: GraphTable, variant: str, path: Path) -> str:
    model = table.build(variant)
    for i, out in enumerate(model.outputs):
        out.get_tensor().set_names({f"out{i}"})
    return save(model, path)


def _outputs(values: dict[str, np.ndarray], n: int) -> list[np.ndarray]:
    return [values[f"out{i}"] for i in range(n)]


def check_reference(table: GraphTable, tmp: Path) -> None:
    feeds = table.feeds(table_rng(table.id))
    xml = _save(table, "static", tmp / "model.xml")
    want = table.reference(feeds)
    got = _outputs(irexec.run(xml, feeds), len(want))
    for j, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, table.tol, f"output {j} vs reference")


def check_openvino_values(table: GraphTable, tmp: Path) -> None:
    feeds = table.feeds(table_rng(table.id))
    xml = _save(table, "static", tmp / "model.xml")
    n = len(table.build("static").outputs)
    ours, theirs = _outputs(irexec.run(xml, feeds), n), _outputs(run_ir(xml, feeds), n)
    for j, (a, b) in enumerate(zip(ours, theirs)):
        assert_close(a, b, table.tol, f"output {j} vs OpenVINO CPU")


def check_openvino_shapes(table: GraphTable, tmp: Path) -> None:
    failures = []
    variants = ("static", "dynamic", "interval", "dynamic-rank")
    xmls = [_save(table, variant, tmp / f"{variant}.xml") for variant in variants]
    # OpenVINO reads the files in a child process: a crash inside it fails this test, not pytest
    for variant, xml, theirs in zip(variants, xmls, openvino_outputs([(xml, "op0") for xml in xmls])):
        if isinstance(theirs, Exception):
            failures.append(f"{variant}: OpenVINO does not read it: {theirs}")
            continue
        result = irexec.check(xml)
        if result.errors:
            failures.append(f"{variant}: irexec refuses what OpenVINO reads: {result.errors[0].format()}")
            continue
        lid = next(layer.id for layer in irexec.read_model(xml).layers.values() if layer.name == "op0")
        for j, (ov_shape, ov_type) in enumerate(theirs):
            want = parse_partial_shape(ov_shape)
            info = result.tensors.get((lid, j))
            if info is None or info.shape != want or info.etype.name != ov_type:
                got = "nothing" if info is None else f"{info.etype.name}{info.shape}"
                failures.append(f"{variant} output {j}: irexec {got}, OpenVINO {ov_type}{want}")
    assert not failures, "\n".join(failures)


def _op_layer(tree: etree._ElementTree) -> etree._Element:
    return tree.getroot().find("layers/layer[@name='op0']")


def check_declared_dims(table: GraphTable, tmp: Path) -> None:
    xml = _save(table, "static", tmp / "model.xml")
    tree = etree.parse(xml)
    dim = next(d for d in _op_layer(tree).findall("output/port/dim") if int(d.text) >= 0)
    dim.text = str(int(dim.text) + 1)
    tree.write(xml)
    flagged = {d.layer_name for d in irexec.check(xml).errors if d.code == "shape-mismatch" and d.port_kind == "output"}
    assert "op0" in flagged


def check_errors(table: GraphTable, tmp: Path) -> None:
    if not table.errors:
        pytest.skip("no error cases")
    failures = []
    for n, broken in enumerate(table.errors):
        xml = _save(table, "static", tmp / f"error{n}.xml")
        tree = etree.parse(xml)
        broken.edit(tree)
        tree.write(xml)
        codes = {d.code for d in irexec.check(xml).errors}
        if broken.code not in codes:
            failures.append(f"{broken.id}: irexec check gave {sorted(codes) or 'no error'}, expected {broken.code}")
    assert not failures, "\n".join(failures)


def check_openvino_refuses(table: GraphTable, tmp: Path) -> None:
    broken_files = [b for b in table.errors if b.ov is True]
    if not broken_files:
        pytest.skip("no broken file OpenVINO's reader sees")
    xmls = []
    for n, broken in enumerate(broken_files):
        xml = _save(table, "static", tmp / f"error{n}.xml")
        tree = etree.parse(xml)
        broken.edit(tree)
        tree.write(xml)
        xmls.append(xml)
    failures = []
    for broken, theirs in zip(broken_files, openvino_outputs([(xml, None) for xml in xmls])):
        if isinstance(theirs, Crash):
            failures.append(f"{broken.id}: {theirs}; give the case ov=<a reason naming the crash>")
        elif not isinstance(theirs, Exception):
            failures.append(f"{broken.id}: OpenVINO reads it but irexec refuses it ({broken.code})")
    assert not failures, "\n".join(failures)


CHECKS: dict[str, Callable[[GraphTable, Path], None]] = {
    "reference": check_reference,
    "openvino-values": check_openvino_values,
    "openvino-shapes": check_openvino_shapes,
    "declared-dims": check_declared_dims,
    "errors": check_errors,
    "openvino-refuses": check_openvino_refuses,
}
assert tuple(CHECKS) == ASPECTS


def graph_conformance(tables: Sequence[GraphTable]) -> Callable[..., None]:
    REGISTERED.append(tables)

    @pytest.mark.parametrize("aspect", ASPECTS)
    @pytest.mark.parametrize("table", tables, ids=str)
    def test_conformance(table: GraphTable, aspect: str, tmp_path: Path) -> None:
        CHECKS[aspect](table, tmp_path)

    return test_conformance
