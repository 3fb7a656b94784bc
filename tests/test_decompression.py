"""Weight decompression chains as NNCF writes them, run against OpenVINO CPU
at f32 inference precision: the chain's f16 arithmetic is done in f32 and
never rounded to f16 (docs/numerics.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from lxml import etree
from openvino import opset13 as ops
from oracle import core, from_tensor, packed_tensor

import irexec
from irexec.base import lowbit
from irexec.executor.cache import run_cache
from irexec.model.rewrites import decompression

CPU_F32 = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}


def _weights(etype: str, shape: tuple[int, ...], rng: np.random.Generator) -> ov.Node:
    """A Const of random codes over the type's whole range."""
    if etype in lowbit.DTYPES:
        bits = lowbit.DTYPES[etype][1]
        codes = rng.integers(0, 1 << bits, shape).astype(np.uint8)
        arr = lowbit.from_codes(codes, etype)
        if etype in lowbit.SMALL_FLOATS:  # finite weights only
            arr = lowbit.from_codes(np.where(np.isfinite(lowbit.to_number(arr)), codes, 0).astype(np.uint8), etype)
        return ops.constant(packed_tensor(lowbit.pack(arr, etype), shape, etype))
    info = np.iinfo({"u8": np.uint8, "i8": np.int8}[etype])
    return ops.constant(rng.integers(info.min, info.max, shape, endpoint=True).astype(info.dtype))


