"""The low-bit element types (u1, u2, u3, u4, u6, i4, nf4, f4e2m1, f8e4m3,
f8e5m2, f8e8m0) against OpenVINO: Consts written by ``ov.save_model`` from
packed bytes (every bit random, the padding bits of a last byte too) read
as OpenVINO reads them, Convert to and from each type as OpenVINO's
reference computes it, elementwise ops on u4/i4 as its CPU plugin runs them,
and a Const too short for its packed size refused with a code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from openvino import opset13 as ops
from oracle import DTYPES, OV_TYPES, core, from_tensor, packed_tensor, raw_bits, to_tensor

import irexec
from irexec.base import lowbit

TYPES = list(lowbit.DTYPES)
COUNTS = (1, 3, 5, 7, 8, 9, 13)
INTS = [t for t in TYPES if t in lowbit.NARROW_INTS]
FLOATS = [t for t in TYPES if t not in lowbit.NARROW_INTS]


def _packed_tensor(etype: str, shape: list[int], rng: np.random.Generator) -> ov.Tensor:
    nbytes = ov.Tensor(OV_TYPES[etype], shape).byte_size
    return packed_tensor(rng.integers(0, 256, nbytes, dtype=np.uint8), shape, etype)


def _reference(tensor: ov.Tensor, dst: str) -> np.ndarray:
    """OpenVINO's reference Convert (Node.evaluate, no plugin) of ``tensor`` to
    ``dst``; where the reference has no such conversion (nf4 from f32, the
    small floats from integers or f64), the CPU plugin's."""
    p = ops.parameter(list(tensor.shape), tensor.element_type)
    cv = ops.convert(p, dst)
    out = ov.Tensor(OV_TYPES[dst], list(tensor.shape))
    if cv.evaluate([out], [tensor]):
        return from_tensor(out, dst)
    folded = ops.convert(ops.constant(tensor), dst)  # compiled from a Const: folded while compiling
    for model, feeds in ((ov.Model([folded], []), {}), (ov.Model([cv], [p]), {0: tensor})):
        try:
            request = core().compile_model(model, "CPU").create_infer_request()
        except RuntimeError:
            continue
        request.infer(feeds)
        return from_tensor(request.get_output_tensor(0), dst)
    pytest.skip(f"OpenVINO has no conversion {tensor.element_type} -> {dst}")


def _assert_same(got: np.ndarray, want: np.ndarray, etype: str, what: str, source: np.ndarray | None = None) -> None:
    """Same codes (low-bit types) or bits, any NaN matching any NaN; elements
    whose source is NaN are left out for integer results (irexec's Convert gives
    0 there, see ops/convert.py; the reference gives the C cast's garbage)."""
    assert got.dtype == want.dtype, what
    if etype in lowbit.DTYPES:
        g, w = lowbit.codes_of(got, etype), lowbit.codes_of(want, etype)
        if etype in lowbit.SMALL_FLOATS:
            nan = np.isnan(lowbit.to_number(got)) & np.isnan(lowbit.to_number(want))
            g, w = g[~nan], w[~nan]
        np.testing.assert_array_equal(g, w, err_msg=what)
        return
    keep = np.ones(got.shape, bool)
    if source is not None and got.dtype.kind in "iub":
        keep = ~np.isnan(source.astype(np.float32))
    if got.dtype.kind == "f" or got.dtype == DTYPES["bf16"]:
        keep &= ~(np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32)))
    np.testing.assert_array_equal(raw_bits(got[keep]), raw_bits(want[keep]), err_msg=what)


def _save(results: list, path: Path, params: list | None = None) -> str:
    xml = str(path / "model.xml")
    ov.save_model(ov.Model(results, params or []), xml, compress_to_fp16=False)
    return xml


@pytest.mark.parametrize("etype", TYPES)
def test_const_reads_as_openvino(etype: str, tmp_path: Path) -> None:
    """Packed Consts of odd and even counts, random padding bits included,
    give OpenVINO's values (through a Convert to f32, and to i32 for the
    integers), and the raw Const output gives the same codes."""
    rng = np.random.default_rng(sum(map(ord, etype)))
    tensors, results = [], []
    for n in COUNTS:
        t = _packed_tensor(etype, [n], rng)
        tensors.append(t)
        c = ops.constant(t)
        r = ops.result(ops.convert(c, "f32"))
        r.output(0).get_tensor().set_names({f"f32_{n}"})
        results.append(r)
        raw = ops.result(c)
        raw.output(0).get_tensor().set_names({f"raw_{n}"})
        results.append(raw)
        if etype in INTS:
            r = ops.result(ops.convert(c, "i32"))
            r.output(0).get_tensor().set_names({f"i32_{n}"})
            results.append(r)
    xml = _save(results, tmp_path)
    assert f'element_type="{etype}"' in Path(xml).read_text()
    got = irexec.run(xml, {})
    for n, t in zip(COUNTS, tensors):
        want = _reference(t, "f32")
        _assert_same(got[f"f32_{n}"], want, "f32", f"{etype}[{n}] as f32")
        assert got[f"raw_{n}"].dtype == lowbit.DTYPES[etype][0]
        np.testing.assert_array_equal(lowbit.codes_of(got[f"raw_{n}"], etype), lowbit.codes_of(from_tensor(t, etype), etype))
        if etype in INTS:
            np.testing.assert_array_equal(got[f"i32_{n}"], _reference(t, "i32"))


