"""Writes examples/tiny-llm/: a small stateful causal LM shaped as optimum-intel exports one.

`python examples/make_tiny_llm.py` (needs openvino; deterministic: the same files every time).

The model has the inputs and outputs an optimum-intel decoder has (input_ids, attention_mask,
position_ids, beam_idx -> logits), keeps its KV cache in ReadValue-6/Assign-6 variables that
beam_idx reorders, and carries NNCF-style compressed weights: a u8 embedding with a zero point
and an f16 scale per row (shared with the output projection, as tied embeddings are), and u4
attention weights with a u4 zero point and an f16 scale per group of 8 columns. One attention
layer with two heads, a residual, and logits over a 48-token vocabulary.

The expected files are OpenVINO CPU's results with f32 inference precision: two recorded steps
(a prefill of the prompt, then one decode token on the state the prefill left) and the prompt
followed by 8 greedy tokens.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

VOCAB, HIDDEN, HEADS, GROUP, MAX_POS, NEW_TOKENS = 48, 16, 2, 8, 64, 8
OUT = Path(__file__).resolve().parent / "tiny-llm"
CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0", "KV_CACHE_PRECISION": "f32"}


def build(rng: np.random.Generator):
    import openvino as ov
    import openvino.opset13 as op

    def const(value, dtype=None):
        return op.constant(np.asarray(value, dtype=dtype))

    def u8_rows(weight):  # per-row asymmetric u8, as NNCF's INT8_ASYM
        lo, hi = weight.min(1, keepdims=True), weight.max(1, keepdims=True)
        scale = ((hi - lo) / 255).astype(np.float16)
        zp = np.clip(np.round(-lo / scale.astype(np.float32)), 0, 255).astype(np.uint8)
        q = np.clip(np.round(weight / scale.astype(np.float32)) + zp, 0, 255).astype(np.uint8)
        w = op.convert(const(q), "f16")
        w = op.multiply(op.subtract(w, op.convert(const(zp), "f16")), const(scale))
        return op.convert(w, "f32")

    def u4_groups(weight):  # [out, in] in groups of GROUP columns, u4 with a u4 zero point
        out, inp = weight.shape
        g = weight.reshape(out, inp // GROUP, GROUP)
        lo, hi = g.min(2, keepdims=True), g.max(2, keepdims=True)
        scale = ((hi - lo) / 15).astype(np.float16)
        zp = np.clip(np.round(-lo / scale.astype(np.float32)), 0, 15).astype(np.uint8)
        q = np.clip(np.round(g / scale.astype(np.float32)) + zp, 0, 15).astype(np.uint8)
        w = op.convert(op.constant(_u4(ov, q)), "f16")
        w = op.multiply(op.subtract(w, op.convert(op.constant(_u4(ov, zp)), "f16")), const(scale))
        w = op.reshape(w, const([out, inp], np.int64), False)
        return op.convert(w, "f32")

    input_ids, attention_mask, position_ids, beam_idx = decoder_parameters(op)

    embedding = u8_rows(rng.normal(0, 1.0, (VOCAB, HIDDEN)).astype(np.float32))
    x = op.gather(embedding, input_ids, const(0, np.int64))
    x = op.add(x, op.gather(const(rng.normal(0, 0.5, (MAX_POS, HIDDEN)), np.float32), position_ids, const(0, np.int64)))
    batch = op.gather(op.shape_of(input_ids), const([0], np.int64), const(0, np.int64))

    def project(t, scale):
        return op.matmul(t, u4_groups(rng.normal(0, scale, (HIDDEN, HIDDEN)).astype(np.float32)), False, True)

    q, k, v = (split_heads(op, project(x, 0.6), HEADS) for _ in range(3))
    attn, sinks = cached_attention(op, q, k, v, batch, beam_idx, position_ids, attention_mask, HEADS)
    # no residual from the token itself: with tied embeddings it would make every token predict itself
    x = op.matmul(attn, const(rng.normal(0, 0.6, (HIDDEN, HIDDEN)), np.float32), False, False)
    logits = op.matmul(x, embedding, False, True)
    logits.output(0).set_names({"logits"})
    result = op.result(logits)
    return ov.Model([result], sinks, [input_ids, attention_mask, position_ids, beam_idx], "tiny-llm")


def decoder_parameters(op):
    """input_ids, attention_mask, position_ids and beam_idx, each with its name as its tensor name."""
    input_ids = op.parameter([-1, -1], np.int64, name="input_ids")
    attention_mask = op.parameter([-1, -1], np.int64, name="attention_mask")
    position_ids = op.parameter([-1, -1], np.int64, name="position_ids")
    beam_idx = op.parameter([-1], np.int32, name="beam_idx")
    for p in (input_ids, attention_mask, position_ids, beam_idx):
        p.output(0).set_names({p.get_friendly_name()})
    return input_ids, attention_mask, position_ids, beam_idx


def split_heads(op, t, heads: int):
    """[B, T, H] -> [B, heads, T, H // heads] (H known)."""
    head = t.get_output_partial_shape(0)[2].get_length() // heads
    t = op.reshape(t, op.constant(np.asarray([0, 0, heads, head], np.int64)), True)
    return op.transpose(t, op.constant(np.asarray([0, 2, 1, 3], np.int64)))


def cached_attention(op, q, k, v, batch, beam_idx, position_ids, attention_mask, heads: int, layer: int = 0):
    """Attention of q ([B, heads, T, head]) over the KV cache with k and v appended: each cache a
    ReadValue-6 variable (named as optimum-intel names them) that beam_idx reorders and an Assign-6
    sink; causal by position_ids, padding by attention_mask.  ([B, T, heads * head], the sinks).
    ``layer``: the decoder layer's index in the variables' names."""
    import openvino as ov
    from openvino.op.util import Variable, VariableInfo

    def const(value, dtype=None):
        return op.constant(np.asarray(value, dtype=dtype))

    head = q.get_output_partial_shape(0)[3].get_length()
    sinks, caches = [], {}
    for name, new in (("key", k), ("value", v)):
        info = VariableInfo()
        info.variable_id = f"past_key_values.{layer}.{name}present.{layer}.{name}"
        info.data_shape = ov.PartialShape([-1, heads, -1, head])
        info.data_type = ov.Type.f32
        variable = Variable(info)
        init = op.broadcast(const(0.0, np.float32), op.concat([batch, const([heads, 0, head], np.int64)], 0))
        past = op.gather(op.read_value(init, variable), beam_idx, const(0, np.int64))
        caches[name] = op.concat([past, new], 2)
        sinks.append(ov.op.assign(caches[name], variable))

    total = op.gather(op.shape_of(caches["key"]), const([2], np.int64), const(0, np.int64))
    key_pos = op.range(const(0, np.int64), op.squeeze(total, const(0, np.int64)), const(1, np.int64), "i64")
    causal = op.less_equal(op.unsqueeze(key_pos, const([0, 1, 2], np.int64)), op.unsqueeze(position_ids, const([1, 3], np.int64)))
    padding = op.unsqueeze(op.convert(attention_mask, "boolean"), const([1, 2], np.int64))
    mask = op.logical_and(causal, padding)
    attn = op.scaled_dot_product_attention(q, caches["key"], caches["value"], mask)
    attn = op.reshape(op.transpose(attn, const([0, 2, 1, 3], np.int64)), const([0, 0, heads * head], np.int64), True)
    return attn, sinks


def _u4(ov, values: np.ndarray):
    """A u4 Constant from unpacked values 0..15 (packed two to a byte, low nibble first)."""
    flat = values.reshape(-1).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, 0)
    packed = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)
    tensor = ov.Tensor(ov.Type.u4, ov.Shape(list(values.shape)))
    tensor.data[:] = packed  # OpenVINO exposes a u4 tensor as its packed bytes
    return tensor


