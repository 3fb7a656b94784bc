"""Hostile input files: pickles are never unpickled, files that are not npz
archives and tensors that do not fit are refused, exit 1, no traceback."""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from irexec.base.errors import InputError
from irexec.model.builder import IRBuilder
from irexec.system.tensorfile import load_npz


class _CreatesFile:
    """Unpickling this creates ``path``: the proof that a load unpickled."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (open, (str(self.path), "w"))


def _pickle_npz(path: Path, marker: Path) -> Path:
    np.savez(path, x=np.array([_CreatesFile(marker)], dtype=object), allow_pickle=True)
    return path


def test_the_pickle_payload_works(tmp_path: Path) -> None:
    """Control: numpy with allow_pickle=True does run the payload."""
    marker = tmp_path / "unpickled"
    with np.load(_pickle_npz(tmp_path / "p.npz", marker), allow_pickle=True) as data:
        data["x"]
    assert marker.exists()


def _identity(write_ir, shape="2,3", etype="f32") -> str:  # type: ignore[no-untyped-def]
    b = IRBuilder()
    b.result(b.parameter("x", shape, etype), name="out")
    return write_ir(b)


def test_object_array_is_never_unpickled(write_ir, run_cli, tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"
    npz = _pickle_npz(tmp_path / "evil.npz", marker)
    with pytest.raises(InputError) as info:
        load_npz(str(npz))
    assert info.value.code == "bad-input-file" and "unpickle" in str(info.value)
    r = run_cli("run", _identity(write_ir), "--inputs", npz)
    assert r.exit_code == 1 and "error[bad-input-file]" in r.output and "Traceback" not in r.output
    r = run_cli("run", _identity(write_ir), "--compare", npz)
    assert r.exit_code == 1 and "error[bad-input-file]" in r.output
    assert not marker.exists()


def test_raw_pickle_is_never_unpickled(write_ir, run_cli, tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"
    path = tmp_path / "evil.npz"
    path.write_bytes(pickle.dumps({"x": _CreatesFile(marker)}))
    r = run_cli("run", _identity(write_ir), "--inputs", path)
    assert r.exit_code == 1 and "error[bad-input-file]" in r.output, r.output
    assert not marker.exists()


def _flag_encrypted(path: Path) -> None:
    """Set the 'encrypted' bit of every entry (zipfile cannot write real encryption)."""
    data = bytearray(path.read_bytes())
    for sig, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        i = data.find(sig)
        while i >= 0:
            data[i + flag_at] |= 1
            i = data.find(sig, i + 4)
    path.write_bytes(bytes(data))


def _not_npz(kind: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{kind}.npz"
    good = tmp_path / "good.npz"
    np.savez(good, x=np.ones((2, 3), np.float32))
    if kind == "text":
        path.write_text("x = [[1, 2, 3], [4, 5, 6]]\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "npy":
        np.save(path.with_suffix(".npy"), np.ones((2, 3), np.float32))
        path.with_suffix(".npy").rename(path)
    elif kind == "truncated-zip":
        path.write_bytes(good.read_bytes()[:200])
    elif kind == "corrupt-entry":
        data = bytearray(good.read_bytes())
        data[120:140] = b"\xff" * 20  # inside the array header
        path.write_bytes(bytes(data))
    elif kind == "encrypted":
        path.write_bytes(good.read_bytes())
        _flag_encrypted(path)
    elif kind == "unknown-compression":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_LZMA) as zf:
            zf.writestr("x.npy", good.read_bytes())
        data = bytearray(path.read_bytes())
        for sig, method_at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
            i = data.find(sig)
            data[i + method_at : i + method_at + 2] = (99).to_bytes(2, "little")
        path.write_bytes(bytes(data))
    elif kind == "directory":
        path.mkdir()
    elif kind == "missing":
        pass
    return path


NOT_NPZ = ["text", "empty", "npy", "truncated-zip", "corrupt-entry", "encrypted", "unknown-compression", "directory", "missing"]


@pytest.mark.parametrize("kind", NOT_NPZ)
def test_not_an_npz(kind: str, write_ir, run_cli, tmp_path: Path) -> None:
    path = _not_npz(kind, tmp_path)
    with pytest.raises(InputError) as info:
        load_npz(str(path))
    assert info.value.code == "bad-input-file"
    r = run_cli("run", _identity(write_ir), "--inputs", path)
    # a path mistake has the code it has in every command; any other file is a bad-input-file
    code = {"directory": "is-a-directory", "missing": "file-not-found"}.get(kind, "bad-input-file")
    assert r.exit_code == 1 and f"error[{code}]" in r.output and "Traceback" not in r.output, r.output


@pytest.mark.parametrize("shape, value", [
    ("", np.array([1.5], np.float32)),  # 1-element 1-D into a scalar
    ("1", np.array(1.5, np.float32)),  # 0-d into [1]
    ("1,1", np.array([1.5], np.float32)),
    ("", np.array([[1.5]], np.float32)),
])
def test_scalar_and_one_element_are_not_interchangeable(shape: str, value: np.ndarray, write_ir, run_cli, save_npz) -> None:
    r = run_cli("run", _identity(write_ir, shape), "--inputs", save_npz(x=value))
    assert r.exit_code == 1, r.output
    assert "error[input-mismatch]" in r.output and "Traceback" not in r.output


def test_scalar_feeds_a_scalar(write_ir, run_cli, save_npz) -> None:
    """Control for the test above: the matching rank runs."""
    r = run_cli("run", _identity(write_ir, ""), "--inputs", save_npz(x=np.array(1.5, np.float32)))
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("value", [
    np.ones((2, 3), ">f4"),  # big-endian
    np.ones((2, 3), np.float64),
    np.array([["a", "b", "c"]] * 2),
    np.ones((2, 3), "V4"),
    np.ones((2, 3), np.complex64),
])
def test_odd_dtypes_are_input_mismatches(value: np.ndarray, write_ir, run_cli, save_npz) -> None:
    r = run_cli("run", _identity(write_ir), "--inputs", save_npz(x=value))
    assert r.exit_code == 1, r.output
    assert "error[input-mismatch]" in r.output and "Traceback" not in r.output
