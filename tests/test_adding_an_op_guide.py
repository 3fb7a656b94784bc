"""docs/adding-an-op.md stays true: its quotations are in the files they name,
its op declarations register and run in a scratch registry (built with the IR
builder, checked and run), and every path, family and name it mentions exists."""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irexec
from irexec.model.builder import IRBuilder
from irexec.ops.framework import registry
from irexec.ops.framework.base import Op
from irexec.ops.framework.declare import Attr

registry.load_all()  # the op modules load lazily; the guide's names and the scratch registry need them all

ROOT = Path(__file__).resolve().parent.parent
GUIDE = (ROOT / "docs" / "adding-an-op.md").read_text()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", GUIDE, flags=re.S)
PYTHON = [code for lang, code in BLOCKS if lang == "python"]
PROSE = re.sub(r"```.*?```", "", GUIDE, flags=re.S)


def _origin(code: str) -> str:
    """The first line of a Python block: ``# <path>`` for a quotation, else a description."""
    first = code.splitlines()[0]
    assert first.startswith("# "), f"a Python block of the guide starts with a comment saying what it is: {first!r}"
    return first[2:].strip()


QUOTED = [(_origin(code), code) for code in PYTHON if (ROOT / _origin(code)).is_file()]
DECLARING = [code for code in PYTHON if "@register" in code]


def test_the_guide_has_its_blocks():
    # the checks below read these: a guide without them would pass them vacuously
    assert len(PYTHON) >= 5 and len(QUOTED) >= 4 and len(DECLARING) == 2
    assert any(origin == "irexec/ops/normalization/grn.py" for origin, _ in QUOTED)


@pytest.mark.parametrize(("origin", "code"), QUOTED, ids=[o for o, _ in QUOTED])
def test_every_quotation_is_in_its_file(origin: str, code: str):
    """The quoted lines appear in the named file, in the guide's order."""
    lines = iter(line.rstrip() for line in (ROOT / origin).read_text().splitlines())
    missing = [line for line in code.splitlines()[1:] if line.strip() and not any(line.rstrip() == have for have in lines)]
    assert missing == [], f"{origin} no longer holds (in this order): {missing[:3]}"


def test_a_module_quoted_whole_is_the_whole_module():
    code = dict(QUOTED)["irexec/ops/normalization/grn.py"]
    assert code.split("\n", 1)[1] == (ROOT / "irexec/ops/normalization/grn.py").read_text()


# ------------------------------------------------------------------ the declarations, run

def _declared(code: str) -> dict[str, Any]:
    """The constants an op class assigns (``type, version, family = ...`` included)."""
    found: dict[str, Any] = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.Constant)):
            target = node.targets[0]
            names = [t.id for t in target.elts if isinstance(t, ast.Name)] if isinstance(target, ast.Tuple) else (
                [target.id] if isinstance(target, ast.Name) else [])
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for name, value in zip(names, values):
                if isinstance(value, ast.Constant):
                    found[name] = value.value
    return found


@pytest.fixture
def scratch_registry() -> Iterator[None]:
    """The op registry as it is, restored after the test whatever the guide's code registers."""
    saved = {key: dict(versions) for key, versions in registry._REGISTRY.items()}
    try:
        yield
    finally:
        registry._REGISTRY.clear()
        registry._REGISTRY.update(saved)
        registry.resolve.cache_clear()


def _register_block(code: str) -> type[Op]:
    """Run a declaring block as a module of its family's folder, in place of any op of its type."""
    facts = _declared(code)
    registry._REGISTRY.pop(facts["type"].lower(), None)
    package = f"irexec.ops.{facts['family']}"
    namespace: dict[str, Any] = {"__name__": f"{package}._guide", "__package__": package}
    exec(compile(code, "docs/adding-an-op.md", "exec"), namespace)  # noqa: S102 (the guide's own code)
    cls = registry.resolve(facts["type"], f"opset{facts['version']}")
    assert cls is not None and cls.__module__ == f"{package}._guide", "the guide's op did not register"
    return cls


def _block_declaring(op_type: str) -> str:
    return next(code for code in DECLARING if _declared(code).get("type") == op_type)