def step_inputs(ids: np.ndarray, past: int) -> dict[str, np.ndarray]:
    batch, new = ids.shape
    return {"input_ids": ids.astype(np.int64), "attention_mask": np.ones((batch, past + new), np.int64),
            "position_ids": np.broadcast_to(np.arange(past, past + new, dtype=np.int64), (batch, new)).copy(),
            "beam_idx": np.arange(batch, dtype=np.int32)}


def main() -> None:
    import openvino as ov

    rng = np.random.default_rng(20261126)
    model = build(rng)
    OUT.mkdir(exist_ok=True)
    ov.save_model(model, OUT / "model.xml", compress_to_fp16=False)
    compiled = ov.Core().compile_model(OUT / "model.xml", "CPU", CONFIG)
    request = compiled.create_infer_request()

    prompt = rng.integers(3, VOCAB, (1, 6)).astype(np.int64)
    np.savez(OUT / "prompt.npz", input_ids=prompt)
    request.reset_state()
    step0 = step_inputs(prompt, 0)
    logits0 = request.infer(step0)["logits"].copy()
    first = logits0[:, -1].argmax(-1)[:, None]
    step1 = step_inputs(first, prompt.shape[1])
    logits1 = request.infer(step1)["logits"].copy()
    np.savez(OUT / "inputs_step0.npz", **step0)
    np.savez(OUT / "expected_step0.npz", logits=logits0)
    np.savez(OUT / "inputs_step1.npz", **step1)
    np.savez(OUT / "expected_step1.npz", logits=logits1)

    request.reset_state()
    tokens = prompt
    logits = request.infer(step_inputs(prompt, 0))["logits"]
    for _ in range(NEW_TOKENS):
        token = logits[:, -1].argmax(-1)[:, None].astype(np.int64)
        tokens = np.concatenate([tokens, token], 1)
        if tokens.shape[1] - prompt.shape[1] == NEW_TOKENS:
            break
        logits = request.infer(step_inputs(token, tokens.shape[1] - 1))["logits"]
    np.save(OUT / "greedy_tokens.npy", tokens)
    print(f"wrote {OUT}: tokens {tokens.tolist()}")


if __name__ == "__main__":
    main()
