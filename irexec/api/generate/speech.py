"""Greedy transcription with a Whisper export folder, as optimum-intel's
``OVModelForSpeechSeq2Seq.generate`` does it (transformers' Whisper ``generate``, short form).

The encoder runs once on the log-mel features [batch, mel bins, frames].  With ``lang_to_id``
and no language set, a decoder call on the start token alone detects each row's language
(``whisper_folder`` says how the start tokens are chosen).  From a reset state the decoder
then runs the start tokens (the prefill) and one token per step, every input built as
``decode_inputs`` says for the *seq2seq* family; each new token is the argmax of the last
logits after the logits processors transformers adds for greedy Whisper decoding:
``suppress_tokens`` at every step and ``begin_suppress_tokens`` at the first new token (set to
-inf).  A row that has produced an end id is filled with ``pad_token_id`` (else the first end
id); decoding stops once every row has, or after ``max_new_tokens``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...base.errors import ERROR, Diagnostic, InputError, ModelError, UsageError
from ...ir.records import Layer
from ..session import Session
from .decode_inputs import SEQ2SEQ, SEQ2SEQ_INPUTS, Family, decode_value, prefill_value
from .greedy import GenerateResult
from .whisper_folder import NOT_SPEECH, WhisperGeneration

BAD_FEATURES = "bad-audio-features"


@dataclass
class SpeechResult:
    generated: GenerateResult  # the start tokens and the new ones; latencies of the decoder's calls
    encoder_seconds: float
    languages: list[int] | None  # the language token detected per row, or None
    detect_seconds: float | None = None


@dataclass(frozen=True)
class _Decoder:
    inputs: dict[str, Layer]  # role -> Parameter
    logits: str


def _decoder(session: Session) -> _Decoder:
    """The decoder's interface, or ``not-speech-export`` saying what is missing."""
    model = session.model
    roles: dict[str, Layer] = {}
    others = []
    for p in model.parameters:
        names = (p.name, *(n for port in p.outputs for n in port.names))
        role = next((r for r in ("input_ids", *SEQ2SEQ_INPUTS) if r in names), None)
        if role is None or role in roles:
            others.append(p.name)
        else:
            roles[role] = p
    missing = [f"no {r} input" for r in ("input_ids", "encoder_hidden_states") if r not in roles]
    if not model.variables:
        missing.append("no ReadValue/Assign variables (the stateful export keeps its cache in them)")
    if others:
        missing.append(f"inputs {', '.join(map(repr, others))} that a decode step cannot build")
    if "logits" not in session.output_names:
        missing.append(f"no logits output (outputs: {', '.join(map(repr, session.output_names))})")
    if missing:
        raise ModelError(f"not a stateful Whisper decoder as optimum-intel exports one: {'; '.join(missing)}",
                         code=NOT_SPEECH, file=model.path)
    return _Decoder(roles, "logits")


def check_features(encoder: Session, features: np.ndarray, source: str) -> str:
    """The encoder's input name, once ``features`` are f32 of a shape it takes (else ``bad-audio-features``)."""
    params = encoder.model.parameters
    if len(params) != 1:
        raise ModelError(f"the encoder has {len(params)} inputs; Whisper's takes the log-mel features only",
                         code=NOT_SPEECH, file=encoder.model.path)
    param = params[0]
    op = encoder.model.ops[param.id]
    shape = getattr(op, "shape", None)
    expected = f"f32{shape}" if shape is not None else "f32"
    if features.dtype != np.float32 or (shape is not None and not shape.accepts(features.shape)) or features.ndim != 3:
        raise InputError(f"{source} holds {features.dtype}{list(features.shape)}; the encoder takes log-mel features "
                         f"{expected} [batch, mel bins, frames] (a feature extractor's input_features)",
                         code=BAD_FEATURES, file=source)
    if features.shape[0] == 0:
        raise InputError(f"{source} holds no rows of features", code=BAD_FEATURES, file=source)
    return param.name


