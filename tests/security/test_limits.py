"""The memory limit: declared shapes, input files and every layer's output are
measured before anything is allocated, in exact integer arithmetic."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

import irexec
from irexec.api.load import load
from irexec.base import limits
from irexec.base.errors import InputError, IRExecError, ModelError
from irexec.executor.engine import run_model
from irexec.model.builder import IRBuilder
from irexec.ops.convert.convert import Convert1
from irexec.system.tensorfile import load_npz

# ------------------------------------------------------------------ sizes


@pytest.mark.parametrize("text, value", [
    ("2GiB", 2 << 30), ("512MiB", 512 << 20), ("4G", 4 * 10**9), ("1048576", 1 << 20), ("1.5k", 1500),
    (" 3 mib ", 3 << 20), ("100b", 100),
])
def test_parse_size(text: str, value: int) -> None:
    assert limits.parse_size(text) == value


@pytest.mark.parametrize("text", ["", "-1G", "0", "2 GiBs", "1e9", "lots", "0.0001"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        limits.parse_size(text)


def test_default_is_half_of_physical_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(limits.ENV_VAR, raising=False)
    ram = limits.physical_memory()
    assert ram is not None and ram > 0
    assert limits.default_max_memory() == ram // 2
    monkeypatch.setenv(limits.ENV_VAR, "3MiB")
    assert limits.default_max_memory() == 3 << 20
    assert limits.resolve(1234) == 1234  # an explicit limit wins


def test_shape_products_are_exact() -> None:
    """No int64 wrap-around: 2^40 cubed is 2^120 elements, not 0."""
    assert limits.nbytes((1 << 40,) * 3, 8) == 1 << 123
    assert limits.nbytes((), 4) == 4
    assert limits.nbytes((0, 1 << 62), 8) == 0
    assert limits.over_limit(1 << 123, 1 << 30) is not None
    assert limits.over_limit(10, 10) is None


# ------------------------------------------------------------------ models


def _convert_chain(write_ir, n: int, types=("f64",)) -> str:
    """x: f32[n] -> Convert(t1) -> Convert(t2) ... -> Result."""
    b = IRBuilder()
    y = b.parameter("x", [n], "f32")
    for t in types:
        y = b.layer("Convert", "opset1", [y], {"destination_type": t})
    b.result(y, name="out")
    return write_ir(b)


def test_layer_output_refused_before_its_kernel_runs(write_ir, monkeypatch: pytest.MonkeyPatch) -> None:
    model = load(_convert_chain(write_ir, 1000))
    calls: list[int] = []
    original = Convert1.compute
    monkeypatch.setattr(Convert1, "compute", lambda self, *a: calls.append(1) or original(self, *a))
    x = np.zeros(1000, np.float32)
    with pytest.raises(IRExecError) as info:
        run_model(model, {"x": x}, max_memory=10_000)  # input 4000 B fits, + 8000 B of f64 does not
    [d] = info.value.diagnostics
    assert d.code == "memory-limit"
    assert (d.layer_id, d.op) == (1, "Convert-1")
    assert "output f64[1000] plus 3.9 KiB (4000 bytes) of tensors still in use needs 11.7 KiB (12000 bytes)" in d.message
    assert "limit of 9.8 KiB (10000 bytes)" in d.message
    assert calls == []
    assert run_model(model, {"x": x}, max_memory=12_000).outputs["out"].dtype == np.float64


def test_live_tensors_count_towards_the_limit(write_ir) -> None:
    """f32 -> f64 -> f32: the middle step holds input and output at once."""
    model = load(_convert_chain(write_ir, 1000, ("f64", "f32")))
    x = np.zeros(1000, np.float32)
    with pytest.raises(IRExecError, match="memory-limit"):
        run_model(model, {"x": x}, max_memory=11_999)
    run_model(model, {"x": x}, max_memory=12_000)  # freed tensors no longer count


def test_inputs_over_the_limit(write_ir) -> None:
    model = load(_convert_chain(write_ir, 1000))
    with pytest.raises(InputError) as info:
        run_model(model, {"x": np.zeros(1000, np.float32)}, max_memory=3999)
    assert info.value.code == "memory-limit"


def test_const_shape_over_the_limit_at_load(write_ir) -> None:
    b = IRBuilder()
    b.result(b.const(np.zeros((16, 16), np.float64)), name="out")
    xml = write_ir(b)
    with pytest.raises(ModelError) as info:
        load(xml, max_memory=2047)
    [d] = info.value.diagnostics
    assert d.code == "memory-limit" and d.op == "Const-1" and "[16,16]" in d.message
    assert load(xml, max_memory=2048) is not None
    assert irexec.check(xml).errors == []  # a check allocates nothing: the limit does not apply


def test_parameter_over_the_default_limit_refused_by_run(write_ir, run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input larger than the machine's RAM, with the default limit (half of
    it): refused before a byte is allocated."""
    monkeypatch.delenv(limits.ENV_VAR, raising=False)
    ram = limits.physical_memory() or 0
    side = 1 << 17
    while side * side * 4 <= ram:
        side *= 2
    b = IRBuilder()
    b.result(b.parameter("x", [side, side], "f32"), name="out")
    xml = write_ir(b)
    assert run_cli("check", xml).exit_code == 0
    r = run_cli("run", xml)
    assert r.exit_code == 1, r.output
    assert "error[memory-limit]" in r.output and f"[{side},{side}]" in r.output
    assert "Traceback" not in r.output


