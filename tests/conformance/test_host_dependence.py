"""The openvino-values comparison holds on any host OpenVINO's CPU plugin runs
on.  This machine's kernels are one ISA's; the others' known answers (read in
the plugin's JIT emitters) are applied to OpenVINO's outputs here, and the
tables must still pass, while the same table without its ``ov_elements``
fails, so the rule is what makes the difference.  Every rule is documented."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance import harness
from conformance.elementwise.test_arithmetic import TABLES as ARITHMETIC
from conformance.elementwise.test_logic import TABLES as LOGIC
from conformance.harness import COMPARE_NAN, ISFINITE_DENORMAL, MINMAX_NAN, OpTable, is_denormal

DOC = Path(__file__).resolve().parents[2] / "docs" / "openvino-divergences.md"


def _table(name: str) -> OpTable:
    return next(t for t in ARITHMETIC + LOGIC if str(t) == name)


def _f64(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(np.float64)


# what another ISA's kernel answers, from the case's inputs and this host's answer
def _isfinite_avx512(inputs: list[np.ndarray], here: np.ndarray) -> np.ndarray:
    return here & ~is_denormal(_f64(inputs[0]))


def _greater_unordered(inputs: list[np.ndarray], here: np.ndarray) -> np.ndarray:
    a, b = (_f64(x) for x in inputs)
    return here | np.isnan(a) | np.isnan(b) if inputs[0].dtype.kind == "f" else here


def _max_first_nan(inputs: list[np.ndarray], here: np.ndarray) -> np.ndarray:
    a = np.broadcast_to(inputs[0], here.shape)
    if here.dtype.kind != "f":
        return here
    return np.where(np.isnan(_f64(a)), a, here).astype(here.dtype)  # the NaN operand returned instead of the other


OTHER_HOSTS: list[tuple[str, Callable[..., np.ndarray], Any]] = [
    ("IsFinite-opset10", _isfinite_avx512, ISFINITE_DENORMAL),
    ("Greater-opset1", _greater_unordered, COMPARE_NAN),
    ("GreaterEqual-opset1", _greater_unordered, COMPARE_NAN),
    ("Maximum-opset1", _max_first_nan, MINMAX_NAN),
    ("Minimum-opset1", _max_first_nan, MINMAX_NAN),
]


def _as_other_host(table: OpTable, answer: Callable[..., np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    real = harness.infer

    def infer(compiled: Any, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = real(compiled, feeds)
        for name, value in out.items():
            k = int(re.match(r"c(\d+)_out", name).group(1))  # type: ignore[union-attr]
            out[name] = answer([np.asarray(x) for x in table.cases[k].inputs], value)
        return out

    monkeypatch.setattr(harness, "infer", infer)


@pytest.mark.parametrize(("name", "answer", "rule"), OTHER_HOSTS, ids=[n for n, _, _ in OTHER_HOSTS])
def test_another_isa_answers_pass_and_fail_without_the_rule(name: str, answer: Callable[..., np.ndarray], rule: Any,
                                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(name)
    assert rule in table.ov_elements
    _as_other_host(table, answer, monkeypatch)
    harness.check_openvino_values(table, tmp_path)  # the other host's answers pass
    bare = dataclasses.replace(table, ov_elements=[])
    (tmp_path / "bare").mkdir()
    with pytest.raises(AssertionError, match="vs OpenVINO CPU"):
        harness.check_openvino_values(bare, tmp_path / "bare")


def test_the_rules_mark_only_what_they_say() -> None:
    edge = next(c for c in _table("IsFinite-opset10").cases if c.id == "f32-edges")
    keep = harness.host_independent(_table("IsFinite-opset10"), edge, edge.inputs[0].shape)
    assert keep is not None
    assert (~keep).sum() == 3 and all(0 < abs(v) < 1.2e-38 for v in edge.inputs[0][~keep])
    pair = next(c for c in _table("Greater-opset1").cases if c.id == "f32-edges")
    keep = harness.host_independent(_table("Greater-opset1"), pair, pair.inputs[0].shape)
    assert keep is not None
    assert np.array_equal(~keep, np.isnan(pair.inputs[0]) | np.isnan(pair.inputs[1]))


def test_every_rule_is_documented() -> None:
    text = DOC.read_text()
    rules = {r.id for t in harness_tables() for r in t.ov_elements}
    assert rules, "no table declares host-dependent elements"
    missing = sorted(r for r in rules if f"`{r}`" not in text)
    assert not missing, f"{DOC.name} does not explain {missing}"


def harness_tables() -> list[OpTable]:
    import importlib

    tables: list[OpTable] = []
    root = Path(__file__).parent
    for path in sorted(root.glob("**/test_*.py")):
        module = importlib.import_module(".".join(("conformance", *path.relative_to(root).with_suffix("").parts)))
        tables += [t for t in getattr(module, "TABLES", []) if isinstance(t, OpTable)]
    return tables
