"""u64 indices are range-checked as unsigned: index 2^64-1 used to be cast to
int64 first, read as -1, and silently hit the last element (OpenVINO refuses
it).  Every op that reads indices either refuses it (a coded error, exit 1)
or treats it as out of range the way its spec says (Gather: zeros)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from irexec.cli import cli
from irexec.model.builder import IRBuilder

U64_MAX = np.iinfo(np.uint64).max


def _model(tmp_path: Path, op: str, index: np.ndarray, const: bool) -> tuple[Path, Path]:
    b = IRBuilder()
    data = b.parameter("data", [4, 3], "f32")
    idx = b.const(index, "u64") if const else b.parameter("idx", list(index.shape), "u64")
    if op == "GatherND":
        y = b.layer("GatherND", "opset8", [data, idx], {"batch_dims": 0})
    elif op == "ScatterNDUpdate":
        y = b.layer("ScatterNDUpdate", "opset4", [data, idx, b.const(np.ones((1, 3), np.float32))])
    elif op == "ScatterUpdate":
        y = b.layer("ScatterUpdate", "opset3", [data, idx, b.const(np.ones((1, 3), np.float32)), b.const(np.array(0, np.int64))])
    elif op == "ScatterElementsUpdate":
        y = b.layer("ScatterElementsUpdate", "opset12", [data, idx, b.const(np.ones((1, 3), np.float32)),
                                                         b.const(np.array(0, np.int64))])
    else:
        y = b.layer("Gather", "opset8", [data, idx, b.const(np.array(0, np.int64))], {"batch_dims": 0})
    b.result(y)
    xml, _ = b.write(tmp_path / "model.xml")
    inputs = tmp_path / "inputs.npz"
    feeds = {"data": np.arange(12, dtype=np.float32).reshape(4, 3)}
    if not const:
        feeds["idx"] = index
    np.savez(inputs, **feeds)
    return Path(xml), inputs


INDEX = {"GatherND": np.array([[U64_MAX]], np.uint64), "ScatterNDUpdate": np.array([[U64_MAX]], np.uint64),
         "ScatterUpdate": np.array([U64_MAX], np.uint64),
         "ScatterElementsUpdate": np.array([[U64_MAX, 0, 0]], np.uint64)}


@pytest.mark.parametrize("const", [False, True], ids=["param", "const"])
@pytest.mark.parametrize("op", sorted(INDEX))
def test_u64_index_above_int64_is_out_of_range(tmp_path: Path, op: str, const: bool) -> None:
    xml, inputs = _model(tmp_path, op, INDEX[op], const)
    r = CliRunner().invoke(cli, ["run", str(xml), "--inputs", str(inputs), "-o", str(tmp_path / "out.npz")])
    assert r.exit_code == 1, r.output
    assert "error[bad-value]" in r.output and str(U64_MAX) in r.output, r.output
    assert "Traceback" not in r.output and not (tmp_path / "out.npz").exists()


@pytest.mark.parametrize("op", sorted(INDEX))
def test_u64_indices_in_range_still_work(tmp_path: Path, op: str) -> None:
    index = np.where(INDEX[op] == U64_MAX, np.uint64(3), INDEX[op]).astype(np.uint64)
    xml, inputs = _model(tmp_path, op, index, False)
    out = tmp_path / "out.npz"
    r = CliRunner().invoke(cli, ["run", str(xml), "--inputs", str(inputs), "-o", str(out)])
    assert r.exit_code == 0, r.output
    (value,) = np.load(out).values()
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    if op == "GatherND":
        np.testing.assert_array_equal(value, data[[3]])
    else:  # row 3 (ScatterElementsUpdate: its first element) overwritten with ones
        expected = data.copy()
        if op == "ScatterElementsUpdate":
            expected[3, 0] = 1
            expected[0, 1:] = 1
        else:
            expected[3] = 1
        np.testing.assert_array_equal(value, expected)


def test_gather_u64_index_above_int64_gives_zeros(tmp_path: Path) -> None:
    """Gather's spec: an out-of-range index gives a zero slice (not the last row)."""
    xml, inputs = _model(tmp_path, "Gather", np.array([U64_MAX, 1], np.uint64), False)
    out = tmp_path / "out.npz"
    r = CliRunner().invoke(cli, ["run", str(xml), "--inputs", str(inputs), "-o", str(out)])
    assert r.exit_code == 0, r.output
    (value,) = np.load(out).values()
    np.testing.assert_array_equal(value, [[0, 0, 0], [3, 4, 5]])
