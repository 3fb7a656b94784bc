"""Every executed layer's outputs written to a directory, one .npz per layer.

Layout (format 1), all loadable with plain NumPy:

    DIR/0000_x.npz           outputs of the first executed layer, keys = output port ids ("0")
    DIR/0003_Gather_7.npz    the fourth executed layer ("3" for Gather's output port 3)
    DIR/index.json           {"format": 1, "model": ..., "layers": [{"file", "step", "layer_id",
                               "name", "type", "outputs": [{"key", "port", "names", "shape",
                               "dtype", "element_type"}]}]}

Files are numbered in execution order (with more digits for models of 10000
layers or more).  Dumping again into the same directory first deletes the files
the previous index.json lists, and nothing else.  Result layers have no output ports and
are not written (their tensor is the producer's).  bf16 tensors load as 2-byte
void arrays in plain NumPy: ``a.view(ml_dtypes.bfloat16)``.  Every file is
written to a temporary name and renamed; ``index.json`` is written when the run
ends, also when it fails midway, and then lists the layers that completed.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import numpy as np

from ..base import dtypes
from ..base.errors import IRExecError
from ..ir.records import Layer
from ..system.atomic import cannot_write, write_atomically
from ..system.json_file import read_json
from ..system.tensorfile import load_npz, save_npz
from .load import Model

FORMAT = 1
INDEX = "index.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_DUMP_FILE = re.compile(r"[0-9]{4,}_[A-Za-z0-9._-]+\.npz")


def file_name(step: int, layer: Layer, width: int = 4) -> str:
    safe = _UNSAFE.sub("_", layer.name).strip("._")[:80] or f"layer{layer.id}"
    return f"{step:0{width}d}_{safe}.npz"


class LayerDumper:
    """A ``run_model`` hook that writes each layer's outputs as it completes."""

    def __init__(self, model: Model, directory: str):
        self.model = model
        self.directory = os.fspath(directory)
        self.entries: list[dict[str, Any]] = []
        self.width = max(4, len(str(len(model.layers))))  # names sort in execution order
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as e:
            raise cannot_write(self.directory, f"cannot create the dump directory: {e.strerror or e}") from None
        self._remove_previous_dump()

    def _remove_previous_dump(self) -> None:
        """Delete the files an earlier dump's index.json lists (and nothing
        else), so the directory never mixes two runs."""
        path = os.path.join(self.directory, INDEX)
        try:
            old = read_json(path, "dump index") if os.path.lexists(path) else None
            files = [e["file"] for e in old["layers"]]  # type: ignore[index]
        except (IRExecError, KeyError, TypeError):
            return
        for name in files:
            if isinstance(name, str) and _DUMP_FILE.fullmatch(name):
                try:
                    os.unlink(os.path.join(self.directory, name))
                except OSError:
                    pass

    def __call__(self, layer: Layer, outputs: list[np.ndarray], seconds: float) -> None:
        if not layer.outputs:
            return
        name = file_name(len(self.entries), layer, self.width)
        tensors: dict[str, np.ndarray] = {}
        described = []
        for port, arr in zip(layer.outputs, outputs):
            key = str(port.id)
            tensors[key] = arr
            etype = dtypes.from_dtype(arr.dtype)
            described.append({
                "key": key,
                "port": port.id,
                "names": list(port.names),
                "shape": [int(n) for n in arr.shape],
                "dtype": str(arr.dtype),
                "element_type": etype.name if etype else str(arr.dtype),
            })
        save_npz(os.path.join(self.directory, name), tensors)  # a write failure is its coded cannot-write-output
        self.entries.append({
            "file": name,
            "step": len(self.entries),
            "layer_id": layer.id,
            "name": layer.name,
            "type": layer.display,
            "outputs": described,
        })

    def close(self, raise_errors: bool = True) -> None:
        """Write index.json (call it also when the run failed, with ``raise_errors=False``
        so that a directory that cannot be written does not hide the run's own error)."""
        index = {"format": FORMAT, "model": os.path.abspath(self.model.path), "layers": self.entries}
        path = os.path.join(self.directory, INDEX)
        try:
            write_atomically(path, json.dumps(index, indent=1) + "\n")
        except OSError as e:
            if raise_errors:
                raise cannot_write(path, e) from None


def load_dump(directory: str) -> tuple[dict[str, Any], dict[int, dict[str, np.ndarray]]]:
    """(index, {layer id: {port key: array}}) read back from a dump directory."""
    index: Any = read_json(os.path.join(directory, INDEX), "dump index")
    tensors: dict[int, dict[str, np.ndarray]] = {}
    for entry in index["layers"]:
        tensors[entry["layer_id"]] = load_npz(os.path.join(directory, entry["file"]))
    return index, tensors
