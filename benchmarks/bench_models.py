#!/usr/bin/env python
"""Whole-model run time and peak memory of irexec against OpenVINO CPU on the
real models (``shared/models`` beside the repository, or ``--models DIR``).

    python benchmarks/bench_models.py [--repeat 7] [--models DIR]

Time: median of ``--repeat`` runs through the Python API in one process
(irexec: a loaded model run on the inputs; OpenVINO: a compiled model, f32,
``share_inputs``/``share_outputs``), the two interleaved so they share the
machine's conditions.  Memory: the peak RSS (``getrusage`` high-water mark)
of a fresh process that imports the engine, loads the model and runs it once,
minus the peak RSS of a fresh process that only imports the engine and loads
the inputs.  A high-water mark cannot be reset, so the baseline is its own
process rather than a reading taken before the run (which would hide any
growth that stays below a transient peak of the imports).
A model irexec cannot run yet is reported and skipped.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "models"


def _rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _child(engine: str, d: Path, idle: bool) -> None:
    """Import the engine and load the inputs; unless ``idle``, also load the
    model and run it once.  Print this process's peak RSS in bytes."""
    feeds = dict(np.load(d / "inputs.npz"))
    if engine == "openvino":
        import openvino as ov

        if not idle:
            core = ov.Core()
            compiled = core.compile_model(core.read_model(str(d / "model.xml")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            compiled.create_infer_request().infer(feeds, share_inputs=True, share_outputs=True)
    else:
        import irexec
        from irexec.model import load

        if not idle:
            irexec.run(load(str(d / "model.xml")), feeds)
    print(_rss_kib() * 1024)


def _peak_of(engine: str, d: Path, idle: bool) -> int | None:
    args = [sys.executable, __file__, "--child", engine, str(d)] + (["--idle"] if idle else [])
    p = subprocess.run(args, capture_output=True, text=True)
    return int(p.stdout.split()[-1]) if p.returncode == 0 and p.stdout.strip() else None


def _peak(engine: str, d: Path) -> int | None:
    """Peak RSS the model's load and run add to a process (median of 3 pairs)."""
    growth = []
    for _ in range(3):
        full, idle = _peak_of(engine, d, False), _peak_of(engine, d, True)
        if full is None or idle is None:
            return None
        growth.append(max(full - idle, 0))
    return int(statistics.median(growth))


def _bench(d: Path, repeat: int) -> dict[str, float | int | None]:
    import openvino as ov

    import irexec
    from irexec.model import load

    feeds = dict(np.load(d / "inputs.npz"))
    model = load(str(d / "model.xml"))
    core = ov.Core()
    request = core.compile_model(core.read_model(str(d / "model.xml")), "CPU",
                                 {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    irexec.run(model, feeds)  # warm up both
    request.infer(feeds, share_inputs=True, share_outputs=True)
    ours, theirs = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        irexec.run(model, feeds)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        request.infer(feeds, share_inputs=True, share_outputs=True)
        theirs.append(time.perf_counter() - t)
    return {"irexec_s": statistics.median(ours), "openvino_s": statistics.median(theirs),
            "irexec_peak": _peak("irexec", d), "openvino_peak": _peak("openvino", d)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--idle", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], Path(args.child[1]), args.idle)
        return
    from irexec.ops.registry import resolve

    ratios: list[float] = []
    print(f"{'model':<20} {'irexec ms':>10} {'OpenVINO ms':>12} {'ratio':>7} {'irexec MiB':>11} {'OpenVINO MiB':>13} {'ratio':>7}")
    for d in sorted(p for p in args.models.iterdir() if (p / "model.xml").is_file()):
        meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").is_file() else {"ops": {}}
        missing = [k for k in meta["ops"] if resolve(k.rpartition("-")[0], k.rpartition("-")[2]) is None]
        if missing:
            print(f"{d.name:<20} skipped: not implemented: {', '.join(missing)}")
            continue
        r = _bench(d, args.repeat)
        mem = ""
        if r["irexec_peak"] is not None and r["openvino_peak"]:
            mem = (f"{r['irexec_peak'] / 2**20:>11.1f} {r['openvino_peak'] / 2**20:>13.1f} "
                   f"{r['irexec_peak'] / r['openvino_peak']:>7.2f}")
        print(f"{d.name:<20} {r['irexec_s'] * 1e3:>10.1f} {r['openvino_s'] * 1e3:>12.2f} "
              f"{r['irexec_s'] / r['openvino_s']:>7.1f} {mem}")
        ratios.append(r["irexec_s"] / r["openvino_s"])
    if ratios:
        print(f"time ratio irexec/OpenVINO: median {statistics.median(ratios):.1f}, worst {max(ratios):.1f}")


if __name__ == "__main__":
    main()
