#!/usr/bin/env python
"""What ``irexec diff A.xml B.xml --inputs-dir DIR`` costs per sample, and its peak RSS.

    python benchmarks/bench_diff_dataset.py [--models DIR] [--samples 8] [--jobs 1 2]

Pairs: bert_tiny against its INT8 and INT4 copies (tests/data/diff_ab), and gpt2_tiny
against itself (the matching and the figures with nothing compressed).  Samples are
the model's inputs.npz with the token ids between the first and the last drawn again
(seed 0) below its largest.  Each configuration runs the CLI in a fresh process; its wall time, less one
run on a single sample (loading, matching), divided by the other samples is the cost
per sample; peak RSS is the largest resident set of that process and its children
(ru_maxrss), so with -j N it is one process's, not their sum.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = next((p for p in (ROOT.parent / "shared" / "models", Path("/work/shared/models")) if p.is_dir()),
                   ROOT.parent / "shared" / "models")
DATA = ROOT / "tests" / "data" / "diff_ab"

_RUN = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
        "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)")


def _samples(inputs: Path, folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    base = dict(np.load(inputs))
    rng = np.random.default_rng(0)
    for i in range(n):
        ids = base["input_ids"].copy()
        ids[:, 1:-1] = rng.integers(1, ids.max() + 1, ids[:, 1:-1].shape)  # ids the vocabulary has
        np.savez(folder / f"s{i:04d}.npz", **{**base, "input_ids": ids})


def _run(a: Path, b: Path, folder: Path, jobs: int) -> tuple[float, float]:
    cmd = [sys.executable, "-c", _RUN, sys.executable, "-m", "irexec", "diff", str(a), str(b), "--inputs-dir",
           str(folder), "-j", str(jobs)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout.split()
    if out[2] != "0":
        raise SystemExit(f"irexec diff failed on {a} {b}")
    return float(out[0]), int(out[1]) / 1024  # seconds, MB (ru_maxrss is in KB on Linux)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    pairs = [("bert_tiny", "INT8", args.models / "bert_tiny" / "model.xml", DATA / "bert_tiny_int8.xml"),
             ("bert_tiny", "INT4 g32", args.models / "bert_tiny" / "model.xml", DATA / "bert_tiny_int4.xml"),
             ("gpt2_tiny", "itself", args.models / "gpt2_tiny" / "model.xml", args.models / "gpt2_tiny" / "model.xml")]
    print("| A | B | -j | 1 sample | samples | total | per sample | peak RSS |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind, a, b in pairs:
            one, many = Path(tmp) / f"{name}-1", Path(tmp) / f"{name}-n"
            _samples(a.parent / "inputs.npz", one, 1)
            _samples(a.parent / "inputs.npz", many, args.samples)
            for jobs in args.jobs:
                start = time.perf_counter()
                base, _ = _run(a, b, one, jobs)
                total, rss = _run(a, b, many, jobs)
                del start
                per = (total - base) / max(1, args.samples - 1)
                print(f"| {name} | {kind} | {jobs} | {base:.2f} s | {args.samples} | {total:.2f} s | "
                      f"{per * 1000:.0f} ms | {rss:.0f} MB |")


if __name__ == "__main__":
    main()
