#!/usr/bin/env python
"""Does the data-set advice of ``irexec diff A.xml B.xml --inputs-dir DIR`` hold when applied?

    PYTHONPATH=<a folder holding nncf 3.4>:$PWD python benchmarks/bench_diff_advice.py [--held-out 24]

A is the tiny stateful f32 LLM of tests/data/diff_dataset (make_llm_dataset.py); B is A compressed
by NNCF to INT4_ASYM in groups of 32, every weight (all_layers, so the embedding and the logits too).
irexec ranks B's weights over the data set (tests/data/diff_dataset/samples) and predicts, with its
keep-K curve, the logits' error of keeping the top K in float.  Each advice is then applied as a user
would: NNCF compresses A again with ``ignored_scope`` of those K layers, and OpenVINO CPU (f32
inference, no dynamic quantization, f32 KV cache) measures the logits' rel L2 against A's, the mean over
the data set's samples and over ``--held-out`` other prompts.  Compared at each K:

- the data-set advice (``--inputs-dir``), and the curve's prediction for it;
- the single-sample advice (``--inputs`` the first sample, its ablation ranking);
- NNCF's own choice of the same size: ``ratio`` set to the share of parameters the advice compresses,
  ``sensitivity_metric=WEIGHT_QUANTIZATION_ERROR`` and ``backup_mode=NONE`` (the rest in float).
NNCF is needed here only; it is not a dependency of irexec or of its tests.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "diff_dataset"
CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0", "KV_CACHE_PRECISION": "f32"}


def logits_error(core, a_xml: Path, b_xml: Path, samples: list[dict[str, np.ndarray]]) -> float:
    """Mean over the samples of the logits' rel L2 of B against A on OpenVINO CPU, each from a fresh state."""
    ca, cb = (core.compile_model(str(x), "CPU", CONFIG) for x in (a_xml, b_xml))
    errors = []
    for feeds in samples:
        want = np.asarray(ca.create_infer_request().infer(feeds)[0], np.float64)
        got = np.asarray(cb.create_infer_request().infer(feeds)[0], np.float64)
        errors.append(float(np.linalg.norm(got - want) / np.linalg.norm(want)))
    return float(np.mean(errors))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--held-out", type=int, default=24, help="prompts not in the data set")
    args = parser.parse_args()
    import nncf
    import openvino as ov

    from irexec.api.diff.ab import diff_ab
    from irexec.api.diff.dataset import run_dataset

    spec = __import__("importlib.util").util.spec_from_file_location("m", DATA.parent / "make_nncf_formats.py")
    formats = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(formats)
    core = ov.Core()
    a_xml = DATA / "f32.xml"
    sample_paths = sorted((DATA / "samples").glob("*.npz"))
    train = [dict(np.load(p)) for p in sample_paths]
    prompts = np.random.default_rng(99).integers(0, formats.VOCAB, (args.held_out, 1, 12))
    held = [formats.step_inputs(p, 0) for p in prompts]
    model = core.read_model(str(a_xml))
    base = {"mode": nncf.CompressWeightsMode.INT4_ASYM, "group_size": 32, "ratio": 1.0, "all_layers": True}
    sizes = {}  # parameters of each weighted layer, by name
    for op in model.get_ops():
        port = {"MatMul": 1, "Gather": 0}.get(op.get_type_name())
        if port is not None and op.input_value(port).get_node().get_type_name() == "Constant":
            sizes[op.get_friendly_name()] = int(np.prod(op.input(port).get_partial_shape().to_shape()))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)

        def compress(name: str, **kwargs) -> Path:
            out = work / f"{name}.xml"
            ov.save_model(nncf.compress_weights(core.read_model(str(a_xml)), **{**base, **kwargs}), out,
                          compress_to_fp16=False)
            return out

        b_xml = compress("b")
        summary = run_dataset(str(a_xml), None, str(b_xml), None, str(DATA / "samples"))
        ranking = summary.ranking
        curve = {c["keep"]: c["mean_rel_l2"] for c in summary.curve}
        single = [w.layer for w in diff_ab(str(a_xml), str(b_xml), None, None, str(sample_paths[0]), 0, {}, 0).weights]
        total = sum(sizes.get(n, 0) for n in ranking)
        rows = []
        for k in range(len(ranking) + 1):
            scope = ranking[:k]
            row = {"k": k, "predicted": curve.get(k)}
            for label, names in (("dataset", scope), ("single", single[:k])):
                xml = compress(f"{label}{k}", ignored_scope=nncf.IgnoredScope(names=names)) if names else b_xml
                row[label] = logits_error(core, a_xml, xml, train)
                row[label + "_held"] = logits_error(core, a_xml, xml, held)
            kept = sum(sizes.get(n, 0) for n in scope)
            if 0 < k < len(ranking):
                xml = compress(f"nncf{k}", ratio=1 - kept / total, backup_mode=nncf.BackupMode.NONE,
                               sensitivity_metric=nncf.SensitivityMetric.WEIGHT_QUANTIZATION_ERROR)
                row["nncf"], row["nncf_held"] = logits_error(core, a_xml, xml, train), logits_error(core, a_xml, xml, held)
            rows.append(row)
    cpu = next((line.split(":", 1)[1].strip() for line in subprocess.run(["lscpu"], capture_output=True, text=True)
                .stdout.splitlines() if line.startswith("Model name")), platform.processor())
    print(f"host: {cpu}; python {platform.python_version()}, openvino {ov.__version__}, nncf {nncf.__version__}")
    print(f"data set: {len(train)} samples; held out: {len(held)} prompts; ranking: {', '.join(ranking)}")
    print(f"single-sample ranking: {', '.join(single)}")

    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.4f}"

    print("| K | kept (data-set ranking) | curve predicts | data-set advice | ratio | held out | single-sample advice "
          "| held out | NNCF weight_quantization_error | held out |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = r["predicted"] / r["dataset"] if r["predicted"] and r["dataset"] else None
        print(f"| {r['k']} | {ranking[r['k'] - 1] if r['k'] else '-'} | {f(r['predicted'])} | {f(r['dataset'])} | "
              f"{'-' if ratio is None else f'{ratio:.3f}'} | {f(r['dataset_held'])} | {f(r['single'])} | "
              f"{f(r['single_held'])} | {f(r.get('nncf'))} | {f(r.get('nncf_held'))} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
