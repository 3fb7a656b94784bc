"""Small stateful IR models built with OpenVINO's Python API, for the state and
generation tests: a running sum in a variable (ReadValue-3/6, with and without
an initialising input) and a tiny causal LM laid out as optimum-intel exports
one (input_ids, attention_mask, position_ids, beam_idx -> logits, a K and a V
cache in variables reordered by beam_idx).

Import this only after ``pytest.importorskip("openvino")``.
"""

from __future__ import annotations

import os

import numpy as np
import openvino as ov
import openvino.opset3 as o3
import openvino.opset8 as o8
from openvino.op.util import Variable, VariableInfo


def variable(vid: str, shape: list[int], etype: ov.Type = ov.Type.f32) -> Variable:
    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape(shape), etype, vid
    return Variable(info)


def accumulator(kind: str) -> ov.Model:
    """out = state + x; state = out.  ``kind``: v6-init (ReadValue-6 starting from a
    Const of fives), v6-zeros (ReadValue-6 without an initialising input), v3
    (ReadValue-3/Assign-3 from the fives), v6-grow (state = concat(state, x) on a
    dynamic dim, starting empty)."""
    if kind == "v6-grow":
        x = o8.parameter([-1, 3], np.float32, name="x")
        var = variable("grow", [-1, 3])
        read = o8.read_value(var)
        out = o8.concat([read, x], 0)
        return ov.Model([o8.result(out)], [o8.assign(out, var)], [x], kind)
    x = o8.parameter([2, 3], np.float32, name="x")
    fives = o8.constant(np.full((2, 3), 5, np.float32))
    if kind == "v3":
        read = o3.read_value(fives, "acc")
        out = o8.add(read, x)
        return ov.Model([o8.result(out)], [o3.assign(out, "acc")], [x], kind)
    var = variable("acc", [2, 3])
    read = o8.read_value(fives, var) if kind == "v6-init" else o8.read_value(var)
    out = o8.add(read, x)
    return ov.Model([o8.result(out)], [o8.assign(out, var)], [x], kind)


def tiny_lm(vocab: int = 50, dim: int = 16, max_pos: int = 64, seed: int = 0) -> ov.Model:
    """One attention layer over a K and a V cache, tied embedding, causal mask from
    position_ids and attention_mask: the inputs and variables of an optimum-intel LM."""
    rng = np.random.default_rng(seed)
    emb = o8.constant(rng.normal(0, 1, (vocab, dim)).astype(np.float32))
    pos_table = o8.constant(rng.normal(0, 0.5, (max_pos, dim)).astype(np.float32))
    ids = o8.parameter([-1, -1], np.int64, name="input_ids")
    mask = o8.parameter([-1, -1], np.int64, name="attention_mask")
    pos = o8.parameter([-1, -1], np.int64, name="position_ids")
    beam = o8.parameter([-1], np.int32, name="beam_idx")
    for p, n in ((ids, "input_ids"), (mask, "attention_mask"), (pos, "position_ids"), (beam, "beam_idx")):
        p.output(0).get_tensor().set_names({n})
    axis0 = o8.constant(np.int64(0))
    h = o8.add(o8.gather(emb, ids, axis0), o8.gather(pos_table, pos, axis0))  # [B,T,D]
    # an empty cache of the batch's size, as optimum-intel builds it: Broadcast(0, [B, 0, D])
    batch = o8.gather(o8.shape_of(ids), o8.constant(np.int64([0])), axis0)
    empty_shape = o8.concat([batch, o8.constant(np.int64([0, dim]))], 0)
    empty = o8.broadcast(o8.constant(np.float32(0)), empty_shape)
    caches = []
    for name in ("key", "value"):
        var = variable(f"past.{name}", [-1, -1, dim])
        past = o8.gather(o8.read_value(empty, var), beam, axis0)
        w = o8.constant(rng.normal(0, 0.5, (dim, dim)).astype(np.float32))
        cur = o8.concat([past, o8.matmul(h, w, False, False)], 1)  # [B,S,D]
        caches.append((var, cur))
    (kvar, k), (vvar, v) = caches
    q = o8.matmul(h, o8.constant(rng.normal(0, 0.5, (dim, dim)).astype(np.float32)), False, False)
    scores = o8.multiply(o8.matmul(q, k, False, True), o8.constant(np.float32(1 / np.sqrt(dim))))  # [B,T,S]
    s_len = o8.gather(o8.shape_of(k), o8.constant(np.int64(1)), axis0)
    key_pos = o8.range(o8.constant(np.int64(0)), s_len, o8.constant(np.int64(1)), "i64")  # [S]
    causal = o8.less_equal(key_pos, o8.unsqueeze(pos, o8.constant(np.int64([2]))))  # [B,T,S]
    keep = o8.logical_and(causal, o8.unsqueeze(o8.convert(mask, "boolean"), o8.constant(np.int64([1]))))
    scores = o8.select(keep, scores, o8.constant(np.float32(-1e9)))
    att = o8.matmul(o8.softmax(scores, -1), v, False, False)
    out_proj = o8.constant(rng.normal(0, 1, (vocab, dim)).astype(np.float32))
    logits = o8.matmul(o8.add(att, h), out_proj, False, True)  # [B,T,V], as a tied embedding is read
    logits.output(0).get_tensor().set_names({"logits"})
    return ov.Model([o8.result(logits)], [o8.assign(k, kvar), o8.assign(v, vvar)], [ids, mask, pos, beam], "tiny_lm")


def save(model: ov.Model, folder: str | os.PathLike[str], name: str = "model") -> str:
    path = os.path.join(os.fspath(folder), f"{name}.xml")
    ov.save_model(model, path, compress_to_fp16=False)
    return path


def ov_greedy(path: str, input_ids: np.ndarray, new_tokens: int) -> np.ndarray:
    """Greedy decoding through OpenVINO CPU, as optimum-intel's generate feeds the model."""
    request = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    batch, length = input_ids.shape
    tokens = input_ids.astype(np.int64)
    feeds = {"input_ids": tokens, "attention_mask": np.ones_like(tokens),
             "position_ids": np.tile(np.arange(length, dtype=np.int64), (batch, 1)),
             "beam_idx": np.arange(batch, dtype=np.int32)}
    for _ in range(new_tokens):
        logits = request.infer(feeds)["logits"]
        nxt = logits[:, -1].argmax(-1).astype(np.int64)[:, None]
        tokens = np.concatenate([tokens, nxt], 1)
        n = tokens.shape[1]
        feeds = {"input_ids": nxt, "attention_mask": np.ones((batch, n), np.int64),
                 "position_ids": np.full((batch, 1), n - 1, np.int64), "beam_idx": np.arange(batch, dtype=np.int32)}
    return tokens