SPECIAL = np.array([1.3126, 1.4371, 1.5626, -1.3126,  # f8e4m3: ties once rounded to f16, as OpenVINO rounds them
                    0.0, -0.0, 0.3, -0.3, 0.25, 0.75, 1.5, 2.5, 3.0, 3.5, 5.0, 6.5, 7.0, 12.0, 0.375, 1e-3, 1.9e-3, 0.1,
                    448, 449, 464, 465, 480, 500, 57344, 61440, 65504, 65536, 1e9, -1e9, 1e-39, 3e-39, 1e-45, 3e38,
                    np.inf, -np.inf, np.nan, -np.nan, 0.04, -0.05, 0.9, -0.85, 0.8614784181118011, 0.03979014977812767],
                   np.float32)
INT_SPECIAL = np.array([-300, -20, -9, -8, -1, 0, 1, 3, 5, 7, 8, 15, 16, 17, 63, 64, 300, 2**31 - 1, -2**31], np.int32)
FLOAT_FOR_INTS = np.array([-20.7, -8.5, -7.9, -0.5, 0.5, 3.7, 5.2, 7.9, 8.5, 15.5, 16.2, -1.5, np.nan, np.inf, -np.inf,
                           1e10, 63.5, 64.5, 1e20], np.float32)


@pytest.mark.parametrize("etype", TYPES)
@pytest.mark.parametrize("src", ["f32", "f16", "i32", "f64"])
def test_convert_into_lowbit_as_reference(etype: str, src: str, tmp_path: Path) -> None:
    """Convert f32/f16/f64/i32 -> each type: rounding, saturation, NaN and
    wrap-around as OpenVINO's reference Convert gives them."""
    dtype = DTYPES[src]
    if src == "i32":
        x = INT_SPECIAL
    elif etype in INTS:
        x = FLOAT_FOR_INTS.astype(dtype)
    else:
        with np.errstate(over="ignore"):
            x = np.concatenate([SPECIAL, np.random.default_rng(1).standard_normal(200).astype(np.float32) * 3]).astype(dtype)
    p = ops.parameter(list(x.shape), OV_TYPES[src], name="x")
    p.output(0).get_tensor().set_names({"x"})
    cv = ops.convert(p, etype)
    r = ops.result(cv)
    r.output(0).get_tensor().set_names({"y"})
    xml = _save([r], tmp_path, [p])
    got = irexec.run(xml, {"x": x})["y"]
    want = _reference(ov.Tensor(x), etype)
    if etype == "nf4":
        # OpenVINO's reference Convert has no f32 -> nf4; irexec follows the type's own quantize (nf4.cpp: f32
        # comparisons with its 15 midpoints); the CPU plugin differs within an ulp or two of a midpoint
        wide = x.astype(np.float64)
        near = (np.abs(wide[:, None] - lowbit.NF4_MIDPOINTS[None, :].astype(np.float64)) < 1e-7).any(axis=1)
        assert near.any() or src != "f32"
        got, want = got[~near], want[~near]
    _assert_same(got, want, etype, f"{src}->{etype}")


@pytest.mark.parametrize("etype", TYPES)
@pytest.mark.parametrize("dst", ["f16", "bf16", "i8", "u8", "i64", "boolean", "u4", "f8e4m3"])
def test_convert_from_lowbit_as_reference(etype: str, dst: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    t = _packed_tensor(etype, [64], rng)
    c = ops.constant(t)
    r = ops.result(ops.convert(c, dst))
    r.output(0).get_tensor().set_names({"y"})
    xml = _save([r], tmp_path)
    got = irexec.run(xml, {})["y"]
    want = _reference(t, dst)
    if (etype, dst) == ("nf4", "bf16"):
        # OpenVINO's reference rounds 2 of the 16 nf4 values down (0x3da2faff -> 0x3da2) and the others to
        # nearest; irexec rounds the f32 value to nearest even like any f32 -> bf16 Convert: 1 bf16 ulp apart
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2**-7)
        return
    _assert_same(got, want, dst, f"{etype}->{dst}", lowbit.to_number(from_tensor(t, etype)))


