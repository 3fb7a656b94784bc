"""Kernel temporaries stay a small fraction of the output: the f16 -> i8
Convert and the batched Gather with small rows used to allocate 40x and 8x
their output in temporaries, far past --max-memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irexec.kernels import convert as convert_kernel
from irexec.kernels.convert import convert_array
from irexec.model.builder import IRBuilder
from irexec.ops.movement import gather as gather_module

ROOT = Path(__file__).resolve().parents[2]
MiB = 1 << 20


def _old_convert(data: np.ndarray, dst: np.dtype) -> np.ndarray:
    wide = np.trunc(data.astype(np.float64))
    wide = np.where(np.isfinite(wide) & (np.abs(wide) < float(2**63)), wide, 0.0)
    return wide.astype(np.int64).astype(dst)


@pytest.mark.parametrize("dst", [np.int8, np.uint8, np.int32, np.uint64, np.int64])
def test_chunked_convert_matches_the_whole_tensor_formula(dst: type, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(convert_kernel, "CHUNK_ELEMENTS", 7)
    values = np.array([0, -0.5, 1.9, -1.9, 127.7, 128, 255.5, 256, -129, 3e9, -3e9, 1e19, -1e19, np.inf, -np.inf, np.nan]
                      + list(np.linspace(-1e5, 1e5, 33)), np.float64)
    for src in (np.float16, np.float32, np.float64):
        with np.errstate(over="ignore"):
            data = values.astype(src).reshape(7, 7)
        with np.errstate(over="ignore", invalid="ignore"):
            expected = _old_convert(data, np.dtype(dst))
        np.testing.assert_array_equal(convert_array(data, np.dtype(dst)), expected)
        np.testing.assert_array_equal(convert_array(data[:, ::2], np.dtype(dst)), expected[:, ::2])


def test_chunked_gather_rows_match_the_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gather_module, "_ROW_CHUNK", 5)
    rng = np.random.default_rng(0)
    data = rng.integers(0, 255, (100, 3, 4, 2), dtype=np.uint8)  # batches 100 > 64, tiny blocks: the row-table path
    indices = rng.integers(-4, 4, (100, 6), dtype=np.int64)
    out = gather_module.gather(data, indices, axis=2, batch_dims=1)
    expected = np.stack([np.take(data[b], indices[b] % 4, axis=1) for b in range(100)])
    np.testing.assert_array_equal(out, expected)
    indices[::3, 1] = 9  # out of range: zeros
    out = gather_module.gather(data, indices, axis=2, batch_dims=1)
    expected[::3, :, 1, :] = 0
    np.testing.assert_array_equal(out, expected)


def _peak_rss(args: list[str]) -> int:
    """Peak resident bytes of the real command line, in a child process."""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("reads the peak RSS from /proc")
    # VmHWM, not ru_maxrss: the latter keeps the peak of the forking parent across exec
    code = ("import sys\nfrom irexec.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
            "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
            "print('PEAK', hwm, code, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), IREXEC_RETAIN_MEMORY="0"))
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("PEAK")][-1]
    _, kib, code = line.split()
    assert code in ("0", "None"), proc.stderr
    return int(kib) * 1024


def _convert_model(tmp_path: Path, n: int) -> tuple[Path, Path]:
    b = IRBuilder()
    x = b.parameter("x", [n], "f16")
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "i8"}), name="y")
    xml, _ = b.write(tmp_path / f"convert{n}.xml")
    inputs = tmp_path / f"in{n}.npz"
    np.savez(inputs, x=np.linspace(-300, 300, n, dtype=np.float16))
    return Path(xml), inputs


def test_convert_f16_to_i8_stays_near_its_tensors(tmp_path: Path) -> None:
    n = 24 << 20  # 48 MiB in, 24 MiB out; the whole-tensor formula allocated about 1 GiB of temporaries
    small = _peak_rss(["run", str(_convert_model(tmp_path, 1024)[0]), "--inputs", str(_convert_model(tmp_path, 1024)[1])])
    xml, inputs = _convert_model(tmp_path, n)
    big = _peak_rss(["run", str(xml), "--inputs", str(inputs), "--max-memory", "200MiB"])
    tensors = n * 2 * 2 + n  # the input, its copy read from the npz, the output
    assert big - small < tensors + 64 * MiB, f"{big / MiB:.0f} - {small / MiB:.0f} MiB for {tensors / MiB:.0f} MiB of tensors"


def test_batched_u8_gather_stays_near_its_tensors(tmp_path: Path) -> None:
    batches, count = 1 << 14, 1 << 10  # 16 Mi one-byte rows in small blocks: a whole row table was 128 MiB
    b = IRBuilder()
    x = b.parameter("x", [batches, 4], "u8")
    idx = b.const(np.tile(np.arange(count, dtype=np.int32) % 4, (batches, 1)))
    b.result(b.layer("Gather", "opset8", [x, idx, b.const(np.array(1, np.int64))], {"batch_dims": "1"}), name="y")
    xml, _ = b.write(tmp_path / "gather.xml")
    small_b = IRBuilder()
    xs = small_b.parameter("x", [batches, 4], "u8")
    small_b.result(small_b.layer("Gather", "opset8", [xs, small_b.const(np.zeros((batches, 1), np.int32)),
                                                      small_b.const(np.array(1, np.int64))], {"batch_dims": "1"}), name="y")
    small_xml, _ = small_b.write(tmp_path / "small.xml")
    small = _peak_rss(["run", small_xml])
    big = _peak_rss(["run", xml, "--max-memory", "200MiB"])
    tensors = batches * count * 4 + batches * count  # the i32 indices Const (mapped) and the u8 output
    assert big - small < tensors + 48 * MiB, f"{(big - small) / MiB:.0f} MiB over start-up for {tensors / MiB:.0f} MiB of tensors"
