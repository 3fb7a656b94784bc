"""Greedy decoding with a stateful LM as optimum-intel exports it.

The model reads ``input_ids`` (or, given a way to embed tokens, ``inputs_embeds``:
the language model of a VLM export) and, if it has them, ``attention_mask``,
``position_ids``, ``beam_idx`` and ``cache_position`` (built as
``decode_inputs`` says for its family: a KV-cache transformer, an SSM or a
hybrid); it keeps its cache in variables and gives ``logits`` [batch, tokens,
vocabulary].  From a reset state the prompt
is run once (the prefill); the first new token is the argmax of the logits at
its last position, and each later one the argmax of a decode step fed the
token before it.  A reference for checking, not a serving engine: greedy only,
no sampling, no tokenizer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...base.errors import ERROR, Diagnostic, InputError, ModelError, UsageError
from ...ir.records import Layer
from ..session import Session
from .decode_inputs import BUILT_INPUTS, TOKEN_INPUTS, Family, family_of, prefill_value, token_value
from .step_feeds import StepFeeds

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

# The inputs an optimum-intel causal LM may have besides input_ids, all built for a decode step.
OPTIONAL_INPUTS = BUILT_INPUTS


@dataclass
class GenerateResult:
    tokens: np.ndarray  # int64 [batch, prompt + new]
    prompt_length: int
    # wall time of each model call in seconds: the prefill, then one decode step per further token
    latencies: list[float] = field(default_factory=list)
    stopped_by_eos: bool = False

    @property
    def new_tokens(self) -> np.ndarray:
        return self.tokens[:, self.prompt_length:]


@dataclass(frozen=True)
class CausalLM:
    """How a model's inputs and output are found: Parameter layers by role, the logits' key."""

    inputs: dict[str, Layer]  # role -> Parameter (the tokens' input and whichever optional inputs it has)
    logits: str
    family: Family

    @property
    def token_input(self) -> str:
        return "input_ids" if "input_ids" in self.inputs else "inputs_embeds"


def causal_lm(session: Session, embeds: bool = False) -> CausalLM:
    """The model's causal-LM interface, or ``not-causal-lm`` saying what is missing.  With
    ``embeds``, the tokens may come as ``inputs_embeds`` instead of ``input_ids``."""
    model = session.model
    missing: list[str] = []
    if not model.variables:
        missing.append("no ReadValue/Assign variables (a stateful model keeps its KV cache in them)")
    by_name: dict[str, Layer] = {}
    for p in model.parameters:
        for name in (p.name, *(n for port in p.outputs for n in port.names)):
            by_name.setdefault(name, p)
    roles: dict[str, Layer] = {}
    tokens = TOKEN_INPUTS if embeds else TOKEN_INPUTS[:1]
    for role in (*tokens, *OPTIONAL_INPUTS):
        if role in by_name:
            roles[role] = by_name[role]
    if not any(role in roles for role in tokens):
        missing.append(f"no {' or '.join(tokens)} input")
    others = [p.name for p in model.parameters if p not in roles.values()]
    if others:
        missing.append(f"input{'s' if len(others) > 1 else ''} {', '.join(map(repr, others))} that a decode step "
                       f"cannot build (it builds {', '.join(OPTIONAL_INPUTS)})")
    outputs = session.output_names
    logits = "logits" if "logits" in outputs else (outputs[0] if len(outputs) == 1 else None)
    if logits is None:
        missing.append(f"no logits output (outputs: {', '.join(map(repr, outputs))})")
    if missing:
        raise ModelError(f"not a stateful causal LM as optimum-intel exports one: {'; '.join(missing)}",
                         code="not-causal-lm", file=model.path)
    assert logits is not None
    return CausalLM(roles, logits, family_of(model.path, set(roles), model.variables,
                                             session.follow_symlinks))


def generate(session: Session, prompt: Mapping[str, np.ndarray], max_new_tokens: int, *,
             eos_token_id: int | Sequence[int] | None = None, on_token: Callable[[int, np.ndarray, float], None] | None = None,
             embed: Callable[[np.ndarray], np.ndarray] | None = None) -> GenerateResult:
    """Greedy decoding from a reset state.  ``prompt`` holds ``input_ids`` [batch, tokens]
    and may hold the model's other prefill inputs (used as given); the others, and every
    input of a decode step, are built as ``decode_inputs`` says for the model's family.
    ``embed`` maps token ids [batch, n] to their embeddings [batch, n, hidden], for a model
    fed ``inputs_embeds``: a prompt's ``inputs_embeds`` (a VLM's text and image features
    merged) is used as given, every decode step's new token is embedded by it.  With ``eos_token_id``, a row that has
    produced it (or any of several) is filled with it (the first), and decoding stops once every row has.  ``on_token`` is
    called after each model call with (call index, new token ids [batch], seconds)."""
    eos_ids = [] if eos_token_id is None else [eos_token_id] if isinstance(eos_token_id, int) else list(eos_token_id)
    for eid in eos_ids:
        if not _INT64_MIN <= eid <= _INT64_MAX:
            raise UsageError(f"the end-of-sequence token id {eid} is not an int64 token id", code="bad-token-id",
                             file=session.model.path)
    lm = causal_lm(session, embeds=embed is not None)
    eos = None if eos_token_id is None else np.atleast_1d(np.asarray(eos_token_id, np.int64))
    if eos is not None and not eos.size:
        eos = None
    names = {n for p in lm.inputs.values() for port in p.outputs for n in port.names}
    unknown = sorted(set(prompt) - set(lm.inputs) - {"input_ids"} - names)
    if unknown:
        raise InputError(f"prompt holds {', '.join(map(repr, unknown))}, which the model has no input for "
                         f"(inputs: {', '.join(map(repr, lm.inputs))})", code="input-mismatch", file=session.model.path)
    ids = np.asarray(prompt["input_ids"]) if "input_ids" in prompt else None
    if ids is None or ids.ndim != 2 or ids.shape[1] == 0 or ids.dtype.kind not in "iu":
        got = "nothing" if ids is None else f"{ids.dtype}{list(ids.shape)}"
        raise InputError(f"the prompt's input_ids must be integers [batch, tokens] with at least one token, got {got}",
                         code="input-mismatch", file=session.model.path)
    batch = ids.shape[0]
    feeds = {role: np.asarray(prompt[role]) for role in lm.inputs if role in prompt}  # as given: checked by the run
    mask, positions = feeds.get("attention_mask"), feeds.get("position_ids")
    # the decode steps extend these: a mask gets a column per row, positions their last one plus one
    if mask is not None and (mask.ndim != 2 or mask.shape[0] != batch or mask.dtype.kind not in "biu"):
        raise InputError(f"the prompt's attention_mask is {mask.dtype}{list(mask.shape)}; it must be integers [batch={batch}, "
                         f"tokens] as input_ids {list(ids.shape)}", code="input-mismatch", file=session.model.path)
    embeds = feeds.get("inputs_embeds")
    if embeds is not None and (embeds.ndim != 3 or embeds.shape[:2] != ids.shape):
        raise InputError(f"the prompt's inputs_embeds is {embeds.dtype}{list(embeds.shape)}; it must be [batch={batch}, "
                         f"tokens={ids.shape[1]}, hidden], an embedding per token of input_ids", code="input-mismatch",
                         file=session.model.path)
    if positions is not None and positions.ndim == 0:
        raise InputError("the prompt's position_ids is a scalar; it must hold a position per token (its last axis)",
                         code="input-mismatch", file=session.model.path)
    feeds.update({role: _as_input(session, layer, token_value(role, ids, embed) if role in TOKEN_INPUTS
                                  else prefill_value(role, lm.family, ids, feeds))
                  for role, layer in lm.inputs.items() if role not in feeds})
    # every token of the generation in one array, a column written per step
    tokens = np.empty((batch, ids.shape[1] + max(max_new_tokens, 0)), np.int64)
    tokens[:, :ids.shape[1]] = ids.astype(np.int64)
    length = ids.shape[1]
    finished = np.zeros(batch, bool)
    latencies: list[float] = []
    token = lm.token_input
    built = StepFeeds([role for role in lm.inputs if role not in TOKEN_INPUTS], lm.family, batch, ids.shape[1],
                      max_new_tokens - 1, lambda role, value: _as_input(session, lm.inputs[role], value))
    session.reset_state()
    for step in range(max_new_tokens):
        start = time.perf_counter()
        logits = session.run(feeds, last_position=lm.logits).outputs[lm.logits]
        seconds = time.perf_counter() - start
        latencies.append(seconds)
        if logits.ndim != 3 or logits.shape[0] != batch:
            raise ModelError(f"logits have shape {list(logits.shape)}; a causal LM gives [batch={batch}, tokens, vocabulary]",
                             code="not-causal-lm", file=session.model.path)
        if logits.shape[1] == 0 or logits.shape[2] == 0:
            raise ModelError(f"logits have shape {list(logits.shape)}, with no {'token' if logits.shape[1] == 0 else 'vocabulary'}"
                             " to choose the next token from", code="not-causal-lm", file=session.model.path)
        new = logits[:, -1].argmax(-1).astype(np.int64)
        if eos is not None:
            new[finished] = eos[0]
            finished |= np.isin(new, eos)
        tokens[:, length] = new
        length += 1
        if on_token is not None:
            on_token(step, new, seconds)
        if step + 1 == max_new_tokens or (eos is not None and finished.all()):
            break
        feeds = {token: _as_input(session, lm.inputs[token], token_value(token, new[:, None], embed)),
                 **built.feeds(step + 1, feeds)}
    return GenerateResult(tokens[:, :length].copy(), ids.shape[1], latencies, eos is not None and bool(finished.all()))


def _as_input(session: Session, layer: Layer, value: np.ndarray | None) -> np.ndarray:
    """``value`` in the Parameter's integer type, or embeddings in its float type (a built
    input; a given one must already be)."""
    assert value is not None
    arr = np.asarray(value)
    op = session.model.ops[layer.id]
    dtype = getattr(getattr(op, "element_type", None), "dtype", None)
    if dtype is None or arr.dtype == dtype:
        return arr
    if np.issubdtype(dtype, np.floating) and arr.dtype.kind == "f":
        return arr.astype(dtype)
    if not np.issubdtype(dtype, np.integer) or arr.dtype.kind not in "iu":
        raise InputError([Diagnostic("input-mismatch", f"{layer.name} is {op.element_type.name}; "  # type: ignore[union-attr]
                                     "generate builds integer token ids, masks and positions", ERROR,
                                     **session.model.where(layer))])
    return arr.astype(dtype)


__all__ = ["CausalLM", "GenerateResult", "causal_lm", "generate"]