@pytest.mark.parametrize("etype", ["u4", "i4"])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "maximum"])
def test_elementwise_on_4bit_as_cpu(etype: str, op: str, tmp_path: Path) -> None:
    """Arithmetic on u4/i4 Parameters and Consts (OpenVINO's own IR-reader test
    adds two u4 tensors): the result wraps modulo 16 as OpenVINO CPU computes it."""
    rng = np.random.default_rng(3)
    lo, hi = (0, 15) if etype == "u4" else (-8, 7)
    dtype = lowbit.DTYPES[etype][0]
    a = rng.integers(lo, hi, (3, 5), endpoint=True).astype(dtype)
    b = rng.integers(lo, hi, (5,), endpoint=True).astype(dtype)
    p = ops.parameter([3, 5], OV_TYPES[etype], name="a")
    p.output(0).get_tensor().set_names({"a"})
    y = getattr(ops, op)(p, ops.constant(to_tensor(b, etype)))
    r = ops.result(y)
    r.output(0).get_tensor().set_names({"y"})
    xml = _save([r], tmp_path, [p])
    assert irexec.check(xml).errors == []
    got = irexec.run(xml, {"a": a})["y"]
    req = core().compile_model(core().read_model(xml), "CPU").create_infer_request()
    req.infer({0: to_tensor(a, etype)})
    want = from_tensor(req.get_output_tensor(0), etype)
    assert got.dtype == dtype
    # OpenVINO has no reference for arithmetic on 4-bit types: its CPU plugin is the only implementation.
    # It wraps modulo 16 except that a u4 Subtract going below 0 gives 0; irexec wraps there too.
    if (etype, op) == ("u4", "subtract"):
        below = a.astype(np.int16) < b.astype(np.int16)
        assert below.any()
        assert (want.astype(np.int8)[below] == 0).all()
        np.testing.assert_array_equal(got.astype(np.int16)[below], (a.astype(np.int16) - b.astype(np.int16))[below] % 16)
        got, want = got[~below], want[~below]
    np.testing.assert_array_equal(got.astype(np.int8), want.astype(np.int8))


def test_scalar_u4_add_from_openvino_reader_tests(tmp_path: Path) -> None:
    """The u4 Add of OpenVINO's IR-reader tests (a scalar u4 Parameter plus a
    scalar u4 Const of size 1) checks clean and runs."""
    xml = tmp_path / "model.xml"
    xml.write_text(_U4_ADD)
    (tmp_path / "model.bin").write_bytes(bytes([0x0B]))
    assert irexec.check(str(xml)).errors == []
    got = irexec.run(str(xml), {"A": np.array(9, lowbit.DTYPES["u4"][0])})
    assert int(next(iter(got.values())).astype(np.uint8)) == (9 + 11) % 16


_U4_ADD = """<?xml version="1.0" ?>
<net name="Model" version="11">
\t<layers>
\t\t<layer id="0" name="A" type="Parameter" version="opset1">
\t\t\t<data shape="" element_type="u4" />
\t\t\t<output><port id="0" precision="U4" names="A" /></output>
\t\t</layer>
\t\t<layer id="1" name="my_const" type="Const" version="opset1">
\t\t\t<data element_type="u4" shape="" offset="0" size="1" />
\t\t\t<output><port id="0" precision="U4" /></output>
\t\t</layer>
\t\t<layer id="2" name="Add_4" type="Add" version="opset1">
\t\t\t<data auto_broadcast="numpy" />
\t\t\t<input><port id="0" precision="U4" /><port id="1" precision="U4" /></input>
\t\t\t<output><port id="2" precision="U4" /></output>
\t\t</layer>
\t\t<layer id="3" name="Result_5" type="Result" version="opset1">
\t\t\t<input><port id="0" precision="U4" /></input>
\t\t</layer>
\t</layers>
\t<edges>
\t\t<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
\t\t<edge from-layer="1" from-port="0" to-layer="2" to-port="1" />
\t\t<edge from-layer="2" from-port="2" to-layer="3" to-port="0" />
\t</edges>
</net>
"""


@pytest.mark.parametrize(("etype", "n", "size"), [("u4", 7, 3), ("u1", 9, 1), ("u3", 9, 5), ("u6", 5, 5), ("i4", 4, 1),
                                                  ("f8e4m3", 3, 2)])
