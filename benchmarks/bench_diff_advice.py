#!/usr/bin/env python
"""Does the data-set advice of ``irexec diff A.xml B.xml --inputs-dir DIR`` hold when applied?

    PYTHONPATH=<a folder holding nncf 3.4>:$PWD python benchmarks/bench_diff_advice.py [--held-out 24] [--steps 4]

Two stateful f32 LLMs: the tiny one of tests/data/diff_dataset (one decoder layer, 10 weights) with its
6 prompts, and a deeper one made by the same builder (make_llm_dataset.build_llm: 4 layers, hidden 64,
31 weights) with its NNCF copies and 6 prompts, committed in tests/data/diff_dataset/deeper (``--samples``
other than 6 writes that many prompts in a temporary folder).  B is A compressed by NNCF: INT4_ASYM in
groups of 32 with every weight compressed (all_layers), or INT8_ASYM per channel.  irexec's keep-K curve
over the data set (each sample its prefill and ``--steps`` greedy decode steps, or the prefill alone) gives
at each K the best measured set of K weights to keep in float (its ignored_scope; the sets need not be
nested) and predicts the logits' error it leaves.  Each
advice is then applied as a user would: NNCF compresses A again with ``ignored_scope`` of those K layers, and
OpenVINO CPU (f32 inference, no dynamic quantization, f32 KV cache) measures the logits' rel L2 against A's
over the same steps (A's greedy tokens fed to both), the mean over the data set's samples and over
``--held-out`` other prompts.  Compared at each K:

- the data-set advice (``--inputs-dir``), and the curve's prediction for it;
- the single-sample advice (``--inputs`` the first sample, its ablation ranking, the same steps);
- NNCF's own choice of the same size (INT4 only: NNCF mixes precisions by ``ratio`` for 4-bit modes):
  ``ratio`` set to the share of parameters the advice compresses,
  ``sensitivity_metric=WEIGHT_QUANTIZATION_ERROR`` and ``backup_mode=NONE`` (the rest in float).
NNCF is needed here only; it is not a dependency of irexec or of its tests.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "diff_dataset"
CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0", "KV_CACHE_PRECISION": "f32"}
PROMPT_TOKENS = 12


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def logits_error(core, a_xml: Path, b_xml: Path, prompts: list[np.ndarray], steps: int, step_inputs) -> float:
    """Mean over the prompts of the logits' rel L2 of B against A on OpenVINO CPU, over the prefill and
    ``steps`` decode steps fed A's greedy token (as irexec's ``--steps``), each prompt from a fresh state."""
    ca, cb = (core.compile_model(str(x), "CPU", CONFIG) for x in (a_xml, b_xml))
    errors = []
    for prompt in prompts:
        ra, rb = ca.create_infer_request(), cb.create_infer_request()
        feeds, past, num, den = step_inputs(prompt, 0), 0, 0.0, 0.0
        for _ in range(steps + 1):
            want = np.asarray(ra.infer(feeds)[0], np.float64)
            got = np.asarray(rb.infer(feeds)[0], np.float64)
            num, den = num + float(np.sum((got - want) ** 2)), den + float(np.sum(want * want))
            past += feeds["input_ids"].shape[1]
            feeds = step_inputs(want[:, -1].argmax(-1)[:, None], past)
        errors.append(float(np.sqrt(num / den)))
    return float(np.mean(errors))


def weight_sizes(model) -> dict[str, int]:
    """Parameters of each weighted layer (MatMul, embedding Gather), by name."""
    sizes = {}
    for op in model.get_ops():
        port = {"MatMul": 1, "Gather": 0}.get(op.get_type_name())
        if port is not None and op.input_value(port).get_node().get_type_name() == "Constant":
            sizes[op.get_friendly_name()] = int(np.prod(op.input(port).get_partial_shape().to_shape()))
    return sizes


def run_case(label: str, a_xml: Path, samples_dir: Path, held: list[np.ndarray], compression: dict, steps: int,
             work: Path, b_xml: Path | None = None) -> None:
    import nncf
    import openvino as ov

    from irexec.api.diff.ab import diff_ab
    from irexec.api.diff.dataset import run_dataset

    llm = _module(ROOT / "examples" / "make_tiny_llm.py", "make_tiny_llm")
    core = ov.Core()
    train = [np.asarray(np.load(p)["input_ids"]) for p in sorted(samples_dir.glob("*.npz"))]
    sizes = weight_sizes(core.read_model(str(a_xml)))
    int4 = compression["mode"].name.startswith("INT4")

    def compress(name: str, **kwargs) -> Path:
        out = work / f"{name}.xml"
        ov.save_model(nncf.compress_weights(core.read_model(str(a_xml)), **{**compression, **kwargs}), out,
                      compress_to_fp16=False)
        return out

    b_xml = b_xml or compress("b")
    started = time.monotonic()
    summary = run_dataset(str(a_xml), None, str(b_xml), None, str(samples_dir), steps=steps)
    seconds = time.monotonic() - started
    ranking = summary.ranking
    curve = {c["keep"]: c["mean_rel_l2"] for c in summary.curve}
    scopes = {c["keep"]: c["ignored_scope"] for c in summary.curve}
    found_by = {c["keep"]: c["found_by"].replace("'s single-weight ranking", "") for c in summary.curve}
    first = sorted(samples_dir.glob("*.npz"))[0]
    single = [w.layer for w in diff_ab(str(a_xml), str(b_xml), None, None, str(first), 0, {}, steps).weights]
    total = sum(sizes.get(n, 0) for n in ranking)
    rows = []
    for k in range(len(ranking) + 1):
        row: dict = {"k": k, "predicted": curve.get(k)}
        for name, names in (("dataset", scopes[k]), ("single", single[:k])):
            xml = compress(f"{name}{k}", ignored_scope=nncf.IgnoredScope(names=names)) if names else b_xml
            row[name] = logits_error(core, a_xml, xml, train, steps, llm.step_inputs)
            row[name + "_held"] = logits_error(core, a_xml, xml, held, steps, llm.step_inputs)
        kept = sum(sizes.get(n, 0) for n in scopes[k])
        row["float"] = kept / total
        if int4 and 0 < k < len(ranking):
            xml = compress(f"nncf{k}", ratio=1 - kept / total, backup_mode=nncf.BackupMode.NONE,
                           sensitivity_metric=nncf.SensitivityMetric.WEIGHT_QUANTIZATION_ERROR)
            row["nncf_float"] = sum(weight_sizes(core.read_model(str(xml))).values()) / total
            row["nncf"] = logits_error(core, a_xml, xml, train, steps, llm.step_inputs)
            row["nncf_held"] = logits_error(core, a_xml, xml, held, steps, llm.step_inputs)
        rows.append(row)
    print(f"\n### {label}\n")
    print(f"{len(train)} samples, {len(held)} held-out prompts, {steps} decode step(s) each; {len(ranking)} weights; "
          f"irexec's data-set diff took {seconds:.0f} s")
    print(f"data-set ranking (the order weights first enter the best sets): {', '.join(ranking)}")
    print(f"single-sample ranking: {', '.join(single)}\n")

    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.4f}"

    print("| K | best set: change from K - 1 (found by) | float share | curve predicts | data-set advice | predicted/applied | held out "
          "| single-sample advice | held out | NNCF weight_quantization_error (float share) | held out |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        k = r["k"]
        change = " ".join([f"+{n}" for n in scopes[k] if k == 0 or n not in scopes[k - 1]] +
                          [f"−{n}" for n in (scopes[k - 1] if k else []) if n not in scopes[k]])
        ratio = r["predicted"] / r["dataset"] if r["predicted"] is not None and r["dataset"] else None
        nncf_share = f" ({r['nncf_float']:.0%})" if "nncf_float" in r else ""
        print(f"| {k} | {change or '-'} ({found_by[k]}) | {r['float']:.0%} | {f(r['predicted'])} | "
              f"{f(r['dataset'])} | {'-' if ratio is None else f'{ratio:.3f}'} | {f(r['dataset_held'])} | "
              f"{f(r['single'])} | {f(r['single_held'])} | {f(r.get('nncf'))}{nncf_share} | {f(r.get('nncf_held'))} |")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[1])
    parser.add_argument("--held-out", type=int, default=24, help="prompts not in the data set")
    parser.add_argument("--steps", type=int, default=4, help="decode steps after each prompt's prefill")
    parser.add_argument("--cases", default="all", help="comma-separated labels' first words (tiny, deeper) or indices")
    parser.add_argument("--samples", type=int, default=6,
                        help="prompts in the data set (6: the tiny model's are tests/data/diff_dataset/samples)")
    args = parser.parse_args()
    import logging

    import nncf
    import openvino as ov

    nncf.set_log_level(logging.ERROR)  # its per-compression tables would bury the results

    builder = _module(DATA / "make_llm_dataset.py", "make_llm_dataset")
    int4 = {"mode": nncf.CompressWeightsMode.INT4_ASYM, "group_size": 32, "ratio": 1.0, "all_layers": True}
    int8 = {"mode": nncf.CompressWeightsMode.INT8_ASYM}
    cpu = next((line.split(":", 1)[1].strip() for line in subprocess.run(["lscpu"], capture_output=True, text=True)
                .stdout.splitlines() if line.startswith("Model name")), platform.processor())
    print(f"host: {cpu}; python {platform.python_version()}, openvino {ov.__version__}, nncf {nncf.__version__}")
    wanted = args.cases.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tiny_held = list(np.random.default_rng(99).integers(0, 48, (args.held_out, 1, PROMPT_TOKENS)))
        llm = _module(ROOT / "examples" / "make_tiny_llm.py", "make_tiny_llm")

        def write_samples(folder: Path, prompts: np.ndarray) -> Path:
            folder.mkdir(parents=True)
            for i, prompt in enumerate(prompts):
                np.savez(folder / f"prompt{i:02d}.npz", **llm.step_inputs(prompt, 0))
            return folder

        tiny_samples = DATA / "samples" if args.samples == 6 else \
            write_samples(work / "tiny_samples", np.random.default_rng(12).integers(0, 48, (args.samples, 1, PROMPT_TOKENS)))
        deep_dir = builder.DEEPER  # f32, NNCF's int4_g32 (all layers) and int8 copies, 6 prompts: --deeper
        deep_prompts = builder.deeper_prompts(args.samples + args.held_out)
        deep_samples = deep_dir / "samples" if args.samples == builder.SAMPLES else \
            write_samples(work / "deeper_samples", deep_prompts[:args.samples])
        deep_held = list(deep_prompts[args.samples:])
        cases = [("tiny INT4_ASYM g32 (all layers), prefill only", DATA / "f32.xml", tiny_samples, tiny_held, int4, 0),
                 (f"tiny INT4_ASYM g32 (all layers), --steps {args.steps}", DATA / "f32.xml", tiny_samples,
                  tiny_held, int4, args.steps),
                 (f"tiny INT8_ASYM, --steps {args.steps}", DATA / "f32.xml", tiny_samples, tiny_held, int8,
                  args.steps),
                 (f"deeper INT4_ASYM g32 (all layers), --steps {args.steps}", deep_dir / "f32.xml",
                  deep_samples, deep_held, int4, args.steps),
                 (f"deeper INT8_ASYM, --steps {args.steps}", deep_dir / "f32.xml", deep_samples, deep_held,
                  int8, args.steps)]
        committed = {3: deep_dir / "int4_g32.xml", 4: deep_dir / "int8.xml"}  # B as NNCF made it, committed
        for i, (label, a_xml, samples, held, compression, steps) in enumerate(cases):
            if args.cases != "all" and label.split()[0] not in wanted and str(i) not in wanted:
                continue
            case_dir = work / f"case{i}"
            case_dir.mkdir()
            run_case(label, a_xml, samples, held, compression, steps, case_dir, committed.get(i))


if __name__ == "__main__":
    main()
