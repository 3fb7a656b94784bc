"""IR files written by OpenVINO itself (``ov.save_model``), with and without fp16
weight compression: irexec checks them clean and runs them to the same bits
as OpenVINO's CPU plugin, with output keys following the naming rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
import openvino.opset1 as op1
import openvino.opset8 as op8
from oracle import (
    ALL_TYPES,
    DTYPES,
    assert_same_bits,
    constant,
    parameter,
    run_ir,
    save,
)

import irexec

COMPRESS = pytest.mark.parametrize("compress", [False, True], ids=["f32-weights", "fp16-compressed"])


def random_bits(rng: np.random.Generator, shape: tuple[int, ...], etype: str) -> np.ndarray:
    """Any bit pattern of the type (NaN payloads, signalling NaNs, -0, denormals)."""
    dtype = DTYPES[etype]
    if etype == "boolean":
        return rng.integers(0, 2, shape).astype(np.bool_)
    raw = rng.integers(0, 1 << (8 * dtype.itemsize), shape, dtype=np.uint64, endpoint=False)
    return raw.astype(f"u{dtype.itemsize}").view(dtype)


def save_and_check(model: ov.Model, path: Path, compress: bool) -> str:
    xml = save(model, path, compress_to_fp16=compress)
    result = irexec.check(xml)
    assert result.errors == [], "\n".join(str(d) for d in result.errors)
    return xml


def run_both(xml: str, feeds: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    ours = irexec.run(irexec.load(xml), feeds)
    theirs = run_ir(xml, feeds)
    return ours, theirs


@COMPRESS
@pytest.mark.parametrize("etype", ALL_TYPES)
def test_parameter_to_result_every_type(tmp_path, etype, compress):
    rng = np.random.default_rng(sum(map(ord, etype)))
    p = parameter([3, 5], etype, "x")
    model = ov.Model([op1.result(p)], [p], "identity")
    xml = save_and_check(model, tmp_path / "m.xml", compress)
    x = random_bits(rng, (3, 5), etype)
    ours, theirs = run_both(xml, {"x": x})
    assert list(ours) == list(theirs) == ["x"]
    assert_same_bits(ours["x"], theirs["x"], etype)
    assert_same_bits(ours["x"], x, etype)


@COMPRESS
def test_f32_const_to_result(tmp_path, compress):
    # Some values f16 holds exactly, some it does not: compression rounds
    # them, and irexec must read the compressed file to OpenVINO's answer.
    value = np.array([[0.0, -0.0, 1.5, 65504.0], [0.1, 1e-3, 3.14159, -2.0e4]], np.float32)
    c = op8.constant(value, name="w")
    c.output(0).get_tensor().set_names({"weights"})
    model = ov.Model([op1.result(c)], [], "const")
    xml = save_and_check(model, tmp_path / "m.xml", compress)
    if compress:
        text = Path(xml).read_text()
        assert 'element_type="f16"' in text and "decompression" in text, "expected an f16 Const -> Convert pair"
    ours, theirs = run_both(xml, {})
    assert list(ours) == ["weights"]
    assert_same_bits(ours["weights"], theirs["weights"])
    if not compress:
        assert_same_bits(ours["weights"], value)
    else:
        assert_same_bits(ours["weights"], value.astype(np.float16).astype(np.float32))


CHAINS = [
    # (const values, const type, convert chain)
    (np.array([-3, 0, 7, 100, -128, 127]), "i32", ["f32", "f16", "f32"]),
    (np.array([-3.9, -0.5, 0.0, 2.7, 126.99, -127.2]), "f32", ["i8", "i32", "f64"]),
    (np.array([0, 1, 2, 255, 17, 0]), "u8", ["boolean", "i32"]),
    (np.array([1.0, -2.5, 3.25, 1e4, -0.0, 0.125]), "f16", ["bf16", "f32"]),
    (np.array([65535, 0, 1, 40000, 12, 7]), "u16", ["i64", "u32", "f32"]),
    (np.array([0.5, 1.5, -1.75, 2.0, 1e6, -3e5]), "f64", ["f32", "i32"]),
]


@COMPRESS
@pytest.mark.parametrize("case", range(len(CHAINS)))
def test_const_convert_chains(tmp_path, case, compress):
    values, ctype, chain = CHAINS[case]
    node = constant(values, ctype, name="c")
    outputs = []
    for i, dst in enumerate(chain):
        node = op1.convert(node, destination_type=dst if dst != "boolean" else "boolean")
        node.output(0).get_tensor().set_names({f"step{i}_{dst}"})
        outputs.append(op1.result(node))
    model = ov.Model(outputs, [], "chain")
    xml = save_and_check(model, tmp_path / "m.xml", compress)
    ours, theirs = run_both(xml, {})
    assert list(ours) == [f"step{i}_{dst}" for i, dst in enumerate(chain)]
    assert list(theirs) == list(ours)
    for key in ours:
        assert_same_bits(ours[key], theirs[key], key)


@COMPRESS
def test_parameter_through_converts_with_weights(tmp_path, compress):
    """A Parameter and a Const meet in the outputs: f32 data, f32 weights
    (compressed when asked), Convert chains on both."""
    p = parameter([2, 3], "f32", "x")
    w = op8.constant(np.array([[1.25, -2.0, 3.5], [0.0, 7.0, -0.5]], np.float32), name="w")
    w.output(0).get_tensor().set_names({"w"})
    to_i16 = op1.convert(p, "i16")
    to_i16.output(0).get_tensor().set_names({"x as i16"})
    model = ov.Model([op1.result(to_i16), op1.result(w)], [p], "mixed")
    xml = save_and_check(model, tmp_path / "m.xml", compress)
    x = np.array([[1.9, -2.9, 300.5], [-0.0, 32767.0, -32768.0]], np.float32)
    ours, theirs = run_both(xml, {"x": x})
    assert list(ours) == list(theirs) == ["x as i16", "w"]
    for key in ours:
        assert_same_bits(ours[key], theirs[key], key)


@COMPRESS
def test_several_results_names_with_commas_and_spaces(tmp_path, compress):
    p = parameter([4], "f32", "in, put")
    a = op1.convert(p, "i32")
    a.output(0).get_tensor().set_names({"zz", "a,b", "roll out"})
    b = op1.convert(p, "f16")
    b.output(0).get_tensor().set_names({"second output"})
    c = op1.convert(b, "f32")  # no tensor name: keyed by its Result's name
    r_c = op1.result(c)
    r_c.set_friendly_name("plain result")
    model = ov.Model([op1.result(a), op1.result(b), r_c], [p], "names")
    xml = save_and_check(model, tmp_path / "m.xml", compress)
    text = Path(xml).read_text()
    assert 'names="a\\,b,roll out,zz"' in text
    x = np.array([1.5, -2.5, 1e4, 0.1], np.float32)
    ours, theirs = run_both(xml, {"in, put": x})
    # sorted names, first one wins; a comma inside a name survives the escape
    assert list(ours) == ["a,b", "second output", "plain result"]
    assert list(theirs)[:2] == ["a,b", "second output"]
    assert_same_bits(ours["a,b"], theirs["a,b"])
    assert_same_bits(ours["second output"], theirs["second output"])
    # OpenVINO's CPU plugin removes the f32->f16->f32 round trip (0.1 comes
    # back unrounded); the Converts say to round, as irexec does.
    assert_same_bits(ours["plain result"], x.astype(np.float16).astype(np.float32))


def test_two_results_on_one_tensor_get_their_own_keys(tmp_path):
    p = parameter([3], "i32", "x")
    y = op1.convert(p, "f32")
    y.output(0).get_tensor().set_names({"y"})
    r1, r2 = op1.result(y), op1.result(y)
    r1.set_friendly_name("first")
    r2.set_friendly_name("second")
    model = ov.Model([r1, r2], [p], "twice")
    xml = save_and_check(model, tmp_path / "m.xml", False)
    x = np.array([1, -2, 3], np.int32)
    ours = irexec.run(irexec.load(xml), {"x": x})
    # the first Result takes the tensor's name, the later one its own layer name
    assert list(ours) == ["y", "second"]
    compiled_out = run_ir(xml, {"x": x})
    for arr in ours.values():
        assert_same_bits(arr, next(iter(compiled_out.values())))


DYNAMIC_SHAPES = [
    ("?", (7,)),
    ("?,3", (2, 3)),
    ("1..10,?", (10, 1)),
    ("2..,4", (5, 4)),
    ("..5", (0,)),
    ("..5,2..3", (5, 2)),
    ("?,?,?", (1, 2, 3)),
]


@COMPRESS
@pytest.mark.parametrize("shape,feed_shape", DYNAMIC_SHAPES, ids=[s for s, _ in DYNAMIC_SHAPES])
def test_interval_and_dynamic_parameters(tmp_path, shape, feed_shape, compress):
    p = parameter(shape, "f32", "x")
    y = op1.convert(p, "f16")
    y.output(0).get_tensor().set_names({"y"})
    model = ov.Model([op1.result(y), op1.result(p)], [p], "dynamic")
    xml = save_and_check(model, tmp_path / "m.xml", compress)
    assert f'shape="{shape}"' in Path(xml).read_text()
    x = np.random.default_rng(1).standard_normal(feed_shape).astype(np.float32) * 100
    ours, theirs = run_both(xml, {"x": x})
    assert list(ours) == list(theirs) == ["y", "x"]
    for key in ours:
        assert_same_bits(ours[key], theirs[key], key)


def test_feed_outside_interval_is_refused_by_both(tmp_path):
    p = parameter("1..3,2", "f32", "x")
    model = ov.Model([op1.result(p)], [p], "interval")
    xml = save_and_check(model, tmp_path / "m.xml", False)
    x = np.zeros((4, 2), np.float32)
    with pytest.raises(irexec.InputError, match="accepts"):
        irexec.run(irexec.load(xml), {"x": x})
    with pytest.raises(Exception, match="incompatible|Can't set"):
        run_ir(xml, {"x": x})


@pytest.mark.parametrize("etype", ["f32", "i32", "boolean", "bf16"])
def test_scalar_parameter(tmp_path, etype):
    p = parameter([], etype, "s")
    model = ov.Model([op1.result(p)], [p], "scalar")
    xml = save_and_check(model, tmp_path / "m.xml", False)
    s = np.array(1, DTYPES[etype])
    ours, theirs = run_both(xml, {"s": s})
    assert ours["s"].shape == theirs["s"].shape == ()
    assert_same_bits(ours["s"], theirs["s"])