def test_max_memory_option(write_ir, save_npz, run_cli) -> None:
    xml = _convert_chain(write_ir, 1000)
    inputs = save_npz(x=np.zeros(1000, np.float32))
    r = run_cli("run", xml, "--inputs", inputs, "--max-memory", "10KB")
    assert r.exit_code == 1 and "error[memory-limit]" in r.output, r.output
    assert 'layer 1 "Convert_1" (Convert-1)' in r.output
    r = run_cli("run", xml, "--inputs", inputs, "--max-memory", "12KB")
    assert r.exit_code == 0, r.output
    r = run_cli("run", xml, "--inputs", inputs, "--max-memory", "lots")
    assert r.exit_code == 2 and "--max-memory" in r.output


def test_env_var_sets_the_limit(write_ir, save_npz, run_cli) -> None:
    xml = _convert_chain(write_ir, 1000)
    r = run_cli("run", xml, "--inputs", save_npz(x=np.zeros(1000, np.float32)), env={limits.ENV_VAR: "10KB"})
    assert r.exit_code == 1 and "error[memory-limit]" in r.output, r.output


def test_gather_with_small_files_and_a_huge_output(write_ir, run_cli, save_npz) -> None:
    """100 KB of indices that gather a 1 x 100000 row 100000 times: 40 GB,
    refused from the inferred shape before the kernel runs."""
    n = 100_000
    b = IRBuilder()
    x = b.parameter("x", [1, n], "f32")
    idx = b.const(np.zeros(n, np.int8))
    y = b.layer("Gather", "opset8", [x, idx, b.const(np.array(0, np.int64))], {"batch_dims": 0})
    b.result(y, name="out")
    xml = write_ir(b)
    r = run_cli("run", xml, "--inputs", save_npz(x=np.zeros((1, n), np.float32)), "--max-memory", "1GiB")
    assert r.exit_code == 1, r.output
    assert "error[memory-limit]" in r.output and f"[{n},{n}]" in r.output


# ------------------------------------------------------------------ npz files


def _npy_header_only(shape: tuple[int, ...], dtype: str = "<f8", payload: bytes = b"\0" * 64) -> bytes:
    """An .npy entry whose header promises ``shape`` but carries a few bytes."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue() + payload


def test_npz_header_over_the_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("x.npy", _npy_header_only((50_000, 50_000)))
    with pytest.raises(InputError) as info:
        load_npz(str(path), max_memory=1 << 30)
    assert info.value.code == "memory-limit" and "'x'" in str(info.value)


def test_npz_zip_bomb(tmp_path: Path) -> None:
    """64 MiB of zeros deflate to 64 KiB; the header is read, the data never inflated."""
    path = tmp_path / "zeros.npz"
    n = 8 << 20
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("x.npy", "w", force_zip64=True) as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "<f8", "fortran_order": False, "shape": (n,)})
        chunk = bytes(1 << 20)
        for _ in range(n * 8 // len(chunk)):
            f.write(chunk)
    assert path.stat().st_size < 1 << 20
    with pytest.raises(InputError) as info:
        load_npz(str(path), max_memory=16 << 20)
    assert info.value.code == "memory-limit"


def test_npz_with_a_non_array_entry(tmp_path: Path) -> None:
    path = tmp_path / "extra.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("x.npy", _npy_header_only((8,)))
        zf.writestr("notes.txt", b"not an array")
    with pytest.raises(InputError) as info:
        load_npz(str(path))
    assert info.value.code == "bad-input-file" and "notes.txt" in str(info.value)


def test_npz_negative_dims_cannot_offset_the_total(tmp_path: Path) -> None:
    """An entry claiming -10^12 elements must not make room for a real 8 GB one."""
    path = tmp_path / "offset.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("big.npy", _npy_header_only((1 << 30,)))
        zf.writestr("neg.npy", _npy_header_only((-(10**12),)))
    with pytest.raises(InputError) as info:
        load_npz(str(path), max_memory=1 << 20)
    assert info.value.code in ("bad-input-file", "memory-limit")
    path2 = tmp_path / "offset2.npz"
    with zipfile.ZipFile(path2, "w") as zf:
        zf.writestr("neg.npy", _npy_header_only((-(10**12),)))
        zf.writestr("big.npy", _npy_header_only((1 << 30,)))
    with pytest.raises(InputError) as info:
        load_npz(str(path2), max_memory=1 << 20)
    assert info.value.code == "bad-input-file" and "negative" in str(info.value)


def test_max_memory_applies_to_the_reference_file(write_ir, save_npz, run_cli, tmp_path: Path) -> None:
    xml = _convert_chain(write_ir, 10)
    ref = tmp_path / "ref.npz"
    with zipfile.ZipFile(ref, "w") as zf:
        zf.writestr("out.npy", _npy_header_only((1 << 20,)))  # claims 8 MiB
    r = run_cli("run", xml, "--inputs", save_npz(x=np.zeros(10, np.float32)), "--compare", ref, "--max-memory", "1MiB")
    assert r.exit_code == 1 and "error[memory-limit]" in r.output and "ref.npz" in r.output, r.output
