"""Everything irexec writes it reads back, for every element type: ``--save-inputs``
feeds the same run again, ``--output`` is a reference ``--compare`` accepts,
``--state-out`` is a ``--state-in``, and plain NumPy loads every file, ``--dump``
included (its index names each tensor's element type)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irexec.base import dtypes
from irexec.model.builder import IRBuilder
from irexec.system.tensorfile import as_dtype


def _stateful(directory: Path, etype: str) -> str:
    """y = the variable, which starts as x and keeps its value."""
    b = IRBuilder()
    x = b.parameter("x", [6], etype)
    value = b.layer("ReadValue", "opset6", [x], {"variable_id": "v", "variable_type": etype, "variable_shape": "6"})
    b.layer("Assign", "opset6", [value], {"variable_id": "v"})
    b.result(value, name="y")
    xml, _ = b.write(directory / "model.xml")
    return str(xml)


def _load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def _bits(arr: np.ndarray, etype: str) -> bytes:
    held = as_dtype(arr, dtypes.get(etype).dtype)
    assert held is not None, f"{arr.dtype} is not read back as {etype}"
    if held.dtype.kind == "O":  # string: the bytes of every element, not the objects' addresses
        return repr(held.tolist()).encode()
    return held.tobytes()


@pytest.mark.parametrize("etype", dtypes.supported_names())
def test_every_file_irexec_writes_reads_back(etype: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _stateful(tmp_path, etype)
    saved, out, state, dump, report = (tmp_path / n for n in ("in.npz", "out.npz", "state.npz", "dump", "run.json"))
    first = run_cli("run", xml, "--seed", "3", "--save-inputs", saved, "--output", out, "--state-out", state,
                    "--dump", dump, "--report", report)
    assert first.exit_code == 0, first.output
    x = _bits(_load(saved)["x"], etype)
    assert _bits(_load(out)["y"], etype) == x and _bits(_load(state)["v"], etype) == x
    index = json.loads((dump / "index.json").read_text())
    for entry in index["layers"]:
        arrays = _load(dump / entry["file"])
        for port in entry["outputs"]:
            assert port["element_type"] == etype
            assert _bits(arrays[port["key"]], etype) == x
    want = "string" if etype == "string" else str(dtypes.get(etype).dtype)  # NumPy's name, else the IR's
    assert json.loads(report.read_text())["outputs"][0]["dtype"] == want
    again = run_cli("run", xml, "--inputs", saved, "--state-in", state, "--compare", out, "--state-out", tmp_path / "s2.npz")
    assert again.exit_code == 0 and "PASSED" in again.output, again.output
    assert _bits(_load(tmp_path / "s2.npz")["v"], etype) == x
