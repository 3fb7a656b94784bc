"""``irexec diff`` on hostile files: its time grows linearly with the layers, its
memory is held to --max-memory, names cannot forge text or break out of the HTML
page's JSON, a Dask cluster's failures end in coded errors and its workers never
serve a model that changed, and two unrelated models are told apart from a copy."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from irexec.model.builder import IRBuilder

# 600 and 12,000 layers: linear work costs about 13x (20x the layers, a fixed start); the
# per-layer scans this bounds cost about 36x, and grow as the square beyond
SCALE = 20
MAX_RATIO = 26


def _ladder(path: Path, n: int, prefix: str, scale: float = 1.0, elements: int = 4, names: tuple[str, ...] = ()) -> Path:
    """x -> n rungs of (y = Relu(x) * scale; x = x + y): two-input layers, so matching B
    (named apart from A) goes by structure.  ``names`` replace the first layers' names."""
    b = IRBuilder()
    x = b.parameter("x", [elements], "f32")
    k = b.const(np.full([elements], scale, np.float32), name=f"{prefix}scale")
    for i in range(n):
        y = b.layer("Relu", "opset1", [x], {}, name=names[2 * i] if 2 * i < len(names) else f"{prefix}relu{i}")
        y = b.layer("Multiply", "opset1", [y, k], {}, name=f"{prefix}mul{i}")
        x = b.layer("Add", "opset1", [x, y], {},
                    name=names[2 * i + 1] if 2 * i + 1 < len(names) else f"{prefix}add{i}")
    b.result(x, name=f"{prefix}out")
    xml, _ = b.write(path)
    return Path(xml)


def _cpu_seconds(fn: Callable[[], object]) -> float:
    start = time.process_time()  # this process's CPU time: other processes cannot inflate it
    fn()
    return time.process_time() - start


def test_diff_of_many_layers_takes_linear_time(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    def make(n: int) -> Callable[[], object]:
        a, b = _ladder(tmp_path / f"a{n}.xml", n, "a"), _ladder(tmp_path / f"b{n}.xml", n, "b")

        def diff() -> None:
            r = run_cli("diff", a, b, "--ablate", "0")
            assert r.exit_code == 0 and f"matched: {3 * n} by structure" in r.output, r.output
        return diff

    small = 200
    run_small, run_large = make(small), make(small * SCALE)
    run_small()
    t_small = t_large = float("inf")
    for _ in range(2):
        t_small = min(t_small, _cpu_seconds(run_small), _cpu_seconds(run_small))
        t_large = min(t_large, _cpu_seconds(run_large))
    t_small = max(t_small, 1e-2)
    assert t_large < MAX_RATIO * t_small, (f"{SCALE}x the layers took {t_large / t_small:.0f}x the CPU time "
                                           f"({t_small:.3f} s -> {t_large:.3f} s)")