def test_const_size_short_for_packed_count(etype: str, n: int, size: int, tmp_path: Path) -> None:
    """A Const whose size is less than its packed bytes: const-size-mismatch from
    `irexec check` (exit 1, no traceback), naming the bit width."""
    rng = np.random.default_rng(5)
    c = ops.constant(_packed_tensor(etype, [n], rng))
    xml = _save([ops.result(ops.convert(c, "f32"))], tmp_path)
    text = Path(xml).read_text()
    need = lowbit.packed_nbytes(n, etype, lowbit.DTYPES[etype][1])
    assert f'size="{need}"' in text
    Path(xml).write_text(text.replace(f'size="{need}"', f'size="{size}"'))
    proc = subprocess.run([sys.executable, "-m", "irexec", "check", xml], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "const-size-mismatch" in proc.stdout and f"needs ({need} bytes)" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_check_accepts_every_lowbit_type(tmp_path: Path) -> None:
    """No unsupported-element-type is left for any of them."""
    rng = np.random.default_rng(11)
    results = [ops.result(ops.convert(ops.constant(_packed_tensor(t, [5], rng)), "f32")) for t in TYPES]
    params = [ops.parameter([4], OV_TYPES[t]) for t in TYPES]
    results += [ops.result(ops.convert(p, "f32")) for p in params]
    xml = _save(results, tmp_path, params)
    proc = subprocess.run([sys.executable, "-m", "irexec", "check", xml], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "unsupported-element-type" not in proc.stdout


def test_cli_writes_and_compares_lowbit_outputs(tmp_path: Path) -> None:
    """u4 and u6 inputs from an npz, outputs written to an npz (ml_dtypes' |V1,
    a structured array for u6), listed with their value range, and compared
    by value with --compare: equal passes, one element off fails."""
    p = ops.parameter([4], ov.Type.u6, name="a")
    p.output(0).get_tensor().set_names({"a"})
    q = ops.parameter([4], ov.Type.u4, name="b")
    q.output(0).get_tensor().set_names({"b"})
    r1 = ops.result(ops.reshape(p, [2, 2], False))
    r1.output(0).get_tensor().set_names({"y"})
    r2 = ops.result(ops.add(q, q))
    r2.output(0).get_tensor().set_names({"z"})
    xml = _save([r1, r2], tmp_path, [p, q])
    a = lowbit.from_codes(np.array([1, 63, 3, 0], np.uint8), "u6")
    b = lowbit.from_codes(np.array([1, 9, 3, 0], np.uint8), "u4")
    np.savez(tmp_path / "in.npz", a=a, b=b)

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "irexec", "run", xml, "--inputs", str(tmp_path / "in.npz"), *args],
                              capture_output=True, text=True)

    done = cli("--output", str(tmp_path / "out.npz"))
    assert done.returncode == 0, done.stderr
    assert "u6     [2,2]  0    63" in done.stdout
    assert cli("--compare", str(tmp_path / "out.npz")).returncode == 0
    np.savez(tmp_path / "bad.npz", y=a.reshape(2, 2), z=lowbit.from_codes(np.array([2, 2, 7, 0], np.uint8), "u4"))
    bad = cli("--compare", str(tmp_path / "bad.npz"))
    assert bad.returncode == 1 and "[2]: 6 vs 7" in bad.stdout


def test_random_inputs_of_lowbit_parameters(tmp_path: Path) -> None:
    """`irexec run` without --inputs draws every code of a narrow integer or nf4
    Parameter and rounds uniform values into a small float, as Convert would."""
    params = [ops.parameter([64], OV_TYPES[t], name=t) for t in ("u4", "i4", "u3", "nf4", "f8e4m3")]
    for p in params:
        p.output(0).get_tensor().set_names({p.get_friendly_name()})
    results = [ops.result(ops.convert(p, "f32")) for p in params]
    for r, p in zip(results, params):
        r.output(0).get_tensor().set_names({"y_" + p.get_friendly_name()})
    xml = _save(results, tmp_path, params)
    proc = subprocess.run([sys.executable, "-m", "irexec", "run", xml, "--output", str(tmp_path / "out.npz")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "[-8, 7]" in proc.stdout and "[0, 7]" in proc.stdout
    out = np.load(tmp_path / "out.npz")
    assert out["y_u4"].min() >= 0 and out["y_u4"].max() <= 15 and len(np.unique(out["y_u4"])) > 8
    assert out["y_i4"].min() < 0 and np.isin(out["y_nf4"], lowbit.NF4_VALUES).all()
    assert np.isfinite(out["y_f8e4m3"]).all() and np.abs(out["y_f8e4m3"]).max() <= 1
