"""How each input of a stateful LM is built for the prefill and for a decode step,
per family of model as optimum-intel exports and drives it: the one place that says so.

The prompt has L tokens in B rows; a decode step feeds the token just chosen, with n
tokens so far (prompt and new, counting that one).

| input          | prefill                                   | decode step                                  |
|----------------|-------------------------------------------|----------------------------------------------|
| input_ids      | the prompt [B, L]                         | the new token [B, 1]                         |
| inputs_embeds  | the prompt's embeddings [B, L, H] (given: | the new token's embedding [B, 1, H]          |
|                | a VLM's merge text and image features)    |                                              |
| attention_mask | ones [B, L]                               | the last mask and a column of ones [B, n];   |
|                |                                           | *ssm*: ones [B, 1]                           |
| position_ids   | the tokens attended so far, minus one     | the last positions plus one                  |
| beam_idx       | 0..B-1 (every row keeps its own cache)    | 0..B-1                                       |
| cache_position | 0..conv_kernel-1 (the whole conv state);  | [n - 1], the position of the token fed;      |
|                | *seq2seq*: 0..L-1                         | *seq2seq*: [n - 1]                           |
| encoder_hidden_states | *seq2seq*: the encoder's output    | the same array again (optimum-intel feeds it |
|                |                                           | to every step; the decoder reads it once)    |

A model takes its tokens as ``input_ids`` or, as the language model of a VLM export does,
as ``inputs_embeds``: each token's embedding, made by the export's text-embeddings model.

The families:
- **kv-cache**: a transformer keeping its keys and values in variables (no cache_position).
- **ssm**: a state-space model (Mamba, Falcon-Mamba, Zamba2): conv and SSM states in
  variables, fed cache_position; its decode step attends to the one token it is fed.
- **hybrid**: SSM and attention blocks together (LFM2, Granite-4.0, Qwen3-Next): fed
  cache_position, and its attention needs the mask of the whole context.
- **seq2seq**: the decoder of an encoder-decoder model (Whisper, ``speech.py``): its prompt is
  the decoder's start tokens, its self-attention keys and values are in variables, and the
  cross-attention's are computed from encoder_hidden_states by the prefill and kept too.

The family comes from config.json's ``model_type`` beside the model, or, without one, from
the inputs (cache_position) and the variables' names (keys and values: attention).
conv_kernel is config.json's ``conv_kernel`` (or ``mamba_d_conv``), else the last dim
of the conv-state variables, as optimum-intel reads it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ...base.errors import ModelError
from ...system.json_file import json_field, read_json_object

# model_type values whose decode step needs the attention mask of the whole context
HYBRID_MODEL_TYPES = frozenset({"lfm2", "lfm2_moe", "granitemoehybrid", "qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"})
# the inputs that carry the tokens: their ids, or their embeddings
TOKEN_INPUTS = ("input_ids", "inputs_embeds")
# the inputs a decode step can build, besides the tokens
BUILT_INPUTS = ("attention_mask", "position_ids", "beam_idx", "cache_position")
# what a seq2seq decoder step is fed besides input_ids: the encoder's output, and the built inputs
SEQ2SEQ_INPUTS = ("encoder_hidden_states", *BUILT_INPUTS)
SEQ2SEQ = "seq2seq"
_ATTENTION_STATE_WORDS = ("key", "value")


_CONV_KERNEL_KEYS = ("conv_kernel", "mamba_d_conv", "conv_L_cache")


@dataclass(frozen=True)
class Family:
    name: str  # kv-cache, ssm, hybrid or seq2seq
    conv_kernel: int | None = None  # ssm and hybrid: the length of the prefill's cache_position
    model_type: str | None = None  # config.json's, when there is one

    @property
    def mask_grows(self) -> bool:
        return self.name != "ssm"


def read_config(model_path: str, follow_symlinks: bool | None = None) -> dict[str, object]:
    """config.json beside the model (an optimum export writes one), or nothing; the keys
    irexec reads are checked to be of their type."""
    path = os.path.join(os.path.dirname(os.path.abspath(model_path)), "config.json")
    if not os.path.lexists(path):
        return {}
    config = read_json_object(path, follow_symlinks=follow_symlinks)
    json_field(config, "model_type", "a string", path)
    for key in _CONV_KERNEL_KEYS:
        json_field(config, key, "an integer", path)
    return config


def family_of(model_path: str, inputs: set[str], variables: Mapping[str, object],
              follow_symlinks: bool | None = None) -> Family:
    """The model's family: what config.json says, else what its inputs and variables show."""
    config = read_config(model_path, follow_symlinks)
    model_type = config.get("model_type") if isinstance(config.get("model_type"), str) else None
    if "cache_position" not in inputs:
        return Family("kv-cache", None, model_type)  # type: ignore[arg-type]
    if model_type is not None:
        name = "hybrid" if model_type in HYBRID_MODEL_TYPES else "ssm"
    else:
        attention = any(w in vid.lower() for vid in variables for w in _ATTENTION_STATE_WORDS)
        name = "hybrid" if attention else "ssm"
    return Family(name, _conv_kernel(model_path, config, variables), model_type)  # type: ignore[arg-type]


