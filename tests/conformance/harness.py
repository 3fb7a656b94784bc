"""The conformance harness every op plugs into with a table of cases.

    TABLES = [OpTable("Add", "opset1", cases=[Case("broadcast", [a, b]), ...], reference=ref_add)]
    test_conformance = conformance(TABLES)

For each table it checks, as separate tests:

* ``reference``: irexec's run of an IR file holding every case against the
  table's reference (exact or float64, written from the spec) and against
  hand-worked ``expect`` outputs, within ``tol``.  The run holds every kernel
  to its own inference (IREXEC_VERIFY_KERNELS).  A table without ``tol``
  takes the tolerance of its op class's ``accuracy`` (``CLASS_TOL``); one
  that states a ``tol`` looser than that class allows is refused.
* ``openvino-values``: irexec against OpenVINO's CPU plugin on the same file,
  within ``ov_tol``; cases with ``ov=<reason>`` are the documented divergences,
  and a table's ``ov_elements`` leave out the elements on which OpenVINO CPU's
  answer depends on the host (its ISA: AVX2, AVX-512, AMX, SSE4.1), each with
  its reason (docs/openvino-divergences.md).  The ``reference`` aspect still
  checks irexec on every element.
* ``openvino-shapes``: irexec's inferred output shapes and element types
  against OpenVINO's own shape inference (the same IR read back by
  ``read_model``) with every Parameter input static, dynamic, interval and of
  dynamic rank; both must accept or both refuse.
* ``declared-dims``: a corrupted declared output dim is a shape-mismatch.
* ``errors``: each ``ErrorCase`` is refused by ``irexec check`` with its code.
* ``openvino-refuses``: each ``ErrorCase`` is refused by OpenVINO's shape inference
  too (``read_model``), so irexec's input rules are never stricter than OpenVINO's;
  a case with ``ov=<reason>`` is a documented difference (a value OpenVINO only
  meets at run time, or a form its CPU plugin refuses to compile).

OpenVINO reads the files of ``openvino-shapes`` and ``openvino-refuses`` in a
child process (conformance/isolated.py): a crash inside it fails the case that
caused it, asking for an ``ov``/``ov_shapes`` reason naming the crash, and
never the test process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from lxml import etree
from oracle import compile_ir, infer, raw_bits

import irexec
from conformance.isolated import Crash, openvino_outputs
from irexec.base import dtypes, strings
from irexec.base.errors import IRExecError
from irexec.base.shapes import parse_partial_shape
from irexec.model.builder import IRBuilder, Out
from irexec.ops.framework.accuracy import ACCURACY_CLASSES, EXACT, ROUNDED, TRANSCENDENTAL
from irexec.ops.framework.registry import resolve


@dataclass(frozen=True)
class Tol:
    """How close two float outputs must be: ``EXACT`` bits, ``ulps`` units in
    the last place of the output type, or ``rtol``/``atol`` as np.isclose.
    Integer and boolean outputs are always compared exactly."""

    ulps: int | None = None
    rtol: float = 0.0
    atol: float = 0.0
    EXACT: ClassVar[Tol]

    @property
    def exact(self) -> bool:
        return self.ulps is None and self.rtol == 0 and self.atol == 0

    def __str__(self) -> str:
        if self.exact:
            return "exact"
        return f"{self.ulps} ulp" if self.ulps is not None else f"rtol={self.rtol:g} atol={self.atol:g}"


Tol.EXACT = Tol()

# What each accuracy class (irexec/ops/framework/accuracy.py, docs/accuracy.md) allows against a
# table's reference: exact and correctly rounded results are the reference's bits, a transcendental
# one is within 1 ulp of it.  An accumulating op's error depends on its sums: its tables state theirs.
CLASS_TOL: dict[str, Tol] = {EXACT: Tol.EXACT, ROUNDED: Tol.EXACT, TRANSCENDENTAL: Tol(ulps=1)}


def within_class(tol: Tol, accuracy: str) -> bool:
    """Whether ``tol`` is no looser than what ``accuracy`` promises."""
    allowed = CLASS_TOL.get(accuracy)
    if allowed is None or tol.exact:
        return True
    return allowed.ulps is not None and tol.ulps is not None and tol.ulps <= allowed.ulps


@dataclass
class Case:
    id: str
    inputs: list[np.ndarray]
    attrs: dict[str, Any] = field(default_factory=dict)
    const: tuple[int, ...] = ()  # inputs written as Const; the others are Parameters
    ov: bool | str = True  # a string: why OpenVINO CPU is not compared (a documented divergence)
    ov_shapes: bool | str = True  # a string: why OpenVINO's shape inference is not compared
    expect: list[np.ndarray] | None = None  # hand-worked outputs (a spec example)
    # Parameters written with every dim dynamic, as converters write them (an extension op whose
    # declared output shape a run outgrows fails on OpenVINO CPU with static ones)
    dynamic: bool = False


@dataclass
class ErrorCase:
    id: str
    inputs: list[np.ndarray]
    attrs: dict[str, Any] = field(default_factory=dict)
    const: tuple[int, ...] = ()
    code: str = ""
    # inputs given as (shape text, element type) Parameters instead of arrays, for shape-only errors
    shapes: dict[int, tuple[str, str]] = field(default_factory=dict)
    ov: bool | str = True  # a string: why OpenVINO's shape inference accepts what irexec refuses


# Reasons an ErrorCase is refused by irexec only (its ``ov``), shared by many tables.
OV_READS_DEFAULT = "OpenVINO's IR reader keeps an attribute's default when it is missing or not a valid value"
OV_VALUE_UNCHECKED = "OpenVINO's shape inference does not check this value (its CPU plugin meets it at run time)"
OV_TYPE_UNCHECKED = "OpenVINO's shape inference does not check this element type (the spec allows none but these)"
OV_DIMS_UNCHECKED = ("OpenVINO's shape inference does not compare these dims (its CPU plugin fails at run time or reads past "
                     "the data)")
OV_ZERO_UNCHECKED = "OpenVINO's shape inference takes a size of 0 as an empty output (the spec asks for a positive one)"

Reference = Callable[[list[np.ndarray], dict[str, Any]], list[np.ndarray]]


@dataclass(frozen=True)
class HostDependent:
    """Elements whose OpenVINO CPU result depends on the host's instruction set,
    so no single answer can be expected from it: ``where(inputs, attrs)`` marks
    them (an array broadcast against each output); ``id`` names the entry of
    docs/openvino-divergences.md that explains ``reason``."""

    id: str
    reason: str
    where: Callable[[list[np.ndarray], dict[str, Any]], np.ndarray]


def _is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or a.dtype.name == "bfloat16"


def any_input(test: Callable[[np.ndarray], np.ndarray]) -> Callable[[list[np.ndarray], dict[str, Any]], np.ndarray]:
    """Elementwise ops: an output element is marked when ``test`` holds for the
    element of any float input it is computed from (NumPy broadcasting)."""

    def where(inputs: list[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
        marks = [test(np.asarray(x).astype(np.float64)) for x in inputs if _is_float(np.asarray(x))]
        if not marks:
            return np.zeros((), bool)
        return np.logical_or.reduce(np.broadcast_arrays(*marks)) if len(marks) > 1 else marks[0]

    return where


def is_denormal(x: np.ndarray) -> np.ndarray:
    """Nonzero values below the smallest normal of f32 (what reaches the kernels:
    f16 and bf16 inputs are widened to f32 first, where f16 denormals are normal)."""
    return (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)


ISFINITE_DENORMAL = HostDependent(
    "isfinite-denormal", "OpenVINO CPU's AVX-512 IsFinite kernel counts denormals as not finite", any_input(is_denormal))
COMPARE_NAN = HostDependent(
    "greater-nan", "OpenVINO CPU's SSE4.1 and AVX-512 Greater/GreaterEqual kernels are true when an operand is NaN",
    any_input(np.isnan))
MINMAX_NAN = HostDependent(
    "minmax-nan", "which operand OpenVINO CPU's Maximum/Minimum return for NaN is its kernel's (x86 maxps: the second; "
    "ARM fmaxnm: the number)", any_input(np.isnan))


@dataclass
class OpTable:
    type: str
    opset: str
    cases: list[Case]
    reference: Reference | None = None
    tol: Tol = None  # type: ignore[assignment]  # None: the op class's (CLASS_TOL), set in __post_init__
    ov_tol: Tol | None = None  # defaults to tol
    errors: list[ErrorCase] = field(default_factory=list)
    id: str = ""
    ov_elements: list[HostDependent] = field(default_factory=list)  # left out of openvino-values, with their reasons

    def __post_init__(self) -> None:
        cls = resolve(self.type, self.opset)
        accuracy = cls.accuracy if cls is not None else ""
        assert accuracy in ACCURACY_CLASSES, f"table {self}: {self.type} {self.opset} has no accuracy class"
        if self.tol is None:
            assert accuracy in CLASS_TOL, f"table {self}: {cls.display()} is {accuracy}: the table states its tol"
            self.tol = CLASS_TOL[accuracy]
        # the classes bound f32, f16 and bf16 results; f64 data gets NumPy's libm (docs/accuracy.md)
        f64_only = bool(self.cases) and all(c.inputs and np.asarray(c.inputs[0]).dtype == np.float64 for c in self.cases)
        assert f64_only or within_class(self.tol, accuracy), (
            f"table {self}: tol {self.tol} is looser than {cls.display()} promises ({accuracy}, docs/accuracy.md)")

    def __str__(self) -> str:
        return self.id or f"{self.type}-{self.opset}"


def stable_seed(table_id: str) -> int:
    """A seed from a table's id that is the same on every run and machine
    (Python's hash() of a str is salted per process)."""
    return int.from_bytes(hashlib.sha256(table_id.encode()).digest()[:8], "little")


def table_rng(table_id: str) -> np.random.Generator:
    """A table's own generator: adding or changing a table never changes another's inputs."""
    return np.random.default_rng(stable_seed(table_id))


def random_arrays(rng: np.random.Generator) -> Callable[..., np.ndarray]:
    """``rand(shape, dtype=np.float32)``: booleans, integers in [-100, 100] (as
    far as the type holds them) or normal floats scaled by 10, drawn from ``rng``."""

    def rand(shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
        dtype = np.dtype(dtype)
        if dtype.kind == "b":
            return rng.integers(0, 2, shape).astype(bool)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)
        return (rng.standard_normal(shape) * 10).astype(dtype)

    return rand


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def attr_ints(attrs: dict[str, Any], name: str, n: int, default: int) -> list[int]:
    """A per-axis int attribute of a case (a "1,2" string or a sequence), or
    ``default`` on each of ``n`` axes when it is absent or empty."""
    v = attrs.get(name)
    if v is None or v == "" or v == ():
        return [default] * n
    return [int(x) for x in (v.split(",") if isinstance(v, str) else v)]


ASPECTS = ("reference", "openvino-values", "openvino-shapes", "declared-dims", "errors", "openvino-refuses")


# Every table a conformance module hands to ``conformance()`` (or, for ops with
# bodies, to ``graphs.graph_conformance()``): what test_coverage.py checks against the registry.
# (the lists themselves: a module may append tables after the call, as pytest reads them at collection)
REGISTERED: list[Sequence[Any]] = []


def conformance(tables: Sequence[OpTable]) -> Callable[..., None]:
    """A pytest test function running every aspect of every table."""
    REGISTERED.append(tables)

    @pytest.mark.parametrize("aspect", ASPECTS)
    @pytest.mark.parametrize("table", tables, ids=str)
    def test_conformance(table: OpTable, aspect: str, tmp_path: Path) -> None:
        CHECKS[aspect](table, tmp_path)

    return test_conformance


# ------------------------------------------------------------------ building IR

def _etype(arr: np.ndarray) -> str:
    if arr.dtype.kind in "US":  # NumPy text or bytes: a string input
        return "string"
    et = dtypes.from_dtype(arr.dtype)
    assert et is not None, f"no IR element type for {arr.dtype}"
    return et.name


def _out_name(k: int, j: int) -> str:
    return f"c{k}_out{j}"


def _add_case(b: IRBuilder, table: OpTable, k: int, inputs: Sequence[np.ndarray], attrs: dict[str, Any], const: tuple[int, ...],
              shapes: dict[int, str] | None = None, param_types: dict[int, str] | None = None) -> tuple[list[Out] | None, Exception | None]:
    """The case's op and its Results; (None, error) when irexec refuses to infer it."""
    ins = []
    for i, arr in enumerate(inputs):
        if i in const:
            ins.append(b.const(arr))
        else:
            shape = (shapes or {}).get(i, ",".join(map(str, np.shape(arr))))
            ins.append(b.parameter(f"c{k}_in{i}", shape, (param_types or {}).get(i) or _etype(np.asarray(arr))))
    data = {key: _attr_text(v) for key, v in attrs.items()}
    try:
        first = b.layer(table.type, table.opset, ins, data, name=f"op{k}")
        error = None
    except IRExecError as e:
        # written with undeclared dims so the file exists; the caller decides what the refusal means
        error = e
        cls = resolve(table.type, table.opset)
        op = cls.build(None, data)[0] if cls is not None else None
        count = op.num_outputs(len(ins)) if op is not None else 1
        first = b.layer(table.type, table.opset, ins, data, name=f"op{k}", outputs=[(None, "f32")] * count)
    outs = b.outputs_of(first)
    spec = b.layers[first.layer]
    spec.outputs = [(dims, et, (_out_name(k, j),)) for j, (dims, et, _) in enumerate(spec.outputs)]
    for j, o in enumerate(outs):
        b.result(o, name=f"c{k}_result{j}")
    return (None, error) if error is not None else (outs, None)


def _attr_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


def _write(b: IRBuilder, path: Path) -> str:
    b.write(path)
    return str(path)


def _feeds(cases: Sequence[tuple[int, Case]]) -> dict[str, np.ndarray]:
    return {f"c{k}_in{i}": np.asarray(arr) for k, c in cases for i, arr in enumerate(c.inputs) if i not in c.const}


def _batch(table: OpTable, cases: Sequence[tuple[int, Case]], path: Path) -> str:
    b = IRBuilder(name=str(table))
    for k, c in cases:
        shapes = {i: _variant(np.shape(x), "dynamic") for i, x in enumerate(c.inputs)} if c.dynamic else None
        _, error = _add_case(b, table, k, c.inputs, c.attrs, c.const, shapes)
        if error is not None:
            raise AssertionError(f"case {c.id}: irexec refuses a valid case: {error}")
    return _write(b, path)


# ------------------------------------------------------------------ comparing

def _ordered(a: np.ndarray) -> np.ndarray:
    """Float bits mapped to int64 integers whose order is the order of the values
    (f64 included: its sign is the sign of the bits read as int64)."""
    width = a.dtype.itemsize * 8
    bits = raw_bits(a)
    negative = bits.view(f"i{a.dtype.itemsize}") < 0
    mag = (bits & bits.dtype.type((1 << (width - 1)) - 1)).astype(np.int64)
    return np.where(negative, -mag, mag)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Units in the last place between two float arrays of one type; a distance
    past int64 (opposite signs of huge f64 values) saturates rather than wraps."""
    og, ow = _ordered(got), _ordered(want)
    top = np.iinfo(np.int64).max
    same_sign = (og >= 0) == (ow >= 0)
    ag, aw = np.abs(og), np.abs(ow)
    apart = np.where(ag > top - aw, top, ag + aw)  # opposite signs: the sum of magnitudes
    return np.where(same_sign, np.abs(np.where(same_sign, og - ow, 0)), apart)


def assert_close(got: np.ndarray, want: np.ndarray, tol: Tol, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype == object or want.dtype == object:  # strings: byte for byte
        assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
        g, w = strings.as_bytes(got).reshape(-1).tolist(), strings.as_bytes(want).reshape(-1).tolist()
        bad = [i for i, (x, y) in enumerate(zip(g, w)) if x != y]
        assert not bad, f"{what}: {len(bad)} of {len(g)} strings differ; first: " + \
            ", ".join(f"{i}: {g[i]!r} vs {w[i]!r}" for i in bad[:5])
        return
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    is_float = got.dtype.kind == "f" or got.dtype.name == "bfloat16"
    if tol.exact or not is_float:
        bad = raw_bits(got) != raw_bits(want)
        if is_float:  # any NaN matches any NaN: payloads are not part of any promise
            g64, w64 = got.astype(np.float64), want.astype(np.float64)
            bad &= ~(np.isnan(g64) & np.isnan(w64))
    else:
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        nan_g, nan_w = np.isnan(g64), np.isnan(w64)
        if tol.ulps is not None:
            dist = ulp_distance(got, want)
            bad = (dist > tol.ulps) & ~(nan_g & nan_w)
        else:
            with np.errstate(invalid="ignore", over="ignore"):
                bad = ~np.isclose(g64, w64, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
            bad |= (np.isinf(g64) | np.isinf(w64)) & (g64 != w64)
        bad |= nan_g != nan_w
    if bad.any():
        idx = [tuple(int(i) for i in w) for w in np.argwhere(bad)[:5]]
        details = ", ".join(f"{i}: {got[i]!r} vs {want[i]!r}" for i in idx)
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} elements differ beyond {tol}; first: {details}")


# ------------------------------------------------------------------ aspects

def check_reference(table: OpTable, tmp: Path) -> None:
    cases = list(enumerate(table.cases))
    if table.reference is None and not any(c.expect for c in table.cases):
        pytest.skip("no reference and no hand-worked outputs for this table")
    xml = _batch(table, cases, tmp / "model.xml")
    got = irexec.run(xml, _feeds(cases))
    for k, c in cases:
        outs = [got[name] for name in _names_of(got, k)]
        if table.reference is not None:
            want = table.reference([np.asarray(x) for x in c.inputs], dict(c.attrs))
            assert len(outs) == len(want), f"case {c.id}: {len(outs)} outputs, reference has {len(want)}"
            for j, (g, w) in enumerate(zip(outs, want)):
                assert_close(g, w, table.tol, f"case {c.id} output {j} vs reference")
        for j, w in enumerate(c.expect or ()):
            assert_close(outs[j], np.asarray(w), Tol.EXACT if table.tol.exact else table.tol, f"case {c.id} output {j} vs expected")


def _names_of(outputs: dict[str, np.ndarray], k: int) -> list[str]:
    prefix = f"c{k}_out"
    return sorted((n for n in outputs if n.startswith(prefix)), key=lambda n: int(n[len(prefix):]))


def check_openvino_values(table: OpTable, tmp: Path) -> None:
    cases = [(k, c) for k, c in enumerate(table.cases) if c.ov is True]
    if not cases:
        pytest.skip("every case is a documented divergence from OpenVINO CPU")
    xml = _batch(table, cases, tmp / "model.xml")
    ours = irexec.run(xml, _feeds(cases))
    theirs = infer(compile_ir(xml), _feeds(cases))
    tol = table.ov_tol or table.tol
    for k, c in cases:
        for name in _names_of(ours, k):
            assert name in theirs, f"case {c.id}: OpenVINO has no output {name}"
            got, want = ours[name], theirs[name]
            keep = host_independent(table, c, got.shape)
            if keep is not None:
                got, want = got[keep], want[keep]
            assert_close(got, want, tol, f"case {c.id} {name} vs OpenVINO CPU")


def host_independent(table: OpTable, case: Case, shape: tuple[int, ...]) -> np.ndarray | None:
    """The mask of the elements of an output of ``shape`` that every host's
    OpenVINO CPU computes alike (None: all of them)."""
    if not table.ov_elements:
        return None
    inputs = [np.asarray(x) for x in case.inputs]
    marked = np.zeros(shape, bool)
    for rule in table.ov_elements:
        marked |= np.broadcast_to(rule.where(inputs, dict(case.attrs)), shape)
    return ~marked


VARIANTS = ("static", "dynamic", "interval", "dynamic-rank")


def _variant(shape: tuple[int, ...], variant: str) -> str:
    if variant == "static":
        return ",".join(map(str, shape))
    if variant == "dynamic":
        return ",".join("?" for _ in shape)
    if variant == "interval":
        return ",".join(f"{max(d - 1, 0)}..{d + 2}" for d in shape)
    return "..."


def _first_line(e: Exception) -> str:
    return (str(e).splitlines() or [""])[0][:200]


def check_openvino_shapes(table: OpTable, tmp: Path) -> None:
    # every file is written first and read by OpenVINO in one child process (a crash fails the case, not pytest)
    runs = []
    for k, c in enumerate(table.cases):
        if c.ov_shapes is not True:
            continue
        params = [i for i in range(len(c.inputs)) if i not in c.const]
        for variant in VARIANTS:
            if variant != "static" and not params:
                continue
            b = IRBuilder(name=f"{table}-{variant}")
            shapes = {i: _variant(np.shape(c.inputs[i]), variant) for i in params}
            _, error = _add_case(b, table, 0, c.inputs, c.attrs, c.const, shapes)
            xml = _write(b, tmp / f"c{k}-{variant}.xml")
            runs.append((xml, error, f"case {c.id} ({variant}: {', '.join(shapes.values()) or 'constants'})"))
    if not runs:
        pytest.skip("no case compares shapes with OpenVINO")
    failures = []
    for (xml, error, where), theirs in zip(runs, openvino_outputs([(xml, "op0") for xml, _, _ in runs])):
        if isinstance(theirs, Crash):
            failures.append(f"{where}: {theirs}; give the case ov_shapes=<a reason naming the crash>")
            continue
        result = irexec.check(xml)
        errors = [d for d in result.errors if d.code != "shape-mismatch"]
        if isinstance(theirs, Exception):
            if not errors and error is None:
                failures.append(f"{where}: OpenVINO refuses it ({_first_line(theirs)}) but irexec accepts it")
            continue
        if errors or error is not None:
            failures.append(f"{where}: OpenVINO accepts it but irexec refuses: {error or errors[0]}")
            continue
        lid = next(layer.id for layer in irexec.read_model(xml).layers.values() if layer.name == "op0")
        for j, (ov_shape, ov_type) in enumerate(theirs):
            info = result.tensors.get((lid, j))
            if info is None:
                failures.append(f"{where} output {j}: irexec inferred nothing")
                continue
            want = parse_partial_shape(ov_shape)
            ours = "dynamic" if info.etype.name == "undefined" else info.etype.name  # IR writes both as UNSPECIFIED
            if info.shape != want or ours != ov_type:
                failures.append(f"{where} output {j}: irexec {info.etype.name}{info.shape}, OpenVINO {ov_type}{want}")
    assert not failures, "\n".join(failures)


def check_declared_dims(table: OpTable, tmp: Path) -> None:
    cases = list(enumerate(table.cases))
    xml = _batch(table, cases, tmp / "model.xml")
    tree = etree.parse(xml)
    corrupted = set()
    for k, _ in cases:
        layer = tree.find(f".//layer[@name='op{k}']")
        # the first static dim of any output port (a data-dependent dim is written as -1)
        dims = layer.findall("output/port/dim") if layer is not None else []
        dim = next((d for d in dims if int(d.text) >= 0), None)
        if dim is not None:
            dim.text = str(int(dim.text) + 1)
            corrupted.add(f"op{k}")
    if not corrupted:
        pytest.skip("no case has a static output dim to corrupt")
    tree.write(xml)
    result = irexec.check(xml)
    flagged = {d.layer_name for d in result.errors if d.code == "shape-mismatch" and d.port_kind == "output"}
    assert corrupted <= flagged, f"corrupted dims not caught in {sorted(corrupted - flagged)}"


def check_errors(table: OpTable, tmp: Path) -> None:
    if not table.errors:
        pytest.skip("no error cases")
    failures = []
    for n, e in enumerate(table.errors):
        b = IRBuilder(name=f"{table}-error")
        shapes = {i: s for i, (s, _) in e.shapes.items()}
        types = {i: t for i, (_, t) in e.shapes.items()}
        try:
            _add_case(b, table, 0, e.inputs, e.attrs, e.const, shapes, types)
        except IRExecError as err:  # refused while the attributes were parsed
            if e.code not in {d.code for d in err.diagnostics}:
                failures.append(f"{e.id}: refused with {err.code}, expected {e.code}")
            continue
        xml = _write(b, tmp / f"error{n}.xml")
        result = irexec.check(xml)
        codes = {d.code for d in result.errors if d.layer_name == "op0"}
        if e.code not in codes:
            failures.append(f"{e.id}: irexec check gave {sorted(codes) or 'no error'}, expected {e.code}")
    assert not failures, "\n".join(failures)


def check_openvino_refuses(table: OpTable, tmp: Path) -> None:
    runs = []
    for n, e in enumerate(table.errors):
        if e.ov is not True:
            continue
        b = IRBuilder(name=f"{table}-error")
        shapes = {i: s for i, (s, _) in e.shapes.items()}
        types = {i: t for i, (_, t) in e.shapes.items()}
        try:
            _add_case(b, table, 0, e.inputs, e.attrs, e.const, shapes, types)
        except IRExecError:  # an attribute irexec cannot parse: no layer to show OpenVINO
            continue
        runs.append((e, _write(b, tmp / f"error{n}.xml")))
    if not runs:
        pytest.skip("no error cases OpenVINO's shape inference sees")
    failures = []
    # one child process reads every file: a crash inside OpenVINO fails its case instead of killing pytest
    for (e, _), theirs in zip(runs, openvino_outputs([(xml, "op0") for _, xml in runs])):
        if isinstance(theirs, Crash):
            # neither a refusal nor an acceptance: the case documents it with ov=<a reason naming the crash>
            failures.append(f"{e.id}: {theirs}; give the case ov=<a reason naming the crash>")
        elif not isinstance(theirs, Exception):
            failures.append(f"{e.id}: OpenVINO's shape inference accepts it ({theirs}) but irexec refuses it ({e.code})")
    assert not failures, "\n".join(failures)


CHECKS: dict[str, Callable[[OpTable, Path], None]] = {
    "reference": check_reference,
    "openvino-values": check_openvino_values,
    "openvino-shapes": check_openvino_shapes,
    "declared-dims": check_declared_dims,
    "errors": check_errors,
    "openvino-refuses": check_openvino_refuses,
}
