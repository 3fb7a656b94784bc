"""`irexec generate --compare TOKENS.npy` reads its .npy by the rules of every
other tensor file: a regular file, no link out of its folder, its header's size
held to the memory limit before the array is allocated, never unpickled."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from test_check_budget import _clean, cli

from irexec.model.builder import IRBuilder


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    b = IRBuilder()
    b.result(b.layer("Convert", "opset1", [b.parameter("input_ids", [1, 4], "i64")], {"destination_type": "f32"}),
             name="logits")
    xml, _ = b.write(tmp_path / "model.xml")
    np.savez(tmp_path / "prompt.npz", input_ids=np.zeros((1, 4), np.int64))
    return Path(xml), tmp_path / "prompt.npz"


def _generate(tmp_path: Path, reference: Path, *extra: str):  # type: ignore[no-untyped-def]
    xml, prompt = _setup(tmp_path)
    return cli("generate", str(xml), "--inputs", str(prompt), "-n", "1", "--compare", str(reference), *extra)


def _huge_header(path: Path, shape: tuple[int, ...]) -> None:
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "<i8", "fortran_order": False, "shape": shape})
        f.write(b"\0" * 64)


@pytest.mark.parametrize("kind", ["link-out", "fifo", "huge-header", "short-data", "pickle", "npz"])
def test_a_hostile_token_file_is_refused_before_it_is_read(tmp_path: Path, kind: str) -> None:
    ref = tmp_path / "ref" / "tokens.npy"
    ref.parent.mkdir()
    code = "bad-input-file"
    if kind == "link-out":
        secret = tmp_path / "secret.npy"
        np.save(secret, np.array([[1234567, 7654321]], np.int64))
        ref.symlink_to(secret)
        code = "symlink-escape"
    elif kind == "fifo":
        os.mkfifo(ref)
    elif kind == "huge-header":
        _huge_header(ref, (1 << 20, 1 << 20))  # 8 TiB declared, 64 bytes present
        code = "memory-limit"
    elif kind == "short-data":
        _huge_header(ref, (1, 1 << 20))  # 8 MiB declared, 64 bytes present
    elif kind == "pickle":
        np.save(ref, np.array([[1, 2]], object), allow_pickle=True)
    else:
        with open(ref, "wb") as f:
            np.savez(f, tokens=np.zeros((1, 2), np.int64))
    proc = _generate(tmp_path, ref, "--max-memory", "64MiB")
    out = _clean(proc)
    assert proc.returncode == 1 and f"error[{code}]" in out, out
    assert "1234567" not in out


def test_control_a_token_file_inside_the_folder_is_read(tmp_path: Path) -> None:
    """The same command with a plain token file gets past it to the model (not an LM here)."""
    ref = tmp_path / "tokens.npy"
    np.save(ref, np.zeros((1, 5), np.int64))
    proc = _generate(tmp_path, ref)
    out = _clean(proc)
    assert proc.returncode == 1 and "error[not-causal-lm]" in out and "tokens.npy" not in out, out