def _conv_kernel(model_path: str, config: Mapping[str, object], variables: Mapping[str, object]) -> int:
    for key in _CONV_KERNEL_KEYS:
        value = config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    lengths = set()
    for vid, var in variables.items():
        shape = getattr(var, "shape", None)
        if "conv" in vid.lower() and shape is not None and shape.rank is not None and shape.rank > 0:
            last = shape[shape.rank - 1]
            if last.is_static and last.value > 0:
                lengths.add(last.value)
    if len(lengths) == 1:
        return lengths.pop()
    raise ModelError("the model takes cache_position, whose prefill value spans the convolution kernel, but neither "
                     "config.json beside it (conv_kernel) nor its conv-state variables say how long that kernel is",
                     code="not-causal-lm", file=model_path)


def prefill_value(role: str, family: Family, ids: np.ndarray, given: Mapping[str, np.ndarray]) -> np.ndarray:
    """An input the prompt does not hold, as optimum-intel builds it for the prefill."""
    batch, length = ids.shape
    if role == "attention_mask":
        return np.ones((batch, length), np.int64)
    if role == "position_ids":
        mask = given.get("attention_mask")
        if mask is None:
            return np.broadcast_to(np.arange(length, dtype=np.int64), (batch, length)).copy()
        positions = np.cumsum(mask, -1, dtype=np.int64) - 1  # left padding: positions count the tokens attended
        return np.where(mask == 0, 1, positions)
    if role == "cache_position":
        if family.name == SEQ2SEQ:
            return np.arange(length, dtype=np.int64)
        assert family.conv_kernel is not None
        return np.arange(family.conv_kernel, dtype=np.int64)
    if role != "beam_idx":  # encoder_hidden_states: always given, the encoder's output
        raise ValueError(f"{role} has no prefill rule: it must be given")
    return np.arange(batch)


def token_value(role: str, ids: np.ndarray, embed: Callable[[np.ndarray], np.ndarray] | None) -> np.ndarray:
    """The tokens ``ids`` [B, n] as the input ``role`` takes them: as they are, or embedded."""
    if role == "input_ids":
        return ids
    assert embed is not None
    return embed(ids)


def decode_value(role: str, family: Family, last: np.ndarray, batch: int, tokens_so_far: int) -> np.ndarray:
    """The input ``role`` of a decode step, from its value in the call before (``last``)."""
    if role == "attention_mask":
        if not family.mask_grows:
            return np.ones((batch, 1), last.dtype)
        return np.concatenate([last, np.ones((batch, 1), last.dtype)], 1)
    if role == "position_ids":
        return last[..., -1:] + 1
    if role == "cache_position":
        return np.array([tokens_so_far - 1], last.dtype)
    if role == "encoder_hidden_states":
        return last
    return np.arange(batch)  # beam_idx


__all__ = ["BUILT_INPUTS", "SEQ2SEQ", "SEQ2SEQ_INPUTS", "TOKEN_INPUTS", "Family", "decode_value", "family_of",
           "prefill_value", "read_config", "token_value"]
