#!/usr/bin/env python
"""irexec against OpenVINO CPU on whole models, and the speed targets met or not.

    python benchmarks/bench_targets.py             # every target, a few minutes
    python benchmarks/bench_targets.py --quick     # few repeats, small IR: a smoke run
    python benchmarks/bench_targets.py --models DIR --repeat 15

Every time is a median of calls that alternate between irexec and OpenVINO (f32:
``INFERENCE_PRECISION_HINT=f32``) in this process after warm-ups, so both see the
machine's load; the ratios are what to compare.  The models: every directory of
``--models`` (default ``shared/models`` beside the repository) and of ``examples/``
holding ``model.xml`` and ``inputs.npz``; a stateful LLM (meta.json ``"stateful"``)
is measured step by step as bench_models.py does (prefill = reset, step 0; decode =
reset, step 0 untimed, step 1), with each engine's peak RSS in a fresh process, and
its greedy generation in tokens/s: irexec's ``generate``, the same greedy loop on one
OpenVINO infer request and GenAI's ``LLMPipeline`` called in turn, round after round, over
the same prompt and token count, the generate target being the median of the per-round
ratios (their min-max printed beside it).  The whole-model median and worst are over the
real models (``--models``); the spec examples get their own median and worst beside
them, not a target.  ``check`` is timed on a long IR built here with
IRBuilder against ``openvino.Core().read_model`` of the same file, and ``irexec run``
of a tiny model in a fresh process as a user starts it.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this tree's irexec, not an installed one
EXAMPLES = REPO / "examples"
_spec = importlib.util.spec_from_file_location("bench_models", Path(__file__).with_name("bench_models.py"))
assert _spec is not None and _spec.loader is not None
bench_models = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_models)
F32 = {"INFERENCE_PRECISION_HINT": "f32"}
# shared/models beside the repository or beside one of its parent folders (a worktree)
MODELS = next((p / "shared" / "models" for p in REPO.parents if (p / "shared" / "models").is_dir()), bench_models.DEFAULT_DIR)


def host() -> str:
    """The CPU's model name and its vector extensions, from /proc/cpuinfo."""
    name, flags = "unknown CPU", set[str]()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and name == "unknown CPU":
                name = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    ext = [f for f in ("avx2", "avx512f", "avx512_vnni", "amx_tile") if f in flags]
    return f"{name}, {os.cpu_count()} CPUs, {' '.join(ext) or 'no avx2'}"


def versions() -> str:
    """The versions of what the figures depend on: Python, irexec's dependencies, OpenVINO."""
    from importlib.metadata import PackageNotFoundError, version

    found = [f"Python {sys.version.split()[0]}"]
    for name in ("numpy", "ml_dtypes", "lxml", "networkx", "numba", "openvino", "openvino-genai"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} absent")
    return ", ".join(found)


def interleaved(a: Callable[[], object], b: Callable[[], object], repeat: int, warm: int = 2) -> tuple[float, float]:
    """Medians of ``a`` and ``b`` called in turn ``repeat`` times after ``warm`` warm-ups."""
    ta, tb = [], []
    for i in range(warm + repeat):
        t = time.perf_counter()
        a()
        t1 = time.perf_counter()
        b()
        t2 = time.perf_counter()
        if i >= warm:
            ta.append(t1 - t)
            tb.append(t2 - t1)
    return statistics.median(ta), statistics.median(tb)


def model_dirs(models: Path) -> list[Path]:
    dirs = [d for root in (models, EXAMPLES) if root.is_dir() for d in sorted(root.iterdir())]
    return [d for d in dirs if (d / "model.xml").is_file()]


def is_example(name: str) -> bool:
    """Whether a measured model is one of this repository's spec examples (not a real model)."""
    return (EXAMPLES / name / "model.xml").is_file()


def spread(ratios: dict[str, float]) -> tuple[float, float, str]:
    """The median and the worst of ``ratios``, and the name of the worst."""
    slowest = max(ratios, key=ratios.__getitem__)
    return statistics.median(ratios.values()), ratios[slowest], slowest


def bench_model(d: Path, repeat: int) -> tuple[float, float]:
    import openvino as ov

    import irexec
    from irexec.api.load import load

    feeds = dict(np.load(d / "inputs.npz"))
    model = load(str(d / "model.xml"))
    request = ov.Core().compile_model(str(d / "model.xml"), "CPU", F32).create_infer_request()
    return interleaved(lambda: irexec.run(model, feeds), lambda: request.infer(feeds, share_inputs=True, share_outputs=True),
                       repeat)


