"""The decompression rule on chains no list of shapes names: NNCF's codebook
(CB4) and NVFP4 chains, scales computed through several Multiplies, a scale
Const converted to f16; each against OpenVINO CPU at f32, and the chains the
rule does not cover named by `irexec check -v`."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from openvino import opset13 as ops  # noqa: E402
from oracle import core, packed_tensor  # noqa: E402

import irexec  # noqa: E402
from irexec.base import lowbit  # noqa: E402
from irexec.executor.cache import run_cache  # noqa: E402
from irexec.model.rewrites import decompression  # noqa: E402

CPU_F32 = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
ROWS, COLS, GROUP = 96, 128, 16
GROUPS = COLS // GROUP
# NNCF's CB4 codebook (an f8e4m3 table of 16 values)
CODEBOOK = np.array([-8, -6, -4, -3, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)


def _packed(codes: np.ndarray, etype: str) -> ov.Node:
    return ops.constant(packed_tensor(lowbit.pack(lowbit.from_codes(codes.astype(np.uint8), etype), etype),
                                      list(codes.shape), etype))


def _finite_codes(etype: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    codes = rng.integers(0, 1 << lowbit.DTYPES[etype][1], shape).astype(np.uint8)
    return np.where(np.isfinite(lowbit.to_number(lowbit.from_codes(codes, etype))), codes, 0).astype(np.uint8)


def _grouped(w: ov.Node) -> ov.Node:
    """[rows, groups, group] -> [rows, cols], then Convert(f32), as NNCF writes it."""
    return ops.convert(ops.reshape(w, ops.constant(np.array([ROWS, COLS], np.int64)), special_zero=False), "f32")


def cb4(rng: np.random.Generator) -> ov.Node:
    """Multiply(Gather(Convert(f8e4m3 codebook -> f16), Convert(u4 index -> u8)), f16 scale) -> Reshape -> Convert."""
    book = ops.constant(packed_tensor(CODEBOOK.astype(ml_dtypes.float8_e4m3fn).view(np.uint8), [16], "f8e4m3"))
    index = ops.convert(_packed(rng.integers(0, 16, (ROWS, GROUPS, GROUP)), "u4"), "u8")
    w = ops.gather(ops.convert(book, "f16"), index, ops.constant(np.array(0, np.int32)))
    scale = ops.constant((rng.random((ROWS, GROUPS, 1)) * 0.01 + 0.002).astype(np.float16))
    return _grouped(ops.multiply(w, scale))


def nvfp4(rng: np.random.Generator) -> ov.Node:
    """Multiply(Convert(f4e2m1 -> f16), Convert(Multiply(Convert(f8e4m3 scale -> f32), f32 second-order scale) -> f16))."""
    w = ops.convert(_packed(_finite_codes("f4e2m1", (ROWS, GROUPS, GROUP), rng), "f4e2m1"), "f16")
    first = ops.convert(_packed(_finite_codes("f8e4m3", (ROWS, GROUPS, 1), rng), "f8e4m3"), "f32")
    scale = ops.convert(ops.multiply(first, ops.constant(np.array(0.0123456, np.float32))), "f16")
    return _grouped(ops.multiply(w, scale))


def two_multiplies(rng: np.random.Generator) -> ov.Node:
    """u4 weight minus a zero point, times a scale computed through two Multiplies
    (an f8e4m3 scale by per-row and global f16 factors), the scale first."""
    w = ops.convert(_packed(rng.integers(0, 16, (ROWS, GROUPS, GROUP)), "u4"), "f16")
    w = ops.subtract(w, ops.constant(np.full((ROWS, GROUPS, 1), 8, np.float16)))
    scale = ops.convert(_packed(_finite_codes("f8e4m3", (ROWS, GROUPS, 1), rng), "f8e4m3"), "f16")
    scale = ops.multiply(scale, ops.constant((rng.random((ROWS, 1, 1)) + 0.5).astype(np.float16)))
    scale = ops.multiply(scale, ops.constant(np.array(0.01, np.float16)))
    return _grouped(ops.multiply(scale, w))


def f16_factors(rng: np.random.Generator) -> ov.Node:
    """A u4 weight times a scale of two f16 Multiplies of f16 Consts (no low-bit scale)."""
    w = ops.convert(_packed(rng.integers(0, 16, (ROWS, GROUPS, GROUP)), "u4"), "f16")
    scale = ops.multiply(ops.constant((rng.random((ROWS, GROUPS, 1)) + 0.5).astype(np.float16)),
                         ops.constant((rng.random((ROWS, 1, 1)) + 0.5).astype(np.float16)))
    scale = ops.multiply(scale, ops.constant(np.array(0.0123, np.float16)))
    return _grouped(ops.multiply(w, scale))


def f32_scale(rng: np.random.Generator) -> ov.Node:
    """A u4 weight times an f32 scale Const converted to f16: the scale is rounded to f16."""
    w = ops.convert(_packed(rng.integers(0, 16, (ROWS, GROUPS, GROUP)), "u4"), "f16")
    scale = ops.convert(ops.constant((rng.random((ROWS, GROUPS, 1)) * 0.05 + 0.01).astype(np.float32)), "f16")
    return _grouped(ops.multiply(w, scale))


def small_e8m0_scale(rng: np.random.Generator) -> ov.Node:
    """An f4e2m1 weight times f8e8m0 scales of 2^-32..2^-17 converted to f16: below f16's normal
    range, so the Convert rounds them (to subnormals and zeros), as OpenVINO's does."""
    w = ops.convert(_packed(_finite_codes("f4e2m1", (ROWS, GROUPS, GROUP), rng), "f4e2m1"), "f16")
    exps = rng.integers(95, 110, (ROWS, GROUPS, 1)).astype(np.uint8)
    scale = ops.convert(ops.constant(packed_tensor(exps, [ROWS, GROUPS, 1], "f8e8m0")), "f16")
    return _grouped(ops.multiply(w, scale))


