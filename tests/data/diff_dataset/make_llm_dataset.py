"""Writes tests/data/diff_dataset/: a small stateful f32 LLM, its NNCF compressions and a data set.

`PYTHONPATH=<a folder holding nncf 3.4> python tests/data/diff_dataset/make_llm_dataset.py [--deeper]` (needs
openvino and nncf; nncf is not a test dependency: the tests and benchmarks/bench_diff_advice.py read what it writes).

The model is the one tests/data/make_nncf_formats.py builds (one attention layer with a KV cache, a gated
MLP, untied logits), saved in f32 as f32.xml, and compressed by NNCF from that same in-memory model, so
layer names agree: int4_g32 (INT4_ASYM, groups of 32; NNCF keeps the embedding and the logits in INT8),
int8 (INT8_ASYM per channel) and nf4_g32 (NF4, groups of 32).  samples/ holds prefills of a few random
prompts (input_ids, attention_mask, position_ids, beam_idx), one .npz each.  Deterministic for a given NNCF.

With ``--deeper`` it writes deeper/ instead: the 4-layer model of ``build_llm`` (31 weights) in f32, NNCF's
int4_g32 (INT4_ASYM, groups of 32, every weight: ``all_layers``) and int8 (INT8_ASYM) copies of it, compressed
from the saved f32 model as the benchmark compresses it again, and its 6 prompts in deeper/samples/ (the first 6
of the benchmark's prompts; the others are its held-out ones).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent
FORMATS = {"int4_g32": {"mode": "INT4_ASYM", "group_size": 32, "ratio": 1.0},
           "int8": {"mode": "INT8_ASYM"},
           "nf4_g32": {"mode": "NF4", "group_size": 32, "ratio": 1.0}}
SAMPLES, TOKENS = 6, 12
DEEPER = OUT / "deeper"
DEEPER_SEED, DEEPER_PROMPT_SEED, DEEPER_VOCAB = 20261207, 11, 256
DEEPER_FORMATS = {"int4_g32": {"mode": "INT4_ASYM", "group_size": 32, "ratio": 1.0, "all_layers": True},
                  "int8": {"mode": "INT8_ASYM"}}


def deeper_prompts(count: int) -> np.ndarray:
    """The deeper model's prompts: the first SAMPLES are its data set, the rest held out (the benchmark's)."""
    return np.random.default_rng(DEEPER_PROMPT_SEED).integers(0, DEEPER_VOCAB, (count, 1, TOKENS))


def _builder():
    spec = importlib.util.spec_from_file_location("make_nncf_formats", OUT.parent / "make_nncf_formats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_llm(rng: np.random.Generator, layers: int = 4, hidden: int = 64, heads: int = 4, inter: int = 128,
              vocab: int = 256, max_pos: int = 64, qk: float = 1.0, mlp: float = 0.7):
    """A deeper f32 LLM of the same blocks (benchmarks/bench_diff_advice.py makes it in a temporary folder):
    ``layers`` decoder layers, each attention with its own KV cache and a gated MLP, with residuals, and untied
    logits; 7 weighted MatMuls a layer besides the token and position embeddings and the logits.  ``qk`` and
    ``mlp`` scale the query/key and the gated MLP's weights: with no normalisation, larger ones make the
    stack chaotic (INT4's logits error beyond 1 at qk 1.5, mlp 2.0; about 0.27 at these defaults)."""
    import openvino as ov
    import openvino.opset13 as op

    _builder()  # puts examples/ on the path
    import make_tiny_llm as llm

    def const(value, dtype=None):
        return op.constant(np.asarray(value, dtype=dtype))

    def linear(t, rows: int, cols: int, scale: float = 1.0):
        return op.matmul(t, const(rng.normal(0, scale / np.sqrt(cols), (rows, cols)), np.float32), False, True)

    input_ids, attention_mask, position_ids, beam_idx = llm.decoder_parameters(op)
    x = op.gather(const(rng.normal(0, 1.0, (vocab, hidden)), np.float32), input_ids, const(0, np.int64))
    x = op.add(x, op.gather(const(rng.normal(0, 0.3, (max_pos, hidden)), np.float32), position_ids,
                            const(0, np.int64)))
    batch = op.gather(op.shape_of(input_ids), const([0], np.int64), const(0, np.int64))
    sinks = []
    for i in range(layers):
        q, k, v = (llm.split_heads(op, linear(x, hidden, hidden, scale), heads) for scale in (qk, qk, 1.0))
        attn, kv = llm.cached_attention(op, q, k, v, batch, beam_idx, position_ids, attention_mask, heads, layer=i)
        sinks += kv
        x = op.add(x, linear(attn, hidden, hidden, 0.7))
        gate = op.swish(linear(x, inter, hidden, mlp))
        x = op.add(x, linear(op.multiply(gate, linear(x, inter, hidden, mlp)), hidden, inter, 0.7))
    logits = linear(x, vocab, hidden, 3.0)
    logits.output(0).set_names({"logits"})
    return ov.Model([op.result(logits)], sinks, [input_ids, attention_mask, position_ids, beam_idx], "deeper-f32-llm")


def write_deeper() -> None:
    import nncf
    import openvino as ov

    formats = _builder()
    if DEEPER.exists():
        shutil.rmtree(DEEPER)
    (DEEPER / "samples").mkdir(parents=True)
    ov.save_model(build_llm(np.random.default_rng(DEEPER_SEED)), DEEPER / "f32.xml", compress_to_fp16=False)
    core = ov.Core()
    for name, args in DEEPER_FORMATS.items():
        kwargs = dict(args, mode=getattr(nncf.CompressWeightsMode, args["mode"]))
        ov.save_model(nncf.compress_weights(core.read_model(str(DEEPER / "f32.xml")), **kwargs), DEEPER / f"{name}.xml",
                      compress_to_fp16=False)
    for i, prompt in enumerate(deeper_prompts(SAMPLES)):
        np.savez(DEEPER / "samples" / f"prompt{i:02d}.npz", **formats.step_inputs(prompt, 0))
    (DEEPER / "formats.json").write_text(json.dumps({"nncf": nncf.__version__, "formats": DEEPER_FORMATS}, indent=1)
                                         + "\n")
    print(f"wrote the deeper f32 model, {', '.join(DEEPER_FORMATS)} and {SAMPLES} samples to {DEEPER}")


def main() -> None:
    import sys

    import nncf
    import openvino as ov

    if sys.argv[1:] == ["--deeper"]:
        write_deeper()
        return

    formats = _builder()
    model = formats.build(np.random.default_rng(20261207))
    for name in ("f32", *FORMATS):
        for ext in (".xml", ".bin"):
            (OUT / f"{name}{ext}").unlink(missing_ok=True)
    ov.save_model(model, OUT / "f32.xml", compress_to_fp16=False)
    for name, args in FORMATS.items():
        kwargs = dict(args, mode=getattr(nncf.CompressWeightsMode, args["mode"]))
        ov.save_model(nncf.compress_weights(model.clone(), **kwargs), OUT / f"{name}.xml", compress_to_fp16=False)
    samples = OUT / "samples"
    if samples.exists():
        shutil.rmtree(samples)
    samples.mkdir()
    prompts = np.random.default_rng(11).integers(0, formats.VOCAB, (SAMPLES, 1, TOKENS))
    for i, prompt in enumerate(prompts):
        np.savez(samples / f"prompt{i}.npz", **formats.step_inputs(prompt, 0))
    (OUT / "formats.json").write_text(json.dumps({"nncf": nncf.__version__, "formats": FORMATS}, indent=1) + "\n")
    print(f"wrote f32, {', '.join(FORMATS)} and {SAMPLES} samples to {OUT}")


if __name__ == "__main__":
    main()