def transcribe(encoder: Session, decoder: Session, generation: WhisperGeneration, features: np.ndarray,
               max_new_tokens: int, *, source: str = "features", eos_token_id: list[int] | None = None,
               on_token: Callable[[int, np.ndarray, float], None] | None = None) -> SpeechResult:
    """Greedy decoding of ``features`` (f32 [batch, mel bins, frames]); ``eos_token_id``
    replaces generation_config's end ids.  ``on_token`` as ``greedy.generate``'s."""
    name = check_features(encoder, features, source)
    dec = _decoder(decoder)
    eos = np.asarray(generation.eos_token_ids if eos_token_id is None else eos_token_id, np.int64)
    pad = generation.pad_token_id if generation.pad_token_id is not None else (int(eos[0]) if eos.size else 0)
    start = time.perf_counter()
    hidden = encoder.run({name: features}).outputs
    encoder_seconds = time.perf_counter() - start
    states = hidden.get("last_hidden_state", next(iter(hidden.values())))
    batch = features.shape[0]
    languages, detect_seconds = None, None
    if generation.detects_language:
        start = time.perf_counter()
        languages = _detect(decoder, dec, generation, states)
        detect_seconds = time.perf_counter() - start
    prompts = [generation.start_tokens(None if languages is None else languages[r]) for r in range(batch)]
    ids = np.array(prompts, np.int64)
    positions = generation.max_target_positions
    if positions is not None and ids.shape[1] + max_new_tokens > positions:
        raise UsageError(f"{ids.shape[1]} start tokens and {max_new_tokens} new ones exceed the decoder's "
                         f"max_target_positions {positions} (config.json)", code="too-many-new-tokens",
                         file=decoder.model.path)
    feeds = _prefill(decoder, dec, ids, states)
    tokens, finished, latencies = ids, np.zeros(batch, bool), []
    decoder.reset_state()
    for step in range(max_new_tokens):
        start = time.perf_counter()
        logits = _logits(decoder, dec, feeds, batch)
        seconds = time.perf_counter() - start
        latencies.append(seconds)
        scores = logits[:, -1].astype(np.float32, copy=True)
        _suppress(scores, generation.suppress_tokens)
        if step == 0:
            _suppress(scores, generation.begin_suppress_tokens)
        new = scores.argmax(-1).astype(np.int64)
        new[finished] = pad
        if eos.size:
            finished |= np.isin(new, eos)
        tokens = np.concatenate([tokens, new[:, None]], 1)
        if on_token is not None:
            on_token(step, new, seconds)
        if step + 1 == max_new_tokens or (eos.size and finished.all()):
            break
        feeds = {"input_ids": _typed(decoder, dec.inputs["input_ids"], new[:, None]),
                 **{role: _typed(decoder, layer, decode_value(role, _FAMILY, feeds[role], batch, tokens.shape[1]))
                    for role, layer in dec.inputs.items() if role != "input_ids"}}
    result = GenerateResult(tokens, ids.shape[1], latencies, bool(eos.size) and bool(finished.all()))
    return SpeechResult(result, encoder_seconds, languages, detect_seconds)


_FAMILY = Family(SEQ2SEQ, None, "whisper")


def _prefill(decoder: Session, dec: _Decoder, ids: np.ndarray, states: np.ndarray) -> dict[str, np.ndarray]:
    given = {"input_ids": ids, "encoder_hidden_states": states}
    return {role: _typed(decoder, layer, given[role] if role in given else prefill_value(role, _FAMILY, ids, given))
            for role, layer in dec.inputs.items()}


def _detect(decoder: Session, dec: _Decoder, generation: WhisperGeneration, states: np.ndarray) -> list[int]:
    """Each row's language: transformers' ``detect_language``, the argmax over lang_to_id's ids of
    the logits for the start token alone (from a reset state, as its call without a cache)."""
    batch = states.shape[0]
    ids = np.full((batch, 1), generation.decoder_start_token_id, np.int64)
    decoder.reset_state()
    logits = _logits(decoder, dec, _prefill(decoder, dec, ids, states), batch)[:, -1]
    lang_ids = np.array(generation.lang_ids, np.int64)
    _check_ids(decoder, lang_ids, logits.shape[-1], "lang_to_id")
    return [int(lang_ids[i]) for i in logits[:, lang_ids].argmax(-1)]


def _logits(decoder: Session, dec: _Decoder, feeds: dict[str, np.ndarray], batch: int) -> np.ndarray:
    logits = decoder.run(feeds, last_position=dec.logits).outputs[dec.logits]  # every caller reads the last one
    if logits.ndim != 3 or logits.shape[0] != batch or 0 in logits.shape:
        raise ModelError(f"logits have shape {list(logits.shape)}; a Whisper decoder gives [batch={batch}, tokens, "
                         "vocabulary]", code=NOT_SPEECH, file=decoder.model.path)
    return logits


def _suppress(scores: np.ndarray, ids: list[int]) -> None:
    """transformers' SuppressTokens processors: those ids cannot be chosen (ids past the vocabulary are ignored)."""
    chosen = [i for i in ids if 0 <= i < scores.shape[-1]]
    scores[:, chosen] = -np.inf


def _check_ids(decoder: Session, ids: np.ndarray, vocabulary: int, what: str) -> None:
    bad = ids[(ids < 0) | (ids >= vocabulary)]
    if bad.size:
        raise InputError(f"generation_config.json's {what} holds {int(bad[0])}, outside the decoder's vocabulary of "
                         f"{vocabulary}", code="bad-input-file", file=decoder.model.path)


def _typed(session: Session, layer: Layer, value: np.ndarray) -> np.ndarray:
    """``value`` in the Parameter's element type (beam_idx is i32 in a Whisper decoder)."""
    arr = np.asarray(value)
    op = session.model.ops[layer.id]
    dtype = getattr(getattr(op, "element_type", None), "dtype", None)
    if dtype is None or arr.dtype == dtype:
        return arr
    if np.issubdtype(dtype, np.integer) != (arr.dtype.kind in "iu"):
        raise InputError([Diagnostic("input-mismatch", f"{layer.name} is {op.element_type.name}; it is fed "  # type: ignore[union-attr]
                                     f"{arr.dtype} values", ERROR, **session.model.where(layer))])
    return arr.astype(dtype)


__all__ = ["BAD_FEATURES", "SpeechResult", "check_features", "transcribe"]