def bench_llm(d: Path, repeat: int, new_tokens: int, peaks: int) -> dict[str, float | None]:
    """Prefill and decode medians, peak RSS, greedy tokens/s of irexec and OpenVINO."""
    import openvino as ov

    import irexec
    from irexec.api.generate import generate

    meta = json.loads((d / "meta.json").read_text())
    step0, step1 = bench_models._steps(d)
    request = ov.Core().compile_model(str(d / "model.xml"), "CPU", meta["ov_config"]).create_infer_request()
    session = irexec.Session(str(d / "model.xml"))

    def decode_step(reset: Callable[[], object], call: Callable[[dict[str, np.ndarray]], object]) -> float:
        """Seconds of step 1 after a reset and an untimed step 0."""
        reset()
        call(step0)
        t = time.perf_counter()
        call(step1)
        return time.perf_counter() - t

    def ov_greedy() -> None:
        """The same greedy loop as ``irexec generate``, on one infer request."""
        request.reset_state()
        ids, mask = step0["input_ids"], step0["attention_mask"]
        logits = request.infer(step0)["logits"]
        for _ in range(1, new_tokens):
            ids = logits[:, -1].argmax(-1)[:, None].astype(np.int64)
            mask = np.ones((1, mask.shape[1] + 1), np.int64)
            logits = request.infer({"input_ids": ids, "attention_mask": mask, "position_ids": np.array([[mask.shape[1] - 1]]),
                                    "beam_idx": np.zeros(1, np.int32)})["logits"]

    out: dict[str, float | None] = {}
    def prefill(reset: Callable[[], object], call: Callable[[dict[str, np.ndarray]], object]) -> Callable[[], object]:
        return lambda: (reset(), call(step0))

    out["ir_prefill"], out["ov_prefill"] = interleaved(prefill(session.reset_state, session.run),
                                                       prefill(request.reset_state, request.infer), repeat, warm=3)
    ir_dec, ov_dec = [], []
    for _ in range(1 + repeat):
        ir_dec.append(decode_step(session.reset_state, session.run))
        ov_dec.append(decode_step(request.reset_state, request.infer))
    out["ir_decode"], out["ov_decode"] = statistics.median(ir_dec[1:]), statistics.median(ov_dec[1:])
    # the decode step without the jit extra's compressed product (`pip install irexec` alone)
    from irexec.kernels import compressed_linear

    kernels = compressed_linear._compiled()
    out["ir_decode_plain"] = out["ir_prefill_plain"] = out["ir_peak_plain"] = None
    if kernels is not None:
        compressed_linear._kernels = None  # a model run first now keeps f32 weights, as without Numba
        try:
            plain = irexec.Session(str(d / "model.xml"))
            plain.run(step0)
        finally:
            compressed_linear._kernels = kernels
        # (the plain session's chains were decided on that first run: they stay f32 with the kernels back)
        # alternating with the compressed session, so that both see the same load
        both = [(decode_step(plain.reset_state, plain.run), decode_step(session.reset_state, session.run))
                for _ in range(1 + repeat)][1:]
        out["ir_decode_plain"] = statistics.median(p for p, _ in both)
        out["ir_decode_jit"] = statistics.median(j for _, j in both)
        out["ir_prefill_plain"], out["ir_prefill_jit"] = interleaved(
            prefill(plain.reset_state, plain.run), prefill(session.reset_state, session.run), repeat, warm=3)
        out["ir_peak_plain"] = stateful_peak("irexec", d, peaks, IREXEC_JIT="0")
    prompt = {k: step0[k] for k in ("input_ids", "attention_mask", "position_ids", "beam_idx")}
    with genai_pipeline(d, new_tokens) as genai:
        rounds = generate_rounds(lambda: generate(session, prompt, new_tokens), ov_greedy, genai, max(3, repeat // 2))
    ir_gen, ov_gen = statistics.median(rounds["irexec"]), statistics.median(rounds["openvino"])
    out["ir_tok_s"], out["ov_tok_s"] = new_tokens / ir_gen, new_tokens / ov_gen
    out["genai_tok_s"] = out["genai_ratio"] = out["genai_ratio_min"] = out["genai_ratio_max"] = None
    if genai is not None:
        # per round, irexec's tokens/s over GenAI's: the two calls ran next to each other
        per_round = [g / i for i, g in zip(rounds["irexec"], rounds["genai"])]
        out["genai_tok_s"] = new_tokens / statistics.median(rounds["genai"])
        out["genai_ratio"] = statistics.median(per_round)
        out["genai_ratio_min"], out["genai_ratio_max"] = min(per_round), max(per_round)

    class EveryPosition(irexec.Session):
        """generate as it ran before its prefill asked for the last position's logits alone."""

        def run(self, *args: Any, last_position: str | None = None, **kwargs: Any) -> Any:
            return super().run(*args, **kwargs)

    every = EveryPosition(str(d / "model.xml"))
    last_gen, every_gen = interleaved(lambda: generate(session, prompt, new_tokens),
                                      lambda: generate(every, prompt, new_tokens), max(1, repeat // 3), warm=1)
    out["ir_tok_s_every_position"] = new_tokens / every_gen
    out["last_position_speedup"] = every_gen / last_gen
    out["ir_peak"], out["ov_peak"] = stateful_peak("irexec", d, peaks), stateful_peak("openvino", d, peaks)
    return out


def generate_rounds(irexec_call: Callable[[], object], ov_call: Callable[[], object],
                    genai_call: Callable[[], object] | None, rounds: int, warm: int = 2) -> dict[str, list[float]]:
    """Seconds of each engine's generation, called in turn round after round (the order
    rotating, so that none always follows another) after ``warm`` untimed rounds."""
    calls = {"irexec": irexec_call, "openvino": ov_call}
    if genai_call is not None:
        calls["genai"] = genai_call
    names = list(calls)
    times: dict[str, list[float]] = {name: [] for name in names}
    for i in range(warm + rounds):
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            t = time.perf_counter()
            calls[name]()
            if i >= warm:
                times[name].append(time.perf_counter() - t)
    return times


@contextlib.contextmanager
def genai_pipeline(d: Path, new_tokens: int) -> Iterator[Callable[[], object] | None]:
    """A call of GenAI's LLMPipeline on the model, fed the prompt's token ids (no text: the
    model has no tokenizer of its own, so the folder borrows the test suite's tokenizer pair,
    which LLMPipeline needs to start), greedy, every token generated (ignore_eos); None
    without openvino_genai."""
    if importlib.util.find_spec("openvino_genai") is None:
        yield None
        return
    import openvino as ov
    import openvino_genai

    meta = json.loads((d / "meta.json").read_text())
    step0, _ = bench_models._steps(d)
    tokenizers = REPO / "tests" / "data" / "tokenizers" / "bpe"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for ext in (".xml", ".bin"):
            (folder / f"openvino_model{ext}").symlink_to((d / f"model{ext}").resolve())
            for name in ("openvino_tokenizer", "openvino_detokenizer"):
                (folder / f"{name}{ext}").symlink_to(tokenizers / f"{name}{ext}")
        (folder / "generation_config.json").write_text(json.dumps({"eos_token_id": 0}))
        pipe = openvino_genai.LLMPipeline(str(folder), "CPU", **meta["ov_config"])
        ids = step0["input_ids"]
        prompt = openvino_genai.TokenizedInputs(ov.Tensor(ids), ov.Tensor(np.ones_like(ids)))
        config = openvino_genai.GenerationConfig(max_new_tokens=new_tokens, ignore_eos=True, do_sample=False)

        def call() -> None:
            out = pipe.generate(prompt, config)
            assert len(out.tokens[0]) == new_tokens

        yield call


def stateful_peak(engine: str, d: Path, count: int, **env: str) -> float | None:
    """Median over ``count`` fresh processes of the peak RSS of loading the model and running both steps."""
    got = []
    for _ in range(count):
        p = subprocess.run([sys.executable, str(bench_models.__file__), "--child-stateful", engine, str(d), "0"],
                           capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO), **env})
        if p.returncode != 0 or not p.stdout.strip():
            return None
        got.append(int(p.stdout.split()[-1]))
    return statistics.median(got)


def write_long_ir(path: Path, blocks: int) -> int:
    """Parameter -> ``blocks`` x (Add of a Const, ReLU, Multiply by a Const) -> Result; its layer count."""
    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    x = b.parameter("x", "1,16")
    for i in range(blocks):
        x = b.layer("Add", "opset1", [x, b.const(np.full((1, 16), 0.01 * (i % 7), np.float32))])
        x = b.layer("Relu", "opset1", [x])
        x = b.layer("Multiply", "opset1", [x, b.const(np.full((1, 16), 0.5, np.float32))])
    b.result(x)
    b.write(path)
    return 2 + 5 * blocks


def bench_check(blocks: int, repeat: int) -> tuple[int, float, float, float, float]:
    """Layers, irexec.check and read_model of a long IR (interleaved), and then a whole
    fresh `irexec check` process on the same unchanged file with its cache warm (what a
    CI run sees for a model it has checked before) against read_model, interleaved."""
    import openvino as ov

    import irexec

    core = ov.Core()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.xml"
        layers = write_long_ir(path, blocks)
        result = irexec.check(str(path))
        if result.diagnostics and any(d.severity == "error" for d in result.diagnostics):
            raise SystemExit(f"the long IR does not check: {result.diagnostics[0].format()}")
        ir, ov_s = interleaved(lambda: irexec.check(str(path)), lambda: core.read_model(str(path)), repeat, warm=1)
        cmd = [sys.executable, "-m", "irexec", "check", "-q", str(path)]
        env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        cached, ov_again = interleaved(lambda: subprocess.run(cmd, capture_output=True, check=True, env=env),
                                       lambda: core.read_model(str(path)), repeat, warm=1)  # the warm-up fills the cache
    return layers, ir, ov_s, cached, ov_again


def bench_fresh_run(repeat: int) -> float:
    """Wall time of ``python -m irexec run`` of a tiny example model, a fresh process each time."""
    d = EXAMPLES / "gather-example-1"
    cmd = [sys.executable, "-m", "irexec", "run", str(d / "model.xml"), "--inputs", str(d / "inputs.npz"), "-q"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    times = []
    for _ in range(repeat + 1):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times[1:])  # the first warms the file cache


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=MODELS)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="few repeats, a small long IR, one process per peak")
    ap.add_argument("--only", help="only the models whose directory name contains one of these comma-separated words")
    args = ap.parse_args()
    repeat = 3 if args.quick else args.repeat
    import irexec

    irexec.retain_freed_memory()  # as `irexec run` does
    print(f"host: {host()}; load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"versions: {versions()}")
    targets: list[tuple[str, str, bool | None]] = []

    print(f"\n== models (f32, medians of {repeat} interleaved calls)")
    print(f"{'model':<26} {'irexec ms':>10} {'OpenVINO ms':>12} {'ratio':>7}")
    ratios: dict[str, float] = {}
    llms: list[Path] = []
    for d in model_dirs(args.models):
        if args.only and not any(w in d.name for w in args.only.split(",")):
            continue
        meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").is_file() else {}
        if meta.get("stateful"):
            llms.append(d)
            continue
        if not (d / "inputs.npz").is_file():
            continue
        try:
            ir, ov_s = bench_model(d, repeat)
        except irexec.IRExecError as e:
            print(f"{d.name:<26} skipped: {e.diagnostics[0].format()}")
            continue
        except RuntimeError as e:  # OpenVINO refuses some spec examples irexec runs
            print(f"{d.name:<26} skipped: OpenVINO: {str(e).strip().splitlines()[-1][:80]}")
            continue
        ratios[d.name] = ir / ov_s
        print(f"{d.name:<26} {ir * 1e3:>10.2f} {ov_s * 1e3:>12.3f} {ir / ov_s:>7.2f}")
    # the targets are judged on the real models; the spec examples (a dozen elements, where
    # OpenVINO's own call overhead dominates) are reported apart, never as a target
    real = {name: r for name, r in ratios.items() if not is_example(name)}
    examples = {name: r for name, r in ratios.items() if is_example(name)}
    if real:
        med, worst, slowest = spread(real)
        counted = f"{len(real)} real model{'s' if len(real) != 1 else ''}"
        targets += [(f"whole-model median <= 2x OpenVINO ({counted})", f"{med:.2f}x", med <= 2),
                    ("whole-model worst <= 3x OpenVINO", f"{worst:.2f}x ({slowest})", worst <= 3)]
    elif ratios:
        targets.append(("whole-model median and worst (real models)", "not measured: no real model ran", None))
    if examples:
        med, worst, slowest = spread(examples)
        print(f"examples apart ({len(examples)}, not a target): median {med:.2f}x, worst {worst:.2f}x ({slowest})")
        targets += [(f"  examples ({len(examples)}): median", f"{med:.2f}x", None),
                    ("  examples: worst", f"{worst:.2f}x ({slowest})", None)]

    for d in llms:
        r = bench_llm(d, repeat, 4 if args.quick else 16, 1 if args.quick else 3)
        print(f"\n== {d.name} (stateful LLM, OpenVINO config from meta.json)")
        print(f"{'':<10} {'prefill ms':>11} {'decode ms':>10} {'tokens/s':>9} {'peak MiB':>9}")
        for who, k in (("irexec", "ir"), ("OpenVINO", "ov")):
            peak = r[f"{k}_peak"]
            print(f"{who:<10} {r[f'{k}_prefill'] * 1e3:>11.1f} {r[f'{k}_decode'] * 1e3:>10.1f} "  # type: ignore[operator]
                  f"{r[f'{k}_tok_s']:>9.1f} {'n/a' if peak is None else f'{peak / 2**20:.0f}':>9}")
        print(f"{'':<10} {'':>11} {'':>10} {r['ir_tok_s_every_position']:>9.1f}   (irexec with every position's logits "
              f"in the prefill; last position alone, alternating: {r['last_position_speedup']:.2f}x the tokens/s)")
        if r["ir_decode_plain"] is not None:
            plain_peak = r["ir_peak_plain"]
            print(f"{'(no jit)':<10} {r['ir_prefill_plain'] * 1e3:>11.1f} {r['ir_decode_plain'] * 1e3:>10.1f} {'':>9} "  # type: ignore[operator]
                  f"{'n/a' if plain_peak is None else f'{plain_peak / 2**20:.0f}':>9}   (IREXEC_JIT=0: BLAS on f32 weights)")
            print(f"{'':<10} jit / no jit, alternating: prefill {r['ir_prefill_jit'] / r['ir_prefill_plain']:.2f}x, "  # type: ignore[operator]
                  f"decode {r['ir_decode_jit'] / r['ir_decode_plain']:.2f}x"  # type: ignore[operator]
                  + (f", peak RSS {r['ir_peak'] / plain_peak:.2f}x" if plain_peak and r["ir_peak"] else ""))  # type: ignore[operator]
        prefill, decode = r["ir_prefill"] / r["ov_prefill"], r["ir_decode"] / r["ov_decode"]  # type: ignore[operator]
        targets += [(f"{d.name} prefill <= 1.5x", f"{prefill:.2f}x", prefill <= 1.5),
                    (f"{d.name} decode <= 2x", f"{decode:.2f}x", decode <= 2)]
        if r["ir_peak"] and r["ov_peak"]:
            peak = r["ir_peak"] / r["ov_peak"]
            targets.append((f"{d.name} peak RSS <= 1.5x", f"{peak:.2f}x", peak <= 1.5))
        gen = r["ir_tok_s"] / r["ov_tok_s"]  # type: ignore[operator]
        genai, ratio = r["genai_tok_s"], r["genai_ratio"]
        if genai is None or ratio is None:
            targets.append(("generate tokens/s >= 0.5x GenAI LLMPipeline",
                            f"not measured: openvino_genai is not installed (vs an OpenVINO greedy loop: {gen:.2f}x)", None))
        else:
            print(f"{'GenAI':<10} {'':>11} {'':>10} {genai:>9.1f}   (LLMPipeline, the same prompt and greedy tokens, "
                  f"called in turn with irexec and the greedy loop; irexec / GenAI per round: median {ratio:.2f}x, "
                  f"{r['genai_ratio_min']:.2f}-{r['genai_ratio_max']:.2f}x)")
            targets.append(("generate tokens/s >= 0.5x GenAI LLMPipeline",
                            f"{ratio:.2f}x ({r['genai_ratio_min']:.2f}-{r['genai_ratio_max']:.2f}x; greedy loop: {gen:.2f}x)",
                            ratio >= 0.5))

    blocks = 400 if args.quick else 5000
    layers, ir, ov_s, cached, ov_again = bench_check(blocks, repeat)
    print(f"\n== check of a {layers}-layer IR: irexec.check {ir * 1e3:.0f} ms, OpenVINO read_model {ov_s * 1e3:.0f} ms; "
          f"unchanged, from the cache: a fresh `irexec check` process {cached * 1e3:.0f} ms, read_model {ov_again * 1e3:.0f} ms")
    targets.append((f"check <= 1x read_model ({layers} layers)", f"{ir / ov_s:.2f}x", ir <= ov_s))
    targets.append(("  the same file unchanged: a fresh `irexec check`, cache warm", f"{cached / ov_again:.2f}x",
                    cached <= ov_again))

    fresh = bench_fresh_run(repeat)
    print(f"\n== `irexec run` of a tiny model in a fresh process: {fresh:.2f} s")
    targets.append(("tiny `irexec run` in a fresh process <= 0.5 s", f"{fresh:.2f} s", fresh <= 0.5))

    print(f"\n== targets (load average now {os.getloadavg()[0]:.1f})")
    for name, value, ok in targets:
        print(f"{name:<52} {value:<30} {'n/a' if ok is None else verdict(ok)}".rstrip())


if __name__ == "__main__":
    main()
