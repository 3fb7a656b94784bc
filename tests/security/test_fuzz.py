"""Mutated IR files: whatever the mutation, only irexec's own user errors
(IRExecError subclasses) may escape check, load and run.

CI runs a fixed-seed sample (derandomize=True).  A long run:

    IREXEC_FUZZ_EXAMPLES=100000 python -m pytest tests/security/test_fuzz.py -q

(and IREXEC_FUZZ_RANDOM=1 to draw new examples instead of the fixed ones).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import irexec
from irexec.api.inputs import random_inputs
from irexec.api.load import load
from irexec.base import dtypes
from irexec.base.errors import IRExecError
from irexec.cli import cli
from irexec.executor.engine import run_model
from irexec.model.builder import IRBuilder
from irexec.ops.framework.registry import resolve

EXAMPLES = int(os.environ.get("IREXEC_FUZZ_EXAMPLES", "0"))
RANDOM = bool(os.environ.get("IREXEC_FUZZ_RANDOM"))
MAX_MEMORY = 64 << 20  # keeps mutated shapes from turning into real allocations


def _settings(ci_examples: int) -> settings:
    return settings(
        max_examples=EXAMPLES or ci_examples,
        derandomize=not RANDOM,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


# ------------------------------------------------------------------ seeds


@dataclass(frozen=True)
class Seed:
    name: str
    xml: bytes
    bin: bytes


def _seed(name: str, b: IRBuilder) -> Seed:
    return Seed(name, b.to_xml(), bytes(b.blob))


def _seeds() -> list[Seed]:
    seeds = []
    b = IRBuilder()
    x = b.parameter("x", [2, 3], "f32")
    c = b.const(np.arange(6, dtype=np.int32).reshape(2, 3))
    b.result(x)
    b.result(b.layer("Convert", "opset1", [c], {"destination_type": "f16"}))
    seeds.append(_seed("convert", b))

    b = IRBuilder()
    x = b.parameter("x", "2,?,4", "i32")
    y = b.layer("Roll", "opset7", [x, b.const(np.array([1, -2], np.int64)), b.const(np.array([0, 2], np.int64))])
    b.result(y, name="rolled")
    seeds.append(_seed("roll", b))

    b = IRBuilder()
    x = b.parameter("x", [3, 4], "f32")
    idx = b.const(np.array([[0, 2], [-1, 1]], np.int32))
    y = b.layer("Gather", "opset8", [x, idx, b.const(np.array(1, np.int64))], {"batch_dims": 0})
    b.result(y)
    seeds.append(_seed("gather8", b))

    b = IRBuilder()
    x = b.parameter("x", [4, 2], "u8")
    idx = b.parameter("i", [3], "i64")
    b.result(b.layer("Gather", "opset1", [x, idx, b.const(np.array([0], np.int32))]))
    seeds.append(_seed("gather1", b))

    if resolve("ReverseSequence", "opset1") is not None:
        b = IRBuilder()
        x = b.parameter("x", [3, 4, 2], "f32")
        lens = b.const(np.array([1, 2, 3], np.int32))
        b.result(b.layer("ReverseSequence", "opset1", [x, lens], {"batch_axis": 0, "seq_axis": 1}))
        seeds.append(_seed("reverse_sequence", b))
    return seeds


SEEDS = _seeds()

# ------------------------------------------------------------------ mutations

_TYPE_NAMES = sorted({et.name for et in dtypes.ELEMENT_TYPES.values()} | {et.precision for et in dtypes.ELEMENT_TYPES.values()})
_SUPPORTED = sorted((et for et in dtypes.ELEMENT_TYPES.values() if et.supported), key=lambda et: et.name)
INTERESTING = [
    "", " ", "0", "1", "-1", "-2", "2", "3", "7", "-5", "255", "65536", "2147483647", "2147483648", "-2147483649",
    "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551616",
    "1" + "0" * 30, "9" * 200, "9" * 5000, "1.5", "1e400", "nan", "inf", "-0", "+3", "0x10", "abc", "?", "...", "1..3", "..2", "3..1",
    "2,3", "2, 3", "2,,3", "-1,3", "1000000,1000000", "1000000000000,1000000000000", "[2,3]", "true", "false",
    "opset1", "opset7", "opset8", "opset99", "opset" + "9" * 30, "Parameter", "Const", "Result", "Gather", "Roll",
    "\u00e9", "a\\,b", "\x7f", "&amp;", "<", *_TYPE_NAMES,
]


def _elements(tree: etree._Element) -> list[etree._Element]:
    return [e for e in tree.iter() if isinstance(e.tag, str)]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes, bytes]:
    seed = draw(st.sampled_from(SEEDS))
    root = etree.fromstring(seed.xml)
    blob = bytearray(seed.bin)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["attr", "attr", "dim", "dim", "drop", "dup", "move", "text", "bin", "bin",
                                     "rewire", "rewire", "retype", "retype"]))
        elements = _elements(root)
        if kind in ("drop", "dup", "move") and len(elements) < 2:
            kind = "text"  # only the root is left
        if kind == "attr":
            el = draw(st.sampled_from([e for e in elements if e.attrib] or elements))
            names = sorted(el.attrib) or ["id"]
            name = draw(st.sampled_from(names + ["extra"]))
            el.set(name, draw(st.sampled_from(INTERESTING) | st.integers(-(2**70), 2**70).map(str)))
        elif kind == "dim":
            dims = [e for e in elements if e.tag == "dim"]
            if dims:
                draw(st.sampled_from(dims)).text = draw(st.sampled_from(INTERESTING) | st.integers(-3, 2**66).map(str))
        elif kind == "drop":
            el = draw(st.sampled_from(elements[1:]))
            el.getparent().remove(el)
        elif kind == "dup":
            el = draw(st.sampled_from(elements[1:]))
            el.addnext(etree.fromstring(etree.tostring(el)))
        elif kind == "move":  # an element into another parent (ports into data, layers into ports, ...)
            el, target = draw(st.sampled_from(elements[1:])), draw(st.sampled_from(elements))
            if el is not target and target not in el.iterdescendants():
                target.append(el)
        elif kind == "text":
            el = draw(st.sampled_from(elements))
            el.text = draw(st.sampled_from(INTERESTING))
        elif kind == "rewire":  # a well-formed edge from another layer's output: odd types and shapes reach the ops
            edges = [e for e in elements if e.tag == "edge"]
            outputs = [(layer.get("id"), port.get("id")) for layer in root.iter("layer")
                       for out in layer.iter("output") for port in out.iter("port")]
            if edges and outputs:
                edge = draw(st.sampled_from(edges))
                src = draw(st.sampled_from(outputs))
                edge.set("from-layer", src[0] or "0")
                edge.set("from-port", src[1] or "0")
        elif kind == "retype":  # a Parameter or Const of another element type, its port kept consistent
            layers = [e for e in root.iter("layer") if e.get("type") in ("Parameter", "Const")]
            if layers:
                layer = draw(st.sampled_from(layers))
                et = draw(st.sampled_from(_SUPPORTED))
                data = layer.find("data")
                if data is not None:
                    data.set("element_type", et.name)
                for port in layer.iter("port"):
                    port.set("precision", et.precision)
        elif kind == "bin":
            op = draw(st.sampled_from(["flip", "truncate", "extend", "empty"]))
            if op == "flip" and blob:
                i = draw(st.integers(0, len(blob) - 1))
                blob[i] ^= draw(st.integers(1, 255))
            elif op == "truncate":
                del blob[draw(st.integers(0, len(blob))):]
            elif op == "extend":
                blob += bytes(draw(st.integers(1, 64)))
            else:
                blob.clear()
    xml = etree.tostring(root, xml_declaration=True, encoding="utf-8")
    if draw(st.integers(0, 4)) == 0:  # raw byte damage: flips, cuts, insertions
        raw = bytearray(xml)
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(raw) - 1))
            how = draw(st.sampled_from(["flip", "cut", "insert"]))
            if how == "flip":
                raw[i] ^= draw(st.integers(1, 255))
            elif how == "cut":
                del raw[i:]
                if not raw:
                    break
            else:
                raw[i:i] = draw(st.sampled_from([b"<", b">", b"\"", b"&", b"\xff", b"\x00", b"]]>", b"<!--", b"<dim>"]))
        xml = bytes(raw)
    return seed.name, xml, bytes(blob)


# ------------------------------------------------------------------ the property


def concrete_shapes(model) -> dict[str, tuple[int, ...]]:  # type: ignore[no-untyped-def]
    """A small shape inside every non-static Parameter shape, so mutated models
    with dynamic dims run too."""
    shapes = {}
    for p in model.parameters:
        if model.ops[p.id] is None:
            continue  # an element type irexec cannot run: the run refuses it
        shape = model.ops[p.id].shape
        if shape.dims is not None and not shape.is_static:
            shapes[p.name] = tuple(d.lo if d.hi is not None and d.hi <= max(d.lo, 2) else max(d.lo, 2) for d in shape.dims)
    return shapes


def exercise(xml: bytes, blob: bytes, directory: str) -> None:
    """check, load and run through the API; only IRExecError may come out."""
    path = Path(directory) / "model.xml"
    path.write_bytes(xml)
    path.with_suffix(".bin").write_bytes(blob)
    result = irexec.check(str(path))
    assert all(isinstance(d.code, str) and d.code for d in result.diagnostics)
    try:
        model = load(str(path), max_memory=MAX_MEMORY)
    except IRExecError:
        return
    try:
        feeds = random_inputs(model, 0, concrete_shapes(model), max_memory=MAX_MEMORY)
        run_model(model, feeds, max_memory=MAX_MEMORY)
    except IRExecError:
        pass
    finally:
        model.close()


def test_seeds_are_valid_and_run(tmp_path: Path) -> None:
    """Control: unmutated, every seed checks clean and runs."""
    for seed in SEEDS:
        path = tmp_path / f"{seed.name}.xml"
        path.write_bytes(seed.xml)
        path.with_suffix(".bin").write_bytes(seed.bin)
        assert irexec.check(str(path)).errors == [], seed.name
        model = load(str(path))
        run_model(model, random_inputs(model, 0, concrete_shapes(model)))


@_settings(ci_examples=4000)
@given(mutated())
def test_mutated_models_raise_only_irexec_errors(case: tuple[str, bytes, bytes]) -> None:
    _, xml, blob = case
    with tempfile.TemporaryDirectory() as d:
        exercise(xml, blob, d)


@_settings(ci_examples=500)
@given(mutated())
def test_mutated_models_through_the_cli(case: tuple[str, bytes, bytes]) -> None:
    """check, inspect and run: exit 0 or 1, never an exception (CliRunner re-raises it)."""
    _, xml, blob = case
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "model.xml"
        path.write_bytes(xml)
        path.with_suffix(".bin").write_bytes(blob)
        for command in ("check", "inspect"):
            r = runner.invoke(cli, [command, str(path)], catch_exceptions=False)
            assert r.exit_code in (0, 1), r.output
        r = runner.invoke(cli, ["run", str(path), "--max-memory", str(MAX_MEMORY), "--output", str(Path(d) / "o.npz")],
                          catch_exceptions=False)
        assert r.exit_code in (0, 1), r.output
        if r.exit_code:
            assert "error[" in r.output and not (Path(d) / "o.npz").exists()


def test_control_a_kernel_bug_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The property can fail: a kernel raising IndexError escapes as a bug."""
    from irexec.base.errors import InternalError
    from irexec.ops.convert.convert import Convert1

    def buggy(self, *args):  # type: ignore[no-untyped-def]
        raise IndexError("index 3 is out of bounds")

    monkeypatch.setattr(Convert1, "compute", buggy)
    seed = next(s for s in SEEDS if s.name == "convert")
    with pytest.raises(InternalError):
        exercise(seed.xml, seed.bin, str(tmp_path))


