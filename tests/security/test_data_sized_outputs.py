"""Every op family whose output only the data sizes is held to the memory limit.

The ops are found from the registry, not listed by hand: every registered op's
conformance cases are inferred on static input shapes, with no input's value
known (every input a Parameter) and with the values of the inputs the case
writes as Consts, and an op whose outputs that inference cannot size (a
dynamic dim, or strings, whose elements hold their characters) is data-sized:
NonZero, the NMS family, Unique, TopK with k from an input, Range, Broadcast,
Tile and Reshape from values, the string and tokenizer ops...  For each, the case that makes the most bytes is run
once to learn what its outputs take, then again under a memory limit one byte
short of them beside the tensors alive when it runs: it must be refused with
``memory-limit`` at that layer, whether the kernel charged its outputs as they
grew, the kernel bounded them before allocating, or the run held what it made
to the limit."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("openvino")

import conformance  # noqa: E402
from conformance.harness import REGISTERED, Case, OpTable, _batch, _feeds  # noqa: E402

from irexec.api.load import load  # noqa: E402
from irexec.base import dtypes, strings  # noqa: E402
from irexec.base.errors import IRExecError  # noqa: E402
from irexec.base.shapes import PartialShape  # noqa: E402
from irexec.executor.engine import run_model  # noqa: E402
from irexec.ops.framework.base import Op, TensorInfo  # noqa: E402
from irexec.ops.framework.registry import all_ops, resolve  # noqa: E402
from irexec.ops.io import Const1  # noqa: E402

for _info in pkgutil.walk_packages(conformance.__path__, "conformance."):
    _leaf = _info.name.rpartition(".")[2]
    if _leaf.startswith("test_") and _leaf not in ("test_coverage",):
        try:
            importlib.import_module(_info.name)
        except pytest.skip.Exception:
            pass  # a family whose oracle package is missing here: its ops are not walked

GENEROUS = 1 << 30


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


def _info(arr: np.ndarray, const: bool) -> TensorInfo:
    arr = np.asarray(arr)
    etype = dtypes.get("string") if arr.dtype.kind in "USO" else dtypes.from_dtype(arr.dtype)
    assert etype is not None
    return TensorInfo(PartialShape.static(arr.shape), etype, strings.as_bytes(arr) if const else None)


def _data_sized(cls: type[Op], case: Case) -> bool | None:
    """Whether inference on the case's static shapes leaves an output unsized; None when it refuses the case."""
    op, errors = cls.build(None, {k: _text(v) for k, v in case.attrs.items()})
    if errors or op is None:
        return None
    try:
        inference = op.inference([_info(a, i in case.const) for i, a in enumerate(case.inputs)])
    except IRExecError:
        return None
    return inference.data_sized


def _data_sized_ops() -> dict[type[Op], tuple[OpTable, list[Case]]]:
    found: dict[type[Op], tuple[OpTable, list[Case]]] = {}
    for table in (t for tables in REGISTERED for t in tables):
        cls = resolve(table.type, table.opset)
        if cls is None or not isinstance(table, OpTable):
            continue
        # every input fed (its value unknown to inference), else the case's own Consts
        variants = [dataclasses.replace(c, const=()) for c in table.cases if c.const] + list(table.cases)
        cases = [c for c in variants if _data_sized(cls, c)]
        if cases:
            old = found.get(cls)
            found[cls] = (table, cases + (old[1] if old else []))
    return found


DATA_SIZED = _data_sized_ops()
WALKED = sorted(DATA_SIZED, key=lambda c: c.display())


def test_the_walk_finds_the_data_sized_families() -> None:
    """The registry scan finds what is known to be data-sized (a broken scan would make the walk vacuous)."""
    names = {c.display() for c in WALKED}
    for expected in ("NonZero-3", "Unique-10", "NonMaxSuppression-9", "SparseFillEmptyRows-16", "StringTensorUnpack-15",
                     "RegexNormalization-1", "VocabDecoder-1", "BPETokenizer-1", "RaggedToDense-1", "Range-4",
                     "Broadcast-3", "Tile-1", "Reshape-1"):
        assert expected in names, sorted(names)
    assert len(names) < len(all_ops())


def _alive_before(model: Any, feeds: dict[str, np.ndarray]) -> int:
    """Bytes the run holds when the op runs: its feeds, and its string Consts' unpacked values."""
    held = sum(strings.array_bytes(strings.as_bytes(a) if a.dtype.kind in "US" else a) for a in feeds.values())
    return held + sum(op.held_nbytes for op in model.ops.values() if isinstance(op, Const1) and op.element_type.is_string)


@pytest.mark.parametrize("cls", WALKED, ids=[c.display() for c in WALKED])
def test_a_data_sized_output_is_held_to_the_limit(cls: type[Op], tmp_path: Path) -> None:
    table, cases = DATA_SIZED[cls]
    best: tuple[int, Case, Any, dict[str, np.ndarray]] | None = None
    for k, case in enumerate(cases):
        try:
            xml = _batch(table, [(0, case)], tmp_path / f"case{k}.xml")
            model = load(xml)
        except (AssertionError, IRExecError):
            continue  # an op that needs the input constant: the case with its Consts is walked too
        feeds = _feeds([(0, case)])
        made: list[int] = []

        def hook(layer: Any, outs: list[np.ndarray], seconds: float, made: list[int] = made) -> None:
            if layer.name == "op0":
                made.append(sum(strings.array_bytes(o) for o in outs))

        try:
            run_model(model, feeds, on_layer=hook, max_memory=GENEROUS)
        except IRExecError:
            continue  # a case OpenVINO computes and irexec refuses at run time (covered by the op's table)
        if made and (best is None or made[0] > best[0]):
            best = (made[0], case, model, feeds)
    assert best is not None and best[0] > 0, f"no case of {table} makes an output to hold to a limit"
    size, case, model, feeds = best
    limit = _alive_before(model, feeds) + size - 1
    with pytest.raises(IRExecError) as info:
        run_model(load(str(model.path)), feeds, max_memory=limit)
    d = info.value.diagnostics[0]
    assert d.code == "memory-limit" and d.layer_name == "op0", (case.id, str(info.value))
