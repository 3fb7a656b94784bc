"""Writes tests/data/nncf_formats/: a small stateful f32 LLM compressed by NNCF into each weight format it writes.

`PYTHONPATH=<a folder holding nncf 3.4> python tests/data/make_nncf_formats.py` (needs openvino and nncf;
nncf is not a test dependency: the tests read the IRs written here).  Deterministic for a given NNCF.

The model has the inputs and outputs an optimum-intel decoder has (input_ids, attention_mask,
position_ids, beam_idx -> logits), keeps its KV cache in ReadValue-6/Assign-6 variables, and has
eight weighted MatMuls besides its embedding (q, k, v, o, a gated MLP, an untied output
projection). Each format folder holds model.xml and model.bin; `formats.json` lists them with the
NNCF arguments that made them and the weight chains they hold.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))  # the tiny LLM's building blocks
from make_tiny_llm import cached_attention, decoder_parameters, split_heads, step_inputs  # noqa: E402

VOCAB, HIDDEN, HEADS, INTER, MAX_POS = 48, 32, 2, 64, 32
OUT = Path(__file__).resolve().parent / "nncf_formats"

# name -> compress_weights arguments (mode, and group_size / backup_mode / all_layers where they apply)
FORMATS: dict[str, dict] = {
    "int8_sym": {"mode": "INT8_SYM"},
    "int8_asym": {"mode": "INT8_ASYM"},
    "int4_sym_g16": {"mode": "INT4_SYM", "group_size": 16, "ratio": 1.0},
    "int4_sym_g32": {"mode": "INT4_SYM", "group_size": 32, "ratio": 1.0},
    "int4_sym_channel": {"mode": "INT4_SYM", "group_size": -1, "ratio": 1.0},
    "int4_asym_g16": {"mode": "INT4_ASYM", "group_size": 16, "ratio": 1.0},
    "int4_asym_channel": {"mode": "INT4_ASYM", "group_size": -1, "ratio": 1.0},
    "int4_asym_g32_backup_int8_sym": {"mode": "INT4_ASYM", "group_size": 32, "ratio": 1.0, "backup_mode": "INT8_SYM"},
    "int4_sym_g32_backup_none": {"mode": "INT4_SYM", "group_size": 32, "ratio": 1.0, "backup_mode": "NONE"},
    "int4_asym_g32_ratio_half": {"mode": "INT4_ASYM", "group_size": 32, "ratio": 0.5},
    "int4_asym_g32_all_layers": {"mode": "INT4_ASYM", "group_size": 32, "ratio": 1.0, "all_layers": True},
    "int3_sym_g32": {"mode": "INT3_SYM", "group_size": 32, "ratio": 1.0},
    "int2_sym_g32": {"mode": "INT2_SYM", "group_size": 32, "ratio": 1.0},
    "nf4_g32": {"mode": "NF4", "group_size": 32, "ratio": 1.0},
    "nf4_g32_backup_int8_asym": {"mode": "NF4", "group_size": 32, "ratio": 1.0, "backup_mode": "INT8_ASYM"},
    "nf4_g32_all_layers": {"mode": "NF4", "group_size": 32, "ratio": 1.0, "all_layers": True},
    "mxfp4": {"mode": "MXFP4", "group_size": 32, "ratio": 1.0},
    "mxfp4_all_layers": {"mode": "MXFP4", "group_size": 32, "ratio": 1.0, "all_layers": True},
    "mxfp8_e4m3": {"mode": "MXFP8_E4M3", "group_size": 32, "ratio": 1.0},
    "fp8_e4m3": {"mode": "FP8_E4M3", "group_size": 32, "ratio": 1.0},
    "fp4": {"mode": "FP4", "group_size": 32, "ratio": 1.0},
    "nvfp4": {"mode": "NVFP4", "group_size": 16, "ratio": 1.0},
    "nvfp4_all_layers": {"mode": "NVFP4", "group_size": 16, "ratio": 1.0, "all_layers": True},
    "nvfp4_backup_fp8": {"mode": "NVFP4", "group_size": 16, "ratio": 1.0, "backup_mode": "FP8_E4M3"},
    "cb4": {"mode": "CB4", "group_size": 16, "ratio": 1.0},
    "cb4_all_layers": {"mode": "CB4", "group_size": 16, "ratio": 1.0, "all_layers": True},
    "cb4_backup_mxfp8": {"mode": "CB4", "group_size": 16, "ratio": 1.0, "backup_mode": "MXFP8_E4M3"},
    # data-aware: on a few random prompts (SAMPLES below)
    "int4_asym_g16_awq": {"mode": "INT4_ASYM", "group_size": 16, "ratio": 1.0, "awq": True},
    "int4_asym_g16_scale_estimation": {"mode": "INT4_ASYM", "group_size": 16, "ratio": 1.0, "scale_estimation": True},
    "int4_asym_g16_awq_scale_estimation": {"mode": "INT4_ASYM", "group_size": 16, "ratio": 1.0, "awq": True,
                                           "scale_estimation": True},
    "int4_sym_g16_gptq": {"mode": "INT4_SYM", "group_size": 16, "ratio": 1.0, "gptq": True},
    "int4_asym_g16_ratio_half_hessian": {"mode": "INT4_ASYM", "group_size": 16, "ratio": 0.5,
                                         "sensitivity_metric": "HESSIAN_INPUT_ACTIVATION"},
}
DATA_AWARE = ("awq", "scale_estimation", "gptq", "sensitivity_metric")
SAMPLES, SAMPLE_TOKENS = 8, 9


def build(rng: np.random.Generator):
    """The f32 model: one attention layer with a KV cache, a gated MLP, untied logits."""
    import openvino as ov
    import openvino.opset13 as op

    def const(value, dtype=None):
        return op.constant(np.asarray(value, dtype=dtype))

    def weight(rows: int, cols: int, scale: float):
        return const(rng.normal(0, scale / np.sqrt(cols), (rows, cols)), np.float32)

    def linear(t, rows: int, cols: int, scale: float = 1.0):
        return op.matmul(t, weight(rows, cols, scale), False, True)

    input_ids, attention_mask, position_ids, beam_idx = decoder_parameters(op)

    x = op.gather(const(rng.normal(0, 1.0, (VOCAB, HIDDEN)), np.float32), input_ids, const(0, np.int64))
    x = op.add(x, op.gather(const(rng.normal(0, 0.3, (MAX_POS, HIDDEN)), np.float32), position_ids, const(0, np.int64)))
    batch = op.gather(op.shape_of(input_ids), const([0], np.int64), const(0, np.int64))

    q, k, v = (split_heads(op, linear(x, HIDDEN, HIDDEN, 1.5), HEADS) for _ in range(3))
    attn, sinks = cached_attention(op, q, k, v, batch, beam_idx, position_ids, attention_mask, HEADS)
    x = op.add(x, linear(attn, HIDDEN, HIDDEN))
    gate = op.swish(linear(x, INTER, HIDDEN, 2.0))
    x = op.add(x, linear(op.multiply(gate, linear(x, INTER, HIDDEN, 2.0)), HIDDEN, INTER))
    logits = linear(x, VOCAB, HIDDEN, 3.0)
    logits.output(0).set_names({"logits"})
    return ov.Model([op.result(logits)], sinks, [input_ids, attention_mask, position_ids, beam_idx], "tiny-f32-llm")


def chains(xml: Path) -> list[str]:
    """Each distinct weight chain of the IR, as its layer types and element types."""
    import openvino as ov

    model = ov.Core().read_model(xml)
    found: set[str] = set()
    for node in model.get_ordered_ops():
        if node.get_type_name() not in ("MatMul", "Gather"):
            continue
        src = node.input_value(1 if node.get_type_name() == "MatMul" else 0).get_node()
        found.add(_describe(src))
    return sorted(s for s in found if "Parameter" not in s and s.count("(") > 1)


def _describe(node) -> str:
    kind = node.get_type_name()
    if kind == "Constant":
        return f"Const {node.get_output_element_type(0).get_type_name()}"
    if kind in ("Parameter", "ReadValue", "Result") or node.get_input_size() == 0:
        return "Parameter"
    if kind == "Convert":
        return f"Convert({_describe(node.input_value(0).get_node())} -> {node.get_output_element_type(0).get_type_name()})"
    args = [_describe(node.input_value(i).get_node()) for i in range(node.get_input_size())]
    if kind in ("Reshape", "Gather") and args[1:] and all(a.startswith("Const i") for a in args[1:] if kind == "Reshape"):
        args = args[:1] if kind == "Reshape" else args[:2]
    return f"{kind}({', '.join(args)})"


def main() -> None:
    import nncf
    import openvino as ov

    rng = np.random.default_rng(20261207)
    model = build(rng)
    prompts = np.random.default_rng(7).integers(0, VOCAB, (SAMPLES, 1, SAMPLE_TOKENS))
    dataset = nncf.Dataset([step_inputs(p, 0) for p in prompts])
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()
    listing = {}
    for name, args in FORMATS.items():
        kwargs = dict(args)
        kwargs["mode"] = getattr(nncf.CompressWeightsMode, kwargs["mode"])
        if "backup_mode" in kwargs:
            kwargs["backup_mode"] = getattr(nncf.BackupMode, kwargs["backup_mode"])
        if "sensitivity_metric" in kwargs:
            kwargs["sensitivity_metric"] = getattr(nncf.SensitivityMetric, kwargs["sensitivity_metric"])
        if any(key in kwargs for key in DATA_AWARE):
            kwargs.update(dataset=dataset, subset_size=SAMPLES)
        try:
            compressed = nncf.compress_weights(model.clone(), **kwargs)
        except Exception as e:  # a combination this NNCF refuses: said, not written
            print(f"{name}: NNCF refuses {args}: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        folder = OUT / name
        folder.mkdir()
        ov.save_model(compressed, folder / "model.xml", compress_to_fp16=False)
        listing[name] = {"nncf": {k: v for k, v in args.items()}, "chains": chains(folder / "model.xml")}
    prompt = rng.integers(0, VOCAB, (1, 7)).astype(np.int64)
    np.savez(OUT / "prompt.npz", input_ids=prompt)
    (OUT / "formats.json").write_text(json.dumps({"nncf": nncf.__version__, "formats": listing}, indent=1) + "\n")
    print(f"wrote {len(listing)} formats to {OUT}")


if __name__ == "__main__":
    main()