def compressed_weight(etype: str, rows: int, cols: int, rng: np.random.Generator, *, group: int | None = None,
                      zero_point: bool = True, float_type: str = "f16", to_f32: bool = True) -> ov.Node:
    """NNCF's pattern: weight Const -> Convert(f16) -> [Subtract(Convert(zp Const))] -> Multiply(f16 scale)
    -> [Reshape to [rows, cols] when grouped] -> Convert(f32)."""
    shape = (rows, cols // group, group) if group else (rows, cols)
    per = (rows, cols // group, 1) if group else (rows, 1)
    w = ops.convert(_weights(etype, shape, rng), float_type)
    if zero_point:
        zp = ops.convert(_weights(etype, per, rng), float_type)
        w = ops.subtract(w, zp)
    scale_values = (rng.random(per) * 0.02 + 0.001).astype(np.float32)
    scale = ops.constant(scale_values.astype(np.float16 if float_type == "f16" else np.float32))
    w = ops.multiply(w, scale)
    if group:
        w = ops.reshape(w, ops.constant(np.array([rows, cols], np.int64)), special_zero=False)
    return ops.convert(w, "f32") if to_f32 else w


def llm_like(tmp: Path, *, mark: bool = False) -> tuple[str, dict[str, np.ndarray]]:
    """A small decoder-like model: a u8 embedding shared by the input Gather and
    the output MatMul, and INT4 (u4 group-wise, i4 symmetric) and INT8 (u8
    asymmetric, i8 symmetric) MatMuls."""
    rng = np.random.default_rng(27)
    vocab, hidden, inter = 97, 64, 96
    ids = ops.parameter([1, -1], ov.Type.i64, name="input_ids")
    ids.output(0).get_tensor().set_names({"input_ids"})
    emb = compressed_weight("u8", vocab, hidden, rng, )  # [vocab, hidden] f32
    h = ops.gather(emb, ids, ops.constant(np.array(0, np.int64)))
    for etype, group, zp in (("u4", 32, True), ("i4", 16, False), ("u8", None, True), ("i8", None, False)):
        w1 = compressed_weight(etype, inter, hidden, rng, group=group, zero_point=zp, )
        up = ops.matmul(h, w1, False, True)
        w2 = compressed_weight(etype, hidden, inter, rng, group=group and group // 2 * 2, zero_point=zp, )
        h = ops.add(h, ops.matmul(ops.tanh(up), w2, False, True))
    logits = ops.matmul(h, emb, False, True)
    r = ops.result(logits)
    r.output(0).get_tensor().set_names({"logits"})
    xml = str(tmp / "model.xml")
    ov.save_model(ov.Model([r], [ids]), xml, compress_to_fp16=False)
    if mark:
        _mark_weight_converts(xml)
    feeds = {"input_ids": rng.integers(0, vocab, (1, 24)).astype(np.int64)}
    return xml, feeds


def _mark_weight_converts(xml: str) -> None:
    """Mark each Convert of a weight Const as ov.save_model writes the mark
    (``<rt_info><attribute name="decompression" version="0" /></rt_info>``)."""
    tree = etree.parse(xml)
    const_ids = {layer.get("id") for layer in tree.iter("layer") if layer.get("type") == "Const"}
    fed_by = {e.get("to-layer"): e.get("from-layer") for e in tree.iter("edge") if e.get("to-port") == "0"}
    for layer in tree.iter("layer"):
        if layer.get("type") == "Convert" and fed_by.get(layer.get("id")) in const_ids:
            rt = etree.Element("rt_info")
            etree.SubElement(rt, "attribute", name="decompression", version="0")
            layer.insert(1, rt)
    tree.write(xml)


def _openvino(xml: str, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    compiled = core().compile_model(core().read_model(xml), "CPU", CPU_F32)
    request = compiled.create_infer_request()
    request.infer({k: ov.Tensor(v) for k, v in feeds.items()})
    return {sorted(p.get_names())[0]: from_tensor(request.get_output_tensor(i), "f32")
            for i, p in enumerate(compiled.outputs)}


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b)) / np.max(np.abs(b)))


@pytest.mark.parametrize("mark", [False, True], ids=["unmarked", "rt_info-decompression"])
def test_compressed_llm_matches_openvino_cpu(mark: bool, tmp_path: Path) -> None:
    """INT4 and INT8 weight-compressed MatMuls and a shared u8 embedding agree
    with OpenVINO CPU at f32 tolerance, with or without rt_info marks."""
    xml, feeds = llm_like(tmp_path, mark=mark)
    if mark:
        assert 'name="decompression"' in Path(xml).read_text()
    ours = irexec.run(xml, feeds)["logits"]
    theirs = _openvino(xml, feeds)["logits"]
    assert _relative(ours, theirs) < 2e-5


def _float_chain(etype: str, rows: int, cols: int, group: int, rng: np.random.Generator, scale_type: str = "f16") -> ov.Node:
    """nf4 / f8 / f4e2m1 weights, group-wise, no zero point; an f8e8m0 scale is
    converted to f16 as NNCF writes MXFP4."""
    w = ops.convert(_weights(etype, (rows, cols // group, group), rng), "f16")
    if scale_type == "f8e8m0":
        exps = rng.integers(120, 126, (rows, cols // group, 1)).astype(np.uint8)
        scale = ops.convert(ops.constant(packed_tensor(exps, [rows, cols // group, 1], "f8e8m0")), "f16")
    else:
        scale = ops.constant((rng.random((rows, cols // group, 1)) * 0.05 + 0.01).astype(np.float16))
    w = ops.reshape(ops.multiply(w, scale), ops.constant(np.array([rows, cols], np.int64)), special_zero=False)
    return ops.convert(w, "f32")


@pytest.mark.parametrize(("etype", "scale_type"), [("nf4", "f16"), ("f8e4m3", "f16"), ("f8e5m2", "f16"),
                                                   ("f4e2m1", "f8e8m0")])
def test_float_weight_chains_match_openvino_cpu(etype: str, scale_type: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    x = ops.parameter([3, 64], ov.Type.f32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    y = ops.matmul(x, _float_chain(etype, 48, 64, 32, rng, scale_type), False, True)
    r = ops.result(y)
    r.output(0).get_tensor().set_names({"y"})
    xml = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([r], [x]), xml, compress_to_fp16=False)
    feeds = {"x": rng.standard_normal((3, 64)).astype(np.float32)}
    assert len(decompression.find(irexec.load(xml))) == 1
    ours = irexec.run(xml, feeds)["y"]
    theirs = _openvino(xml, feeds)["y"]
    assert _relative(ours, theirs) < 1e-5


def test_chains_found_as_openvino_marks_them(tmp_path: Path) -> None:
    """Every chain of the model is found, ending at its Convert to f32: the
    shared embedding's and the eight MatMuls' (nine chains)."""
    xml, _ = llm_like(tmp_path)
    model = irexec.load(xml)
    chains = decompression.find(model)
    assert len(chains) == 9
    for end, chain in chains.items():
        layer = model.layers[end]
        assert layer.type == "Convert" and model.ops[end].destination_type.name == "f32"
        assert [model.layers[lid].type for lid in chain.layers][-1] == "Convert"


def test_f16_rounding_at_every_step_is_what_openvino_does_not(tmp_path: Path) -> None:
    """The chain's value is not f16-representable: rounding each step to f16,
    as the port types say, is measurably further from OpenVINO than f32 tolerance."""
    xml, feeds = llm_like(tmp_path)
    model = irexec.load(xml)
    run_cache(model).rewired.clear()  # the per-port-type evaluation, for comparison
    stepwise = irexec.run(model, feeds)["logits"]
    theirs = _openvino(xml, feeds)["logits"]
    assert _relative(stepwise, theirs) > 1e-4


def test_f16_model_without_chains_rounds_as_declared(tmp_path: Path) -> None:
    """An f16 model with no decompression chain is computed as its types say
    (each op rounded to f16), as OpenVINO's reference does; OpenVINO CPU at f32
    precision keeps f32 inside and differs by f16 roundings."""
    rng = np.random.default_rng(3)
    x = ops.parameter([4, 64], ov.Type.f16, name="x")
    x.output(0).get_tensor().set_names({"x"})
    w = ops.constant((rng.standard_normal((64, 64)) * 0.2).astype(np.float16))
    y = ops.multiply(ops.add(ops.matmul(x, w, False, False), x), ops.constant(np.float16(0.3)))
    r = ops.result(y)
    r.output(0).get_tensor().set_names({"y"})
    xml = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([r], [x]), xml, compress_to_fp16=False)
    feeds = {"x": rng.standard_normal((4, 64)).astype(np.float16)}
    got = irexec.run(xml, feeds)["y"]
    assert got.dtype == np.float16
    step = np.matmul(feeds["x"].astype(np.float32), np.asarray(w.get_data(), np.float32)).astype(np.float16)
    step = (step.astype(np.float32) + feeds["x"].astype(np.float32)).astype(np.float16)
    want = (step.astype(np.float32) * np.float32(np.float16(0.3))).astype(np.float16)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=1e-3)


def test_chain_end_in_f16_rounds_once(tmp_path: Path) -> None:
    """A chain that does not end in a Convert to f32 (an f16 model's MatMul reads
    its f16 Multiply) gives the f32 chain value rounded once to f16."""
    rng = np.random.default_rng(5)
    w = compressed_weight("u8", 8, 16, rng, to_f32=False)
    r = ops.result(w)
    r.output(0).get_tensor().set_names({"w"})
    xml = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([r], []), xml, compress_to_fp16=False)
    got = irexec.run(xml, {})["w"]
    assert got.dtype == np.float16
    model = ov.Model([r], [])
    mul = r.input_value(0).get_node()
    q = mul.input_value(0).get_node().input_value(0).get_node().input_value(0).get_node().get_data().astype(np.float32)
    zp = mul.input_value(0).get_node().input_value(1).get_node().input_value(0).get_node().get_data().astype(np.float32)
    scale = mul.input_value(1).get_node().get_data().astype(np.float32)
    np.testing.assert_array_equal(got, ((q - zp) * scale).astype(np.float16))
    del model


def test_cli_run_compares_within_f32_tolerance(tmp_path: Path) -> None:
    """`irexec run --compare` against OpenVINO's logits passes at 1e-5 relative
    (atol 5e-3 on logits of magnitude 1000: 5e-6 of the largest)."""
    xml, feeds = llm_like(tmp_path)
    np.savez(tmp_path / "in.npz", **feeds)
    np.savez(tmp_path / "ref.npz", **_openvino(xml, feeds))
    proc = subprocess.run([sys.executable, "-m", "irexec", "run", xml, "--inputs", str(tmp_path / "in.npz"),
                           "--compare", str(tmp_path / "ref.npz"), "--rtol", "1e-5", "--atol", "5e-3"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


SMOLLM = Path(os.environ.get("IREXEC_REAL_MODELS") or Path(__file__).resolve().parents[1].parent / "shared" / "models") \
    / "smollm_int4_stateful" / "model.xml"


def test_smollm_int4_chains_and_types() -> None:
    """The shipped INT4 LLM: `irexec check` says nothing about its element types,
    and its 28 u4 MatMul weights and its u8 embedding are the 29 chains found."""
    if not SMOLLM.is_file():
        pytest.skip(f"{SMOLLM} is absent (the real models are not shipped with this checkout)")
    proc = subprocess.run([sys.executable, "-m", "irexec", "check", str(SMOLLM)], capture_output=True, text=True)
    assert "element-type" not in proc.stdout + proc.stderr
    model = irexec.load(str(SMOLLM))
    chains = decompression.find(model)
    kinds = sorted(model.ops[chain.leaves[0][0]].element_type.name for chain in chains.values())
    assert kinds == ["u4"] * 28 + ["u8"]
    assert all(model.layers[end].type == "Convert" for end in chains)


def _mark_end_converts(xml: str) -> None:
    """Mark each Convert to f32 `decompression`, as the f16 -> f32 Convert of a
    model saved with compress_to_fp16 is marked when NNCF then compresses it."""
    tree = etree.parse(xml)
    for layer in tree.iter("layer"):
        data = layer.find("data")
        if layer.get("type") == "Convert" and data is not None and data.get("destination_type") == "f32":
            rt = etree.Element("rt_info")
            etree.SubElement(rt, "attribute", name="decompression", version="0")
            layer.insert(1, rt)
    tree.write(xml)


@pytest.mark.parametrize("marked", [False, True], ids=["unmarked", "end-marked"])
@pytest.mark.parametrize("layout", ["matmul", "two-readers"])
@pytest.mark.parametrize("etype", ["u8", "i4", "nf4", "f8e4m3", "f4e2m1", "u2", "u3"])
def test_which_chains_openvino_keeps_in_f32(etype: str, layout: str, marked: bool, tmp_path: Path) -> None:
    """OpenVINO CPU keeps u8/i8/u4/i4 chains in f32 always; other weight types
    in f32 when a MatMul alone reads the chain (u3 excepted) or when the chain's
    last Convert is not marked `decompression`; otherwise it folds the chain as
    its types say.  irexec agrees to f32 rounding in every case."""
    rng = np.random.default_rng(2)
    if etype in ("nf4", "f8e4m3", "f4e2m1"):
        weight = _float_chain(etype, 50, 64, 16, rng)
    else:
        weight = compressed_weight(etype, 50, 64, rng, group=16, zero_point=etype.startswith("u"))
    if layout == "two-readers":  # a tied embedding: Gather rows, then the output MatMul
        ids = ops.parameter([1, 8], ov.Type.i64, name="x")
        y = ops.matmul(ops.gather(weight, ids, ops.constant(np.array(0, np.int64))), weight, False, True)
        feeds = {"x": rng.integers(0, 50, (1, 8)).astype(np.int64)}
        param = ids
    else:
        param = ops.parameter([5, 64], ov.Type.f32, name="x")
        y = ops.matmul(param, weight, False, True)
        feeds = {"x": rng.standard_normal((5, 64)).astype(np.float32)}
    param.output(0).get_tensor().set_names({"x"})
    r = ops.result(y)
    r.output(0).get_tensor().set_names({"y"})
    xml = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([r], [param]), xml, compress_to_fp16=False)
    if marked:
        _mark_end_converts(xml)
    ours = irexec.run(xml, feeds)["y"]
    theirs = _openvino(xml, feeds)["y"]
    assert _relative(ours, theirs) < 1e-6


def test_later_runs_keep_the_decompressed_weights_not_the_packed_ones(tmp_path: Path) -> None:
    """After the first run every chain's f32 value is kept and later runs skip
    the chains; the unpacked u4/i4 weights that only their chains read are let go."""
    xml, feeds = llm_like(tmp_path)
    model = irexec.load(xml)
    first = irexec.run(model, feeds)["logits"]
    folded = run_cache(model)
    chains = decompression.find(model)
    assert set(chains) <= set(folded.outputs)
    packed = {lid for lid, op in model.ops.items() if getattr(op, "element_type", None) is not None
              and op.element_type.packed and model.layers[lid].type == "Const"}
    assert packed and folded.chain_only == packed and not packed & set(folded.outputs)
    np.testing.assert_array_equal(irexec.run(model, feeds)["logits"], first)
    assert all(plan.compact for plan in folded.runs.values())