def transposed(rng: np.random.Generator) -> ov.Node:
    """A u8 weight stored [cols, rows] with a zero point and a scale per row, transposed after
    the Multiply: the rule goes on through the Transpose to the Convert(f32) the MatMul reads."""
    w = ops.convert(ops.constant(rng.integers(0, 256, (COLS, ROWS)).astype(np.uint8)), "f16")
    w = ops.subtract(w, ops.convert(ops.constant(rng.integers(100, 156, (1, ROWS)).astype(np.uint8)), "f16"))
    w = ops.multiply(w, ops.constant((rng.random((1, ROWS)) * 0.01 + 0.001).astype(np.float16)))
    return ops.convert(ops.transpose(w, ops.constant(np.array([1, 0], np.int64))), "f32")


CHAINS = {"cb4": cb4, "nvfp4": nvfp4, "two-multiplies": two_multiplies, "f16-factors": f16_factors,
          "f32-scale": f32_scale, "small-e8m0-scale": small_e8m0_scale, "transposed": transposed}


def _save(weight: ov.Node, rng: np.random.Generator, path: Path) -> tuple[str, dict[str, np.ndarray]]:
    x = ops.parameter([3, COLS], ov.Type.f32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    r = ops.result(ops.matmul(x, weight, False, True))
    r.output(0).get_tensor().set_names({"y"})
    xml = str(path / "model.xml")
    ov.save_model(ov.Model([r], [x]), xml, compress_to_fp16=False)
    return xml, {"x": rng.standard_normal((3, COLS)).astype(np.float32)}


def _openvino(xml: str, feeds: dict[str, np.ndarray]) -> np.ndarray:
    compiled = core().compile_model(core().read_model(xml), "CPU", CPU_F32)
    return np.asarray(compiled({"x": feeds["x"]})[0], np.float32)


def _within_f32_default(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """`irexec run --compare`'s default for f32: atol 1e-4 x the largest |reference|, rtol 1e-5."""
    return bool(np.all(np.abs(ours - theirs) <= 1e-4 * np.max(np.abs(theirs)) + 1e-5 * np.abs(theirs)))


@pytest.mark.parametrize("name", list(CHAINS))
def test_chain_agrees_with_openvino_cpu(name: str, tmp_path: Path, run_cli, save_npz) -> None:
    """irexec's run equals OpenVINO CPU's at f32 within `run --compare`'s default
    tolerance (and to 1e-6 of the largest output), where computing the chain as
    its types say does not."""
    rng = np.random.default_rng(3)
    xml, feeds = _save(CHAINS[name](rng), rng, tmp_path)
    theirs = _openvino(xml, feeds)
    model = irexec.load(xml)
    assert any(len(chain.layers) >= 4 for chain in decompression.find(model).values())
    ours = irexec.run(model, feeds)["y"]
    largest = float(np.max(np.abs(theirs)))
    assert float(np.max(np.abs(ours - theirs))) < 1e-6 * largest
    result = run_cli("run", xml, "--inputs", save_npz(**feeds), "--compare", save_npz("ref", y=theirs))
    assert result.exit_code == 0, result.output
    typed = irexec.load(xml)
    run_cache(typed).rewired.clear()  # every layer as its types say: the f16 product
    stepwise = irexec.run(typed, feeds)["y"]
    assert not _within_f32_default(stepwise, theirs)
    assert float(np.max(np.abs(stepwise - theirs))) > 100 * max(float(np.max(np.abs(ours - theirs))), 1e-9 * largest)


def test_decode_step_of_a_compressed_product_agrees(tmp_path: Path) -> None:
    """One row (a decode step) through each new chain agrees too (the CB4 and NVFP4
    weights are decompressed whole: only u8/u4/i8/i4 weights have a compressed product)."""
    for name in ("cb4", "nvfp4"):
        rng = np.random.default_rng(11)
        weight = CHAINS[name](rng)
        x = ops.parameter([1, COLS], ov.Type.f32, name="x")
        r = ops.result(ops.matmul(x, weight, False, True))
        r.output(0).get_tensor().set_names({"y"})
        xml = str(tmp_path / f"{name}.xml")
        ov.save_model(ov.Model([r], [x]), xml, compress_to_fp16=False)
        feeds = {"x": rng.standard_normal((1, COLS)).astype(np.float32)}
        theirs = _openvino(xml, feeds)
        ours = irexec.run(xml, feeds)["y"]
        assert float(np.max(np.abs(ours - theirs))) < 1e-6 * float(np.max(np.abs(theirs))), name


def _divide_scale(rng: np.random.Generator) -> ov.Node:
    """A scale the rule does not compute in f32: an f16 Divide of Consts, then a Multiply."""
    w = ops.convert(_packed(rng.integers(0, 16, (ROWS, GROUPS, GROUP)), "u4"), "f16")
    scale = ops.divide(ops.constant((rng.random((ROWS, GROUPS, 1)) + 0.5).astype(np.float16)),
                       ops.constant(np.array(81.0, np.float16)))
    scale = ops.multiply(scale, ops.constant((rng.random((ROWS, 1, 1)) + 0.5).astype(np.float16)))
    return _grouped(ops.multiply(w, scale))


def _shared_intermediate(rng: np.random.Generator) -> tuple[ov.Node, ov.Node]:
    """A chain whose f16 Multiply two Reshapes read: the chain ends there, rounded to f16."""
    w = ops.convert(_packed(rng.integers(0, 16, (ROWS, GROUPS, GROUP)), "u4"), "f16")
    mul = ops.multiply(w, ops.constant((rng.random((ROWS, GROUPS, 1)) * 0.01 + 0.002).astype(np.float16)))
    return _grouped(mul), _grouped(mul)


def _check_v(run_cli, xml: str) -> list[dict]:
    result = run_cli("check", xml, "--format", "json")  # (json keeps every note)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    return [d for f in report["files"] for d in f["diagnostics"] if d["code"] == "decompression-as-typed"]


def test_uncovered_chains_are_noted_by_check_v(tmp_path: Path, run_cli) -> None:
    """A scale through a Divide and a chain whose f16 intermediate two layers read
    are computed as their types say, and `check -v` says so, naming the layer;
    a covered chain gets no note, and plain `check` prints no note."""
    rng = np.random.default_rng(5)
    x = ops.parameter([3, COLS], ov.Type.f32, name="x")
    a, b = _shared_intermediate(rng)
    y = ops.add(ops.matmul(x, _divide_scale(rng), False, True),
                ops.add(ops.matmul(x, a, False, True), ops.matmul(x, b, False, True)))
    y = ops.add(y, ops.matmul(x, nvfp4(rng), False, True))
    r = ops.result(y)
    r.output(0).get_tensor().set_names({"y"})
    xml = str(tmp_path / "model.xml")
    ov.save_model(ov.Model([r], [x]), xml, compress_to_fp16=False)
    notes = _check_v(run_cli, xml)
    ops_noted = sorted(n["op"] for n in notes)
    assert ops_noted == ["MatMul-1", "MatMul-1", "Multiply-1"], notes
    assert any("Divide" in n["message"] for n in notes)
    assert all("as its element types say" in n["message"] for n in notes)
    text = run_cli("check", xml, "-v")
    assert "note[decompression-as-typed]" in text.output
    assert "decompression-as-typed" not in run_cli("check", xml).output


@pytest.mark.parametrize("name", list(CHAINS))
def test_covered_chains_get_no_note(name: str, tmp_path: Path, run_cli) -> None:
    rng = np.random.default_rng(3)
    xml, _ = _save(CHAINS[name](rng), rng, tmp_path)
    assert _check_v(run_cli, xml) == []