def test_the_guides_grn_registers_checks_and_runs(scratch_registry: None, tmp_path: Path):
    from irexec.ops.normalization.grn import GRN1

    cls = _register_block(_block_declaring("GRN"))
    assert cls is not GRN1
    b = IRBuilder()
    x = b.parameter("x", [2, 3, 4], "f32")
    b.result(b.layer("GRN", "opset1", [x], {"bias": 0.5}, names=["y"]))
    xml, _ = b.write(tmp_path / "grn.xml")
    assert irexec.check(xml).errors == []
    data = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    got = irexec.run(xml, {"x": data})["y"]
    wide = data.astype(np.float64)
    np.testing.assert_array_equal(got, (wide / np.sqrt((wide * wide).sum(axis=1, keepdims=True) + 0.5)).astype(np.float32))
    np.testing.assert_array_equal(got, GRN1(None, {"bias": 0.5}).run(data)[0])

    # what the guide says of a required attribute: refused when the file is read
    b = IRBuilder()
    x = b.parameter("x", [2, 3], "f32")
    b.result(b.layer("GRN", "opset1", [x], {}, outputs=[([2, 3], "f32")]))
    xml, _ = b.write(tmp_path / "no-bias.xml")
    assert "bad-attribute" in {d.code for d in irexec.check(xml).errors}


def test_the_guides_toy_op_registers_checks_and_runs(scratch_registry: None, tmp_path: Path):
    _register_block(_block_declaring("RepeatRows"))
    b = IRBuilder()
    x = b.parameter("x", "2..5,3", "f32")
    y = b.layer("RepeatRows", "opset1", [x, b.const(np.array(3, np.int64))], {"interleave": "false"}, names=["y"])
    b.result(y)
    xml, _ = b.write(tmp_path / "toy.xml")
    result = irexec.check(xml)
    assert result.errors == []
    assert str(result.tensors[(y.layer, 0)].shape) == "[6..15,3]"  # the comment in the guide's infer
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(irexec.run(xml, {"x": data})["y"], np.tile(data, (3, 1)))

    b = IRBuilder()
    x = b.parameter("x", "2,3", "f32")
    b.result(b.layer("RepeatRows", "opset1", [x, b.const(np.array(-1, np.int64))], {}, outputs=[(None, "f32")]))
    xml, _ = b.write(tmp_path / "toy-error.xml")
    assert [(d.code, d.port, d.port_kind) for d in irexec.check(xml).errors] == [("bad-value", 1, "input")]


def test_the_scratch_registry_is_restored():
    # run after the two tests above (file order): the real GRN-1 is back and the toy op is gone
    from irexec.ops.normalization.grn import GRN1

    assert registry.resolve("GRN", "opset1") is GRN1
    assert registry.resolve("RepeatRows", "opset1") is None


# ------------------------------------------------------------------ paths, families and names

def test_every_path_the_guide_names_exists():
    paths = {p.rstrip(".,:;/)") for p in re.findall(r"(?<![\w/.<-])((?:irexec|tests|docs)/[\w./<>-]*)", GUIDE)}
    concrete = sorted(p for p in paths if "<" not in p)
    assert len(concrete) > 30
    assert [p for p in concrete if not (ROOT / p).exists()] == []


def test_the_family_table_lists_every_family():
    table = re.search(r"\| family \| what \| examples \|\n\|[-|]+\|\n((?:\|.*\|\n)+)", GUIDE)
    assert table is not None
    rows = [row.split("|") for row in table.group(1).splitlines()]
    listed = {name for row in rows for name in re.findall(r"`(\w+)`", row[1])}
    folders = {p.name for p in (ROOT / "irexec" / "ops").iterdir()
               if p.is_dir() and not p.name.startswith("_") and p.name != "framework"}  # the framework is no family
    assert listed == folders
    examples = [name for row in rows for name in re.findall(r"[A-Z]\w+", row[3])]
    assert len(examples) > 30
    assert [name for name in examples if not registry.versions_of(name)] == []


