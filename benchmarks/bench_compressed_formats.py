#!/usr/bin/env python
"""A decode step's products (one activation row) for each weight format the compressed
product reads, against the same weight widened to f32.

    IREXEC_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_compressed_formats.py --fixtures
    python benchmarks/bench_compressed_formats.py --shapes 1536x576,49152x576 --rounds 15

(one thread each, as in benchmarks/README.md: on a loaded machine a product cut over
two threads waits for whichever core the other work holds)

For each format and weight shape [N, K] (groups of 32 columns, f32 scales), three ways:

packed       ``CompressedWeight.product``: the codes read as stored (the jit extra)
kept f32     ``a @ w.T`` through BLAS on the f32 weight made once and kept (a model
             whose f32 weights fit the eighth of the memory limit irexec keeps)
remade f32   the f32 weight computed again, then ``a @ w.T`` (a model whose f32
             weights do not fit that: each run decompresses them again)

``--fixtures`` then times whole decode steps of the small NNCF-compressed LLMs in
tests/data/nncf_formats (one token on a 7-token cache): a session whose chains' weights
are read packed (under a 256 KiB memory limit, which keeps none of their f32 weights)
against one whose f32 weights are kept (the default limit), alternating step by step.

Times are the best of rounds in which every contender runs once, interleaved in one
process, so they share the machine's load (a loaded machine stretches a median by
whatever else runs); compare the ratios within one run.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from irexec.base import lowbit  # noqa: E402
from irexec.kernels import compressed_linear  # noqa: E402
from irexec.kernels.compressed_linear import CompressedWeight  # noqa: E402
from irexec.kernels.convert import convert_array  # noqa: E402

GROUP = 32
# format -> (the codes' type, whether a code is a table's, bits a code)
FORMATS = {"u4 (INT4)": ("u4", False, 4), "nf4 (NF4)": ("nf4", True, 4), "f4e2m1 (MXFP4, NVFP4)": ("f4e2m1", True, 4),
           "u4 codebook (CB4)": ("cb4", True, 4), "f8e4m3 (FP8, MXFP8)": ("f8e4m3", True, 8)}


def host() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        name = next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        name = platform.processor() or "unknown CPU"
    import numba

    return f"{name}; Python {platform.python_version()}, NumPy {np.__version__}, Numba {numba.__version__}"


def weight(kind: str, n: int, k: int, rng: np.random.Generator) -> CompressedWeight:
    groups = k // GROUP
    scale = rng.uniform(1e-3, 1e-1, (n, groups, 1)).astype(np.float32)
    if kind == "f8e4m3":
        codes = rng.integers(0, 256, (n, groups, GROUP), dtype=np.uint8) & np.uint8(0xF7)  # no NaN codes
        dtype = lowbit.DTYPES["f8e4m3"][0] if "f8e4m3" in lowbit.DTYPES else np.dtype("float8_e4m3fn")
        q = codes.view(dtype)
        table = convert_array(np.arange(256, dtype=np.uint8).view(dtype), np.dtype(np.float32))
        made = CompressedWeight.of(q, None, scale, None, table)
    else:
        codes = rng.integers(0, 16, (n, groups, GROUP), dtype=np.uint8)
        flat = codes.reshape(-1)
        stored = flat[0::2] | (flat[1::2] << 4)
        table = None
        if kind == "cb4":
            table = np.sort(rng.standard_normal(16)).astype(np.float32)
        elif kind != "u4":
            table = convert_array(np.arange(16, dtype=np.uint8).view(lowbit.DTYPES[kind][0]), np.dtype(np.float32))
        q = codes.view(lowbit.DTYPES["u4"][0])
        zero = None if table is not None else np.full((n, groups, 1), 8, np.float32)
        made = CompressedWeight.of(q, zero, scale, stored, table)
    assert made is not None
    return made


def measure(fns: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in fns}
    for fn in fns.values():
        fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: min(t) * 1e3 for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="1536x576,4096x4096,49152x576")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--fixtures", action="store_true", help="also whole decode steps of the test fixtures")
    args = parser.parse_args()
    if not compressed_linear.available():
        sys.exit("the compressed product needs the jit extra (Numba), and IREXEC_JIT not 0")
    print(host())
    rng = np.random.default_rng(0)
    print(f"{'format':24} {'shape':>11} {'packed':>9} {'kept f32':>9} {'remade f32':>10}  packed/kept  packed/remade")
    for shape in args.shapes.split(","):
        n, k = (int(d) for d in shape.split("x"))
        a = rng.standard_normal((1, k)).astype(np.float32)
        for label, (kind, _, _) in FORMATS.items():
            w = weight(kind, n, k, rng)
            kept = w.rows(np.arange(n))

            def remade(w: CompressedWeight = w, a: np.ndarray = a, n: int = n) -> object:
                return a @ w.rows(np.arange(n)).T

            t = measure({"packed": lambda w=w, a=a: w.product(a), "kept": lambda kept=kept, a=a: a @ kept.T,
                         "remade": remade}, args.rounds)
            print(f"{label:24} {shape:>11} {t['packed']:8.3f}  {t['kept']:8.3f}  {t['remade']:9.3f}  "
                  f"{t['packed'] / t['kept']:10.2f}x  {t['packed'] / t['remade']:11.2f}x")
            del kept
    if args.fixtures:
        fixtures(args.rounds)


def fixtures(rounds: int) -> None:
    import irexec
    from irexec.executor.cache import run_cache
    from irexec.kernels.compressed_linear import StandIn

    data = Path(__file__).resolve().parent.parent / "tests" / "data" / "nncf_formats"
    prompt = np.load(data / "prompt.npz")["input_ids"][:1].astype(np.int64)

    def feeds(ids: np.ndarray, past: int) -> dict[str, np.ndarray]:
        return {"input_ids": ids, "attention_mask": np.ones((1, past + ids.shape[1]), np.int64),
                "position_ids": np.arange(past, past + ids.shape[1], dtype=np.int64)[None],
                "beam_idx": np.zeros(1, np.int32)}

    print(f"\n{'fixture':24} {'packed':>9} {'kept f32':>9}  packed/kept  (decode step, ms; weights read packed)")
    for name in ("int4_asym_g32_all_layers", "nf4_g32_all_layers", "mxfp4_all_layers", "nvfp4_all_layers",
                 "cb4_all_layers", "mxfp8_e4m3", "fp8_e4m3"):
        # a limit whose eighth keeps less than the fixture's 56 KiB of f32 weights: read packed
        sessions = {way: irexec.Session(str(data / name / "model.xml"), max_memory=limit)
                    for way, limit in (("packed", 256 << 10), ("kept", None))}
        for session in sessions.values():
            session.run(feeds(prompt, 0))
        stood = sum(isinstance(o[0], StandIn) for o in run_cache(sessions["packed"].model).outputs.values())
        token = prompt[:, -1:]

        def step(session: irexec.Session, token: np.ndarray = token) -> None:
            state = dict(session.state)
            session.run(feeds(token, prompt.shape[1]))
            session.set_state(state)

        t = measure({way: (lambda s=s: step(s)) for way, s in sessions.items()}, rounds * 5)
        print(f"{name:24} {t['packed']:8.3f}  {t['kept']:8.3f}  {t['packed'] / t['kept']:10.2f}x  ({stood})")
        for session in sessions.values():
            session.close()


if __name__ == "__main__":
    main()
