"""Values read from files and tensors computed by fused layers are sized by
inference and held to a budget before a byte is read, unpacked or allocated:
low-bit Consts in check, pre-process mean blobs, decompression chains,
variables without an initial value.

Each case runs the real command line in a child whose address space is capped
(RLIMIT_AS), where the attack used to need gigabytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import value_budget_files as files
from test_check_budget import _clean, cli


@pytest.mark.parametrize("etype,elements", [("u4", 1 << 28), ("u1", 1 << 33), ("i4", 1 << 28)])
@pytest.mark.parametrize("command", [["check"], ["inspect", "--shapes"]])
def test_a_big_low_bit_const_is_never_unpacked_by_check(tmp_path: Path, etype: str, elements: int,
                                                        command: list[str]) -> None:
    xml = files.big_lowbit_const(tmp_path, etype, elements)
    proc = cli(*command, str(xml))
    out = _clean(proc)
    assert proc.returncode == 0, out
    assert str(elements) in out or command == ["check"]


def test_a_decompression_chain_is_sized_by_inference_not_by_its_declared_dims(tmp_path: Path) -> None:
    """u8 weight [1,4096] times an f16 scale [65536,1], every dim declared -1: 1 GiB of f32."""
    xml = files.decompression_chain(tmp_path / "big")
    proc = cli("run", str(xml), "--max-memory", "16MiB")
    out = _clean(proc)
    assert proc.returncode == 1 and "error[memory-limit]" in out and "f32[65536,4096]" in out, out
    small = files.decompression_chain(tmp_path / "small", scale_rows=16)
    proc = cli("run", str(small), "--max-memory", "16MiB")
    assert proc.returncode == 0 and "[1,16]" in _clean(proc), proc.stdout + proc.stderr


def test_the_f32_temporaries_of_a_decompression_chain_are_charged_with_its_output(tmp_path: Path) -> None:
    """u8 [2048,4096] -> f16 chain: a 16 MiB f16 output computed through 32 MiB of f32."""
    xml = files.decompression_chain(tmp_path, scale_rows=2048, weight_rows=2048, f32_end=False)
    proc = cli("run", str(xml), "--max-memory", "40MiB")
    out = _clean(proc)
    assert proc.returncode == 1 and "error[memory-limit]" in out and "32.0 MiB" in out and "temporaries" in out, out
    proc = cli("run", str(xml), "--max-memory", "128MiB")
    assert proc.returncode == 0, _clean(proc)


def test_a_zero_point_that_does_not_broadcast_is_a_coded_error(tmp_path: Path) -> None:
    xml = files.decompression_chain(tmp_path, scale_rows=4, zero_point=(1, 5))
    proc = cli("run", str(xml))
    out = _clean(proc)
    assert proc.returncode == 1 and "error[incompatible-inputs]" in out and "Subtract" in out, out


def test_mean_blobs_shared_by_every_channel_cost_nothing_to_check(tmp_path: Path) -> None:
    xml = files.shared_mean_blob(tmp_path)
    for command in (["check"], ["inspect"]):
        proc = cli(*command, str(xml))
        assert proc.returncode == 0, _clean(proc)
    proc = cli("run", str(xml), "--max-memory", "64MiB")
    out = _clean(proc)
    assert proc.returncode == 1 and "error[memory-limit]" in out, out


def test_mean_blobs_are_subtracted_channel_by_channel(tmp_path: Path) -> None:
    xml = files.shared_mean_blob(tmp_path, channels=3, side=4)
    np.savez(tmp_path / "in.npz", input=np.full((1, 3, 4, 4), 100, np.float32))
    proc = cli("run", str(xml), "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "out.npz"))
    assert proc.returncode == 0, _clean(proc)
    got = np.load(tmp_path / "out.npz")["output"]
    np.testing.assert_array_equal(got, np.broadcast_to(100 - np.arange(16, dtype=np.float32).reshape(4, 4), (1, 3, 4, 4)))


def test_the_zeros_of_a_variable_without_initial_value_are_charged_first(tmp_path: Path) -> None:
    xml = files.variable_without_init(tmp_path / "big")
    proc = cli("run", str(xml), "--max-memory", "64MiB")
    out = _clean(proc)
    assert proc.returncode == 1 and "error[memory-limit]" in out and "variable 'v'" in out, out
    small = files.variable_without_init(tmp_path / "small", (4, 2))
    proc = cli("run", str(small), "--max-memory", "64MiB", "--output", str(tmp_path / "out.npz"))
    assert proc.returncode == 0, _clean(proc)
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["shape"], [4, 2])
