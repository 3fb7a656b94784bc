#!/usr/bin/env python
"""Whole-model run time and peak memory of irexec against OpenVINO CPU on the
real models (``shared/models`` beside the repository, or ``--models DIR``).

    python benchmarks/bench_models.py [--repeat 15] [--models DIR] [--no-retain]

Time: median of ``--repeat`` runs through the Python API in one process
(irexec: a loaded model run on the inputs; OpenVINO: a compiled model, f32,
``share_inputs``/``share_outputs``), the two interleaved so they share the
machine's conditions.  Memory: in a fresh process per engine, the growth of
the peak RSS (``VmHWM``, reset when the engine is ready) from the engine ready to work
(imported, OpenVINO's Core created with its CPU plugin loaded, irexec's ops
and executor imported, the inputs loaded) to after loading the model and
running it once; the median of 3 processes.  What the engine costs before
it sees a model is not counted for either.
irexec reuses freed memory as `irexec run` does (``irexec.retain_freed_memory()``;
``--no-retain`` measures without it), in the timing process and in its memory processes.
A model irexec cannot run yet is reported and skipped.

Where irexec's time goes: over further runs, the share of the median run in
BLAS products (MatMul, Convolution, GroupConvolution other than depthwise),
in depthwise convolutions, in every other layer, and in the executor around
them (run time minus the layers' own times).

A stateful model (meta.json ``"stateful": true``, e.g. smollm_int4_stateful) is
measured as its meta.json says OpenVINO was (``ov_config``, ``ov_timing``):
prefill = reset the state, run step 0; decode = reset, run step 0 untimed, run
step 1; medians of ``--repeat`` after 3 warm-ups, irexec and OpenVINO
interleaved.  irexec twice: with its decompressed weights kept between runs
(the default) and with ``--stateful-limit`` (default 150 MB, below the f32 size
of the weights) as its memory limit, where only an eighth of it is kept and the
rest is decompressed again by every run.  Peak RSS: a fresh process per engine
that loads the model and runs step 0 and step 1 (``VmHWM``, the whole process:
Python, NumPy, the engine, the inputs), the median of 3 processes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "models"


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _start_peak() -> int:
    """Reset this process's peak RSS to its current RSS and return it (KiB).
    ``getrusage``'s ``ru_maxrss`` cannot serve: it survives ``exec``, so a
    child started from a big parent reports the parent's size as its peak."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
        return _status_kib("VmRSS")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _peak_kib() -> int:
    try:
        return _status_kib("VmHWM")
    except (OSError, KeyError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _child(engine: str, d: Path, retain: bool) -> None:
    """Make the engine ready, then load the model and run it once; print the
    growth of this process's peak RSS in bytes."""
    feeds = dict(np.load(d / "inputs.npz"))
    if engine == "openvino":
        import openvino as ov

        core = ov.Core()
        core.get_property("CPU", "FULL_DEVICE_NAME")  # loads the CPU plugin
        base = _start_peak()
        compiled = core.compile_model(core.read_model(str(d / "model.xml")), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        compiled.create_infer_request().infer(feeds, share_inputs=True, share_outputs=True)
    else:
        import irexec
        import irexec.executor.engine
        import irexec.ops  # noqa: F401 - every op module, as loading a model imports them
        from irexec.api.load import load

        if retain:
            irexec.retain_freed_memory()
        base = _start_peak()
        irexec.run(load(str(d / "model.xml")), feeds)
    print((_peak_kib() - base) * 1024)


def _peak(engine: str, d: Path, retain: bool) -> int | None:
    """Peak RSS growth of loading and running the model (median of 3 processes)."""
    growth = []
    for _ in range(3):
        p = subprocess.run([sys.executable, __file__, "--child", engine, str(d), *(["--no-retain"] if not retain else [])],
                           capture_output=True, text=True)
        if p.returncode != 0 or not p.stdout.strip():
            return None
        growth.append(int(p.stdout.split()[-1]))
    return int(statistics.median(growth))


# the layers whose kernels are BLAS products, and the depthwise convolutions (at most 4
# channels per group: a sum per kernel offset, no BLAS)
_BLAS = {"MatMul", "Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData"}
SHARES = ("BLAS products", "depthwise conv", "other layers", "executor")


def _category(model, lid: int) -> str:  # type: ignore[no-untyped-def]
    op = model.ops[lid]
    if op.type not in _BLAS:
        return "other layers"
    filters = model.find_layer(str(lid)).inputs[1].dims
    if op.type == "GroupConvolution" and filters is not None and len(filters) > 2 and filters[1] * filters[2] <= 4:
        return "depthwise conv"
    return "BLAS products"


def _shares(model, feeds: dict[str, np.ndarray], repeat: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Per category, its share of the summed run time over ``repeat`` runs."""
    from irexec.executor.engine import run_model

    totals = dict.fromkeys(SHARES, 0.0)
    category: dict[int, str] = {}  # per layer, found once
    wall = 0.0
    for _ in range(repeat):
        t = time.perf_counter()
        result = run_model(model, feeds)
        wall += time.perf_counter() - t
        for lid, seconds in result.times.items():
            if lid not in category:
                category[lid] = _category(model, lid)
            totals[category[lid]] += seconds
    totals["executor"] = max(0.0, wall - sum(totals.values()))
    return {k: v / wall for k, v in totals.items()}


def _bench(d: Path, repeat: int, retain: bool) -> dict[str, float | int | None]:
    import openvino as ov

    import irexec
    from irexec.api.load import load

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
            "irexec_peak": _peak("irexec", d, retain), "openvino_peak": _peak("openvino", d, retain),
            "shares": _shares(model, feeds, repeat)}


def _steps(d: Path) -> list[dict[str, np.ndarray]]:
    meta = json.loads((d / "meta.json").read_text())
    return [dict(np.load(d / inputs)) for inputs, _ in meta["step_files"]]


def _stateful_child(engine: str, d: Path, limit: int | None) -> None:
    """Load the model, run step 0 then step 1; print the process's peak RSS in bytes."""
    meta = json.loads((d / "meta.json").read_text())
    steps = _steps(d)
    if engine == "openvino":
        import openvino as ov

        request = ov.Core().compile_model(str(d / "model.xml"), "CPU", meta["ov_config"]).create_infer_request()
        for step in steps:
            request.infer(step)
    else:
        import irexec

        irexec.retain_freed_memory()
        with irexec.Session(str(d / "model.xml"), max_memory=limit) as s:
            for step in steps:
                s.run(step)
    print(_peak_kib() * 1024)


def _stateful_peak(engine: str, d: Path, limit: int | None = None) -> int | None:
    peaks = []
    for _ in range(3):
        p = subprocess.run([sys.executable, __file__, "--child-stateful", engine, str(d), str(limit or 0)],
                           capture_output=True, text=True)
        if p.returncode != 0 or not p.stdout.strip():
            sys.stderr.write(p.stderr[-2000:])
            return None
        peaks.append(int(p.stdout.split()[-1]))
    return int(statistics.median(peaks))


def _bench_stateful(d: Path, repeat: int, limit: int) -> dict[str, float | int | None]:
    """Prefill and decode medians of irexec (weights kept; weights recomputed under ``limit``)
    and OpenVINO, interleaved, and each one's peak RSS."""
    import openvino as ov

    import irexec

    meta = json.loads((d / "meta.json").read_text())
    step0, step1 = _steps(d)
    request = ov.Core().compile_model(str(d / "model.xml"), "CPU", meta["ov_config"]).create_infer_request()
    kept = irexec.Session(str(d / "model.xml"))
    tight = irexec.Session(str(d / "model.xml"), max_memory=limit)

    def timed(call) -> tuple[float, float]:  # type: ignore[no-untyped-def]
        """Wall time and CPU time of the process (every thread), in seconds."""
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        return time.perf_counter() - wall, time.process_time() - cpu

    def ov_prefill() -> tuple[float, float]:
        request.reset_state()
        return timed(lambda: request.infer(step0))

    def ov_decode() -> tuple[float, float]:
        request.reset_state()
        request.infer(step0)
        return timed(lambda: request.infer(step1))

    def ir_prefill(s) -> tuple[float, float]:  # type: ignore[no-untyped-def]
        s.reset_state()
        return timed(lambda: s.run(step0))

    def ir_decode(s) -> tuple[float, float]:  # type: ignore[no-untyped-def]
        s.reset_state()
        s.run(step0)
        return timed(lambda: s.run(step1))

    times: dict[str, list[tuple[float, float]]] = {k: [] for k in ("ov_prefill", "ov_decode", "prefill", "decode",
                                                                    "tight_prefill", "tight_decode")}
    for i in range(3 + repeat):
        sample = {"ov_prefill": ov_prefill(), "prefill": ir_prefill(kept), "ov_decode": ov_decode(),
                  "decode": ir_decode(kept)}
        if i >= 3:
            for k, v in sample.items():
                times[k].append(v)
    for i in range(1 + max(3, repeat // 3)):  # recomputing every weight is slow: fewer runs
        sample = {"tight_prefill": ir_prefill(tight), "tight_decode": ir_decode(tight)}
        if i >= 1:
            for k, v in sample.items():
                times[k].append(v)
    out: dict[str, float | int | None] = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
    out.update({f"{k}_cpu": statistics.median(c for _, c in v) for k, v in times.items()})
    out["load"] = os.getloadavg()[0]
    out.update(ov_peak=_stateful_peak("openvino", d), peak=_stateful_peak("irexec", d),
               tight_peak=_stateful_peak("irexec", d, limit))
    return out


def _report_stateful(d: Path, r: dict[str, float | int | None], limit: int) -> None:
    def ms(k: str) -> str:
        return f"{r[k] * 1e3:.1f} ms"  # type: ignore[operator]

    def mib(k: str) -> str:
        return "n/a" if r[k] is None else f"{r[k] / 2**20:.0f} MiB"  # type: ignore[operator]

    print(f"\n{d.name} (stateful; OpenVINO config from meta.json):")
    print(f"{'':<28} {'prefill':>10} {'decode':>10} {'peak RSS':>10} {'prefill CPU':>12} {'decode CPU':>11}")
    print(f"{'OpenVINO CPU':<28} {ms('ov_prefill'):>10} {ms('ov_decode'):>10} {mib('ov_peak'):>10} "
          f"{ms('ov_prefill_cpu'):>12} {ms('ov_decode_cpu'):>11}")
    print(f"{'irexec, weights kept':<28} {ms('prefill'):>10} {ms('decode'):>10} {mib('peak'):>10} "
          f"{ms('prefill_cpu'):>12} {ms('decode_cpu'):>11}")
    print(f"{f'irexec, --max-memory {limit // 10**6} MB':<28} {ms('tight_prefill'):>10} {ms('tight_decode'):>10} "
          f"{mib('tight_peak'):>10} {ms('tight_prefill_cpu'):>12} {ms('tight_decode_cpu'):>11}")
    print(f"(medians; CPU = the process's CPU time over all its threads; load average {r['load']:.1f} "
          f"on {os.cpu_count()} CPUs during the run)")
    ratios = [f"prefill {r['prefill'] / r['ov_prefill']:.2f}x", f"decode {r['decode'] / r['ov_decode']:.2f}x"]  # type: ignore[operator]
    if r["peak"] and r["ov_peak"]:
        ratios.append(f"peak RSS {r['peak'] / r['ov_peak']:.2f}x")  # type: ignore[operator]
    print("irexec / OpenVINO (weights kept): " + ", ".join(ratios) + " (targets: 3x, 3x, 2x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--no-retain", action="store_true", help="irexec returns freed memory to the kernel (library default)")
    ap.add_argument("--stateful-limit", type=int, default=150 * 10**6,
                    help="memory limit (bytes) of the second irexec measurement of a stateful model")
    ap.add_argument("--only", help="measure only the model of this name")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--child-stateful", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], Path(args.child[1]), not args.no_retain)
        return
    if args.child_stateful:
        engine, d, limit = args.child_stateful
        _stateful_child(engine, Path(d), int(limit) or None)
        return
    import irexec

    retained = not args.no_retain and irexec.retain_freed_memory()
    print("freed memory reused by the allocator, as in `irexec run`: " + ("yes" if retained else "no (--no-retain or not glibc)"))
    from irexec.ops.framework.registry import resolve

    ratios: list[float] = []
    shares: dict[str, dict[str, float]] = {}
    print(f"{'model':<20} {'irexec ms':>10} {'OpenVINO ms':>12} {'ratio':>7} {'irexec MiB':>11} {'OpenVINO MiB':>13} {'ratio':>7}")
    stateful: list[tuple[Path, dict[str, float | int | None]]] = []
    for d in sorted(p for p in args.models.iterdir() if (p / "model.xml").is_file()):
        if args.only and d.name != args.only:
            continue
        meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").is_file() else {"ops": {}}
        missing = [k for k in meta["ops"] if resolve(k.rpartition("-")[0], k.rpartition("-")[2]) is None]
        if missing:
            print(f"{d.name:<20} skipped: not implemented: {', '.join(missing)}")
            continue
        if meta.get("stateful"):
            try:
                stateful.append((d, _bench_stateful(d, args.repeat, args.stateful_limit)))
            except irexec.IRExecError as e:
                print(f"{d.name:<20} skipped: {e.diagnostics[0].format()}")
            continue
        r = _bench(d, args.repeat, retained)
        mem = ""
        if r["irexec_peak"] is not None and r["openvino_peak"]:
            mem = (f"{r['irexec_peak'] / 2**20:>11.1f} {r['openvino_peak'] / 2**20:>13.1f} "
                   f"{r['irexec_peak'] / r['openvino_peak']:>7.2f}")
        print(f"{d.name:<20} {r['irexec_s'] * 1e3:>10.1f} {r['openvino_s'] * 1e3:>12.2f} "
              f"{r['irexec_s'] / r['openvino_s']:>7.1f} {mem}")
        ratios.append(r["irexec_s"] / r["openvino_s"])
        shares[d.name] = r["shares"]  # type: ignore[assignment]
    if ratios:
        print(f"time ratio irexec/OpenVINO: median {statistics.median(ratios):.1f}, worst {max(ratios):.1f}")
    if shares:
        print("\nwhere irexec's time goes (% of its run time):")
        print(f"{'model':<20}" + "".join(f" {k:>15}" for k in SHARES))
        for name, share in shares.items():
            print(f"{name:<20}" + "".join(f" {100 * share[k]:>15.0f}" for k in SHARES))
    for d, r in stateful:
        _report_stateful(d, r, args.stateful_limit)


if __name__ == "__main__":
    main()