# ------------------------------------------------------------------ regressions
# Inputs that crashed irexec with something other than an IRExecError, kept
# after the fix.  (Crashes in input files and output paths are regression
# tests in test_hostile_inputs.py and test_no_partial_output.py.)


def _replace(seed: str, old: bytes, new: bytes) -> tuple[bytes, bytes]:
    s = next(s for s in SEEDS if s.name == seed)
    assert old in s.xml
    return s.xml.replace(old, new, 1), s.bin


REGRESSIONS = {
    # int() of a 200-digit attribute: fine; of 5000 digits: ValueError before the digit caps
    "dim-with-thousands-of-digits": _replace("convert", b"<dim>2</dim>", b"<dim>" + b"9" * 5000 + b"</dim>"),
    "opset-with-thousands-of-digits": _replace("convert", b'version="opset1"', b'version="opset' + b"9" * 5000 + b'"'),
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_regression(name: str, tmp_path: Path) -> None:
    xml, blob = REGRESSIONS[name]
    exercise(xml, blob, str(tmp_path))


# ------------------------------------------------------------------ the files themselves

FILE_KINDS = ["symlink-out", "dev-zero", "fifo", "directory", "many-attributes"]


@st.composite
def file_mutated(draw: st.DrawFn) -> tuple[bytes, bytes, str, str, int]:
    """A mutated model whose .xml or .bin is also replaced by something that is
    not a plain file in the model's folder, or whose XML gets thousands of attributes."""
    _, xml, blob = draw(mutated())
    return xml, blob, draw(st.sampled_from(["xml", "bin"])), draw(st.sampled_from(FILE_KINDS)), draw(st.integers(100, 20_000))


def _write_hostile(directory: Path, case: tuple[bytes, bytes, str, str, int]) -> Path:
    xml, blob, target, kind, count = case
    path = directory / "model" / "model.xml"
    path.parent.mkdir()
    (directory / "outside.bin").write_bytes(blob + b"SECRET-BYTES")
    if kind == "many-attributes":
        extra = " ".join(f'z{i}="{i}"' for i in range(count)).encode()
        tag = b"<data " if b"<data " in xml else b"<layer "
        xml = xml.replace(tag, tag + extra + b" ", 1)
        target = ""
    path.write_bytes(xml)
    path.with_suffix(".bin").write_bytes(blob)
    victim = path if target == "xml" else path.with_suffix(".bin")
    if target:
        victim.unlink()
        if kind == "symlink-out":
            victim.symlink_to(directory / "outside.bin")
        elif kind == "dev-zero":
            victim.symlink_to("/dev/zero")
        elif kind == "fifo":
            os.mkfifo(victim)
        elif kind == "directory":
            victim.mkdir()
    return path


@_settings(ci_examples=150)
@given(file_mutated())
def test_hostile_files_raise_only_irexec_errors(case: tuple[bytes, bytes, str, str, int]) -> None:
    import signal

    def hung(*args: object) -> None:
        raise AssertionError(f"no answer in 30 s for {case[2]} {case[3]}")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        with tempfile.TemporaryDirectory() as d:
            path = _write_hostile(Path(d), case)
            result = irexec.check(str(path))
            assert all("SECRET" not in d.format() for d in result.diagnostics)
            try:
                model = load(str(path), max_memory=MAX_MEMORY)
            except IRExecError:
                return
            try:
                run_model(model, random_inputs(model, 0, concrete_shapes(model), max_memory=MAX_MEMORY), max_memory=MAX_MEMORY)
            except IRExecError:
                pass
            finally:
                model.close()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@_settings(ci_examples=40)
@given(file_mutated())
def test_hostile_files_through_the_cli(case: tuple[bytes, bytes, str, str, int]) -> None:
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as d:
        path = _write_hostile(Path(d), case)
        for args in (["check", str(Path(d) / "model")], ["check", f"{d}/**/*.xml"], ["run", str(path), "--max-memory", str(MAX_MEMORY)]):
            r = runner.invoke(cli, args, catch_exceptions=False)
            named_a_directory = case[2:4] == ("xml", "directory") and "is a directory" in r.output  # click's usage error
            assert r.exit_code in (0, 1) or named_a_directory, r.output
            assert "SECRET" not in r.output


# ------------------------------------------------------------------ ops x edge inputs
# One layer of every op on 0-d, empty and one-element inputs of every element
# type, holding NaN, infinities and the type's limits (see op_edges.py).  The
# default suite draws a fixed sample; IREXEC_FUZZ_EXAMPLES draws more, and
# IREXEC_FUZZ_SWEEP=1 runs every op on every element type and edge shape, also
# with the op's other inputs i64 scalars (about 146,000 cases, six minutes).

from op_edges import OPS as EDGE_OPS  # noqa: E402
from op_edges import SHAPES as EDGE_SHAPES  # noqa: E402
from op_edges import TYPES as EDGE_TYPES  # noqa: E402
from op_edges import Case, build, cases, companion_case, uniform_case  # noqa: E402

SWEEP = os.environ.get("IREXEC_FUZZ_SWEEP", "") not in ("", "0")


def run_if_clean(case: Case, directory: Path) -> bool:
    """Check the one-layer model; when it is clean, run it: only IRExecError
    may come out of the run.  Whether it was clean."""
    built = build(case, directory)
    if built is None:
        return False
    xml, feeds = built
    if irexec.check(str(xml)).errors:
        return False
    model = load(str(xml), max_memory=MAX_MEMORY)
    try:
        run_model(model, feeds, max_memory=MAX_MEMORY)
    except IRExecError:
        pass
    finally:
        model.close()
    return True


@_settings(ci_examples=400)
@given(cases())
def test_a_clean_op_on_edge_inputs_never_fails_inside(case: Case) -> None:
    with tempfile.TemporaryDirectory() as d:
        run_if_clean(case, Path(d))


_ZERO_D_SAMPLE = ["Tanh", "Erf", "Gelu", "Mish", "HSwish", "SquaredDifference", "Sigmoid", "Swish", "SoftPlus", "Exp",
                  "Log", "Sqrt", "Power", "Divide", "ConvertLike", "Convert", "Clamp", "Elu", "Selu", "HSigmoid"]


@pytest.mark.parametrize("op", [c for c in EDGE_OPS if c.type in _ZERO_D_SAMPLE], ids=lambda c: f"{c.type}-{c.version}")
@pytest.mark.parametrize("const", [False, True], ids=["param", "const"])
def test_elementwise_ops_on_0d_tensors(op: type, const: bool, tmp_path: Path) -> None:
    """Tanh, Erf, Gelu, Mish, HSwish and SquaredDifference of 0-d tensors used
    to end in an internal error (NumPy gives scalars where the kernels write
    with out=), at run time and when check folded them."""
    ran = 0
    for et in ("f32", "f16", "bf16", "f64"):
        if run_if_clean(uniform_case(op, dtypes.get(et), (), const), tmp_path):
            ran += 1
    assert ran, "no element type was accepted"


@pytest.mark.skipif(not SWEEP, reason="set IREXEC_FUZZ_SWEEP=1 to run every op on every element type and edge shape")
@pytest.mark.parametrize("op", EDGE_OPS if SWEEP else EDGE_OPS[:1], ids=lambda c: f"{c.type}-{c.version}")
def test_sweep_every_op_every_type_every_edge_shape(op: type, tmp_path: Path) -> None:
    for et in EDGE_TYPES:
        for shape in EDGE_SHAPES:
            for const in (False, True):
                run_if_clean(uniform_case(op, et, shape, const), tmp_path)
                for index in (0, 1):  # the data of this type, an axis or index input i64
                    case = companion_case(op, et, shape, const, index)
                    if case is not None:
                        run_if_clean(case, tmp_path)


def test_every_required_attribute_has_a_sweep_value():
    """The edge-input sweep builds no case for an op whose required attribute it
    lacks; so every required attribute of every swept op has a value in REQUIRED."""
    from op_edges import OPS, REQUIRED

    missing = sorted(f"{cls.display()}: {name}" for cls in OPS for name, attr in cls.attributes.items()
                     if attr.required and name not in REQUIRED.get(cls.type, {}))
    assert missing == [], "add these to REQUIRED in tests/security/op_edges.py: " + ", ".join(missing)


_LOW_BIT = [et for et in EDGE_TYPES if et.bits < 8 or et.name.startswith("f8")]


@pytest.mark.parametrize("op", [c for c in EDGE_OPS if c.type in ("ReduceMax", "ReduceMin", "ReduceSum", "Einsum")],
                         ids=lambda c: f"{c.type}-{c.version}")
def test_low_bit_types_in_reductions_and_einsum(op: type, tmp_path: Path) -> None:
    """ReduceMax/ReduceMin of u1/u2/u4/i4 and Einsum of the low-bit types checked
    clean and ended their run in an internal error."""
    ran = 0
    for et in _LOW_BIT:
        for shape in ((2, 3), (2, 0), ()):
            for case in (uniform_case(op, et, shape, False), companion_case(op, et, shape, True, 1)):
                ran += case is not None and run_if_clean(case, tmp_path)
    assert ran, "no case was clean"