def _module_from(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"_guide_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _known_names() -> dict[str, Any]:
    """Everything the guide may name by itself: the public names of the modules it
    points an op writer to, the fields and members of the classes it describes,
    attribute kinds, and the attribute names of registered ops."""
    import conformance.graphs
    import conformance.harness

    from irexec.ops.state.variables import AssignOp, ReadValueOp, StateOp

    names: dict[str, Any] = {"np": np}
    for module in ("irexec.ops.framework.base", "irexec.ops.framework.declare", "irexec.ops.framework.tensor",
                   "irexec.ops.framework.helpers", "irexec.ops.framework.spatial", "irexec.ops.framework.registry",
                   "irexec.ops.framework.core_opsets", "irexec.ops.state.variables", "irexec.ops.elementwise.factory",
                   "irexec.ops.reduction.reduce", "irexec.base.shapes", "irexec.base.dtypes"):
        names.update({k: v for k, v in vars(importlib.import_module(module)).items() if not k.startswith("_")})
    names.update({k: v for k, v in vars(conformance.harness).items() if not k.startswith("_")})
    names.update({k: v for k, v in vars(conformance.graphs).items() if not k.startswith("_")})
    names.update({k: v for k, v in vars(_module_from(ROOT / "tests" / "security" / "op_edges.py")).items()
                  if k.isupper()})
    members: list[type] = [Op, StateOp, AssignOp, ReadValueOp, names["In"], Attr, names["TensorInfo"], names["Inference"],
                           names["PartialShape"], names["Dim"], conformance.harness.Case, conformance.harness.ErrorCase,
                           conformance.harness.OpTable, conformance.harness.Tol, conformance.harness.HostDependent]
    for cls in members:
        for member in [*dir(cls), *getattr(cls, "__annotations__", {})]:
            names.setdefault(member, getattr(cls, member, cls))
    kinds = "".join(line for line in inspect.getsource(Attr.parse).splitlines() if "kind" in line)
    names.update({kind: Attr for kind in re.findall(r'"(\w+)"', kinds)})
    names.update({attr: op for op in registry.all_ops() for attr in op.attributes})
    names.update({op.family: op for op in registry.all_ops()})
    names.update({p.stem: p for p in (ROOT / "irexec" / "ops").glob("*.py")})  # the shared modules, by name
    return names


# words of the guide that are not names in irexec
NOT_NAMES = {"port", "get_attributes"}


def _resolves(name: str, known: dict[str, Any]) -> bool:
    head, *rest = name.split(".")
    if head in NOT_NAMES:
        return True
    if head not in known:
        return False
    obj = known[head]
    for part in rest:
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def test_every_name_the_guide_mentions_exists():
    """Each `name`, `name()` or `name(...)` and `name = ...` of the prose is a
    public name of the ops' modules, the harness or the fuzz sweep, a member of
    a class they define, an attribute kind or a registered op's attribute;
    each kebab-case `code` is a documented diagnostic code or a harness aspect."""
    from conformance.harness import ASPECTS

    known = _known_names()
    documented = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", (ROOT / "docs" / "diagnostics.md").read_text()))
    unknown, checked = [], 0
    for token in re.findall(r"`([^`\n]+)`", PROSE):
        token = token.removeprefix("raise ").strip()
        if re.search(r"\.(py|md)$", token):
            continue  # a file: test_every_path_the_guide_names_exists
        if re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)+", token):
            checked += 1
            if token not in documented and token not in ASPECTS:
                unknown.append(token)
            continue
        match = (re.fullmatch(r"([A-Za-z_][\w.]*)(?:\(.*\))?", token)
                 or re.fullmatch(r"([A-Za-z_]\w*)\s*=.*", token))
        if match is None or match.group(1) in ("irexec", "python") or hasattr(builtins, match.group(1)) and \
                match.group(1) not in known:
            continue
        checked += 1
        if match.group(1).startswith("IREXEC_"):
            if not any(match.group(1) in p.read_text() for p in (ROOT / "irexec").rglob("*.py")):
                unknown.append(token)
        elif not _resolves(match.group(1), known):
            unknown.append(token)
    assert checked > 150
    assert unknown == [], f"not names in irexec: {unknown}"
