"""bert_tiny against its NNCF-compressed copies (tests/data/diff_ab, made by make_compressed.py):
where they are, the layer whose scale a damaged copy changes, and the sample folders of the
data-set mode."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from lxml import etree

MODELS = Path("/work/shared/models")
DATA = Path(__file__).resolve().parent / "data" / "diff_ab"
BERT = MODELS / "bert_tiny"
DAMAGED = "__module.m.encoder.layer.1.intermediate.dense/aten::linear/MatMul"
SCALE = "self.m.encoder.layer.1.intermediate.dense.weight_compressed/scale"


def damaged_copy(tmp_path: Path, kind: str = "int8", group: int = 7, factor: float = 1.5) -> Path:
    """A copy of a compressed model with one group's scale (INT8: an output channel; INT4: 32
    weights) times ``factor``."""
    xml, binary = tmp_path / "damaged.xml", tmp_path / "damaged.bin"
    shutil.copy(DATA / f"bert_tiny_{kind}.xml", xml)
    data = bytearray((DATA / f"bert_tiny_{kind}.bin").read_bytes())
    layer = etree.parse(str(xml)).find(f".//layer[@name='{SCALE}']")
    attrs = layer.find("data").attrib
    dtype = {"f32": np.float32, "f16": np.float16}[attrs["element_type"]]
    offset, size = int(attrs["offset"]), int(attrs["size"])
    scale = np.frombuffer(bytes(data[offset:offset + size]), dtype).copy()
    scale[group] *= factor
    data[offset:offset + size] = scale.tobytes()
    binary.write_bytes(bytes(data))
    return xml


def write_samples(folder: Path, n: int, seed: int) -> Path:
    """``folder`` with ``n`` samples of bert_tiny's inputs, each with other random token ids
    between the first and the last."""
    folder.mkdir()
    base = dict(np.load(BERT / "inputs.npz"))
    rng = np.random.default_rng(seed)
    for i in range(n):
        ids = base["input_ids"].copy()
        ids[:, 1:-1] = rng.integers(1, ids.max() + 1, ids[:, 1:-1].shape)  # ids the vocabulary has
        np.savez(folder / f"s{i}.npz", input_ids=ids, attention_mask=base["attention_mask"])
    return folder
