"""A Whisper export folder as optimum-intel writes it, and what its generation_config.json
says about greedy decoding: the decoder's start tokens, the stops and the suppressed tokens.

The start tokens follow transformers' ``WhisperForConditionalGeneration.generate``
(``_retrieve_init_tokens``), which optimum-intel's ``OVModelForSpeechSeq2Seq`` runs:

1. ``decoder_start_token_id`` (``<|startoftranscript|>``);
2. without ``language`` and ``task``: ``forced_decoder_ids`` (pairs [1, id], [2, id], ...; an
   id of null at position 1 is the language, left to detect);
3. a ``language`` (``"en"`` or ``"<|en|>"``, looked up in ``lang_to_id``) at position 1; with
   ``lang_to_id`` and no language given, the language is detected: the argmax, over the
   ``lang_to_id`` ids only, of the decoder's logits for the start token alone;
4. a ``task`` (``task_to_id``) replacing the one forced, or added; with a language given
   and no task, ``transcribe``;
5. ``no_timestamps_token_id``, unless the tokens already end with it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from ...base.errors import InputError, UsageError
from ...system.json_file import json_field, read_json_object

ENCODER, DECODER, DETOKENIZER = "openvino_encoder_model.xml", "openvino_decoder_model.xml", "openvino_detokenizer.xml"
CONFIG, GENERATION_CONFIG = "config.json", "generation_config.json"
NOT_SPEECH = "not-speech-export"
UNSUPPORTED = "unsupported-generation-config"
# generation_config.json keys whose logits processors would change greedy choices, and the
# values that leave them off: irexec applies none of them, so it refuses rather than differ
_CHANGES_GREEDY: dict[str, object] = {
    "repetition_penalty": 1.0, "encoder_repetition_penalty": 1.0, "no_repeat_ngram_size": 0,
    "encoder_no_repeat_ngram_size": 0, "min_length": 0, "min_new_tokens": None, "bad_words_ids": None,
    "sequence_bias": None, "forced_bos_token_id": None, "forced_eos_token_id": None,
    "exponential_decay_length_penalty": None}


@dataclass(frozen=True)
class WhisperGeneration:
    """What greedy decoding reads from generation_config.json (config.json fills what it lacks)."""

    decoder_start_token_id: int
    forced: list[int | None] = field(default_factory=list)  # positions 1, 2, ... (None: the language, detected)
    language: int | None = None  # the language token given
    task: int | None = None  # the task token given
    lang_to_id: dict[str, int] = field(default_factory=dict)  # detection chooses among these ids
    task_to_id: dict[str, int] = field(default_factory=dict)
    no_timestamps: int | None = None
    eos_token_ids: list[int] = field(default_factory=list)
    pad_token_id: int | None = None
    suppress_tokens: list[int] = field(default_factory=list)  # at every step
    begin_suppress_tokens: list[int] = field(default_factory=list)  # at the first new token only
    max_target_positions: int | None = None  # the decoder's position table: start tokens + new ones fit in it

    @property
    def lang_ids(self) -> list[int]:
        return list(self.lang_to_id.values())

    @property
    def task_ids(self) -> list[int]:
        return list(self.task_to_id.values())

    @property
    def detects_language(self) -> bool:
        forced = self.forced if self.task is None else []  # a task given: forced_decoder_ids are ignored
        return self.language is None and bool(self.lang_ids) and (not forced or forced[0] is None)

    def language_name(self, token: int) -> str:
        return next((name for name, t in self.lang_to_id.items() if t == token), str(token))

    def choose(self, language: str | None = None, task: str | None = None) -> WhisperGeneration:
        """These settings with ``language`` (``en`` or ``<|en|>``) or ``task`` (``transcribe``, ``translate``)
        given, as transformers' ``generate(language=..., task=...)``."""
        def pick(value: str, ids: Mapping[str, int], what: str, spellings: tuple[str, ...]) -> int:
            found = next((ids[s] for s in spellings if s in ids), None)
            if found is None:
                raise UsageError(f"{what} {value!r} is not one of {', '.join(ids) or 'nothing'} (generation_config.json's "
                                 f"{'lang_to_id' if what == 'language' else 'task_to_id'})", code=UNSUPPORTED)
            return found

        return replace(
            self, language=self.language if language is None else
            pick(language, self.lang_to_id, "language", (language, f"<|{language}|>")),
            task=self.task if task is None else pick(task, self.task_to_id, "task", (task,)))

    def start_tokens(self, language: int | None = None) -> list[int]:
        """The decoder's start tokens; ``language`` is the detected one when ``detects_language``."""
        tokens: list[int | None] = [self.decoder_start_token_id]
        if self.language is None and self.task is None:
            tokens += self.forced
        lang = self.language if self.language is not None else language
        if lang is not None:
            if len(tokens) > 1:
                tokens[1] = lang
            else:
                tokens.append(lang)
        if self.task is not None:
            if any(t in self.task_ids for t in tokens):
                tokens = [self.task if t in self.task_ids else t for t in tokens]
            else:
                tokens.append(self.task)
        elif self.language is not None and self.task_ids and not any(t in self.task_ids for t in tokens):
            tokens.append(self.task_to_id.get("transcribe"))
        if self.no_timestamps is not None and tokens[-1] != self.no_timestamps:
            tokens.append(self.no_timestamps)
        return [t for t in tokens if t is not None]


@dataclass(frozen=True)
class WhisperFolder:
    path: str
    encoder: str
    decoder: str
    detokenizer: str | None
    generation: WhisperGeneration


def is_speech_folder(path: str) -> bool:
    """A folder holding a Whisper encoder or decoder: the speech form of ``generate``."""
    return os.path.isdir(path) and any(os.path.isfile(os.path.join(path, f)) for f in (ENCODER, DECODER))


def open_whisper_folder(path: str, *, follow_symlinks: bool | None = None) -> WhisperFolder:
    """The folder's models and generation settings, or ``not-speech-export`` naming what is missing;
    its JSON read under the file rules (``follow_symlinks``: default $IREXEC_FOLLOW_SYMLINKS)."""
    missing = [name for name in (ENCODER, DECODER, CONFIG) if not os.path.lexists(os.path.join(path, name))]
    if missing:
        raise InputError(f"{path} is not a Whisper export folder: it has no {', '.join(missing)} (optimum-intel's "
                         "stateful export of a Whisper model writes them)", code=NOT_SPEECH, file=path)
    config = read_json_object(os.path.join(path, CONFIG), follow_symlinks=follow_symlinks)
    if config.get("model_type") != "whisper":
        raise InputError(f"{os.path.join(path, CONFIG)} says model_type {config.get('model_type')!r}; irexec generates "
                         "with Whisper's encoder and decoder only", code=NOT_SPEECH, file=os.path.join(path, CONFIG))
    gen_path = os.path.join(path, GENERATION_CONFIG)
    generation = read_json_object(gen_path, follow_symlinks=follow_symlinks) if os.path.lexists(gen_path) else {}
    detok = os.path.join(path, DETOKENIZER)
    return WhisperFolder(path, os.path.join(path, ENCODER), os.path.join(path, DECODER),
                         detok if os.path.isfile(detok) else None, _generation(generation, config, gen_path))


def _generation(gen: Mapping[str, object], config: Mapping[str, object], gen_path: str) -> WhisperGeneration:
    def get(key: str) -> object:
        return gen[key] if gen.get(key) is not None else config.get(key)

    def token(key: str, value: object = None) -> int | None:
        value = get(key) if value is None else value
        if value is None:
            return None
        if not _is_int(value):
            raise InputError(f"{gen_path}: {key} must be a token id, got {value!r}", code="bad-input-file", file=gen_path)
        return value  # type: ignore[return-value]

    def tokens(key: str) -> list[int]:
        value = get(key)
        values = [] if value is None else value if isinstance(value, list) else [value]
        if not all(_is_int(v) for v in values):
            raise InputError(f"{gen_path}: {key} must be a token id or a list of them, got {value!r}",
                             code="bad-input-file", file=gen_path)
        return list(values)

    if gen.get("return_timestamps"):
        raise InputError(f"{gen_path} sets return_timestamps; irexec decodes without timestamps (no timestamp rules "
                         "on the logits)", code=UNSUPPORTED, file=gen_path)
    changing = [f"{k} {gen[k]!r}" for k, off in _CHANGES_GREEDY.items() if gen.get(k) is not None and gen[k] != off]
    if changing:
        raise InputError(f"{gen_path} sets {', '.join(changing)}; irexec's greedy decoding applies suppress_tokens and "
                         "begin_suppress_tokens only", code=UNSUPPORTED, file=gen_path)
    start = token("decoder_start_token_id")
    if start is None:
        raise InputError(f"neither {gen_path} nor config.json gives decoder_start_token_id", code=NOT_SPEECH,
                         file=gen_path)
    lang_to_id, task_to_id = _id_map(gen, "lang_to_id", gen_path), _id_map(gen, "task_to_id", gen_path)
    language = _named(gen.get("language"), lang_to_id, "language", gen_path, lambda v: (v, f"<|{v}|>"))
    task = _named(gen.get("task"), task_to_id, "task", gen_path, lambda v: (v,))
    positions = json_field(config, "max_target_positions", "an integer", os.path.join(os.path.dirname(gen_path), CONFIG))
    return WhisperGeneration(
        start, forced=_forced(get("forced_decoder_ids"), gen_path), language=language, task=task,
        lang_to_id=lang_to_id, task_to_id=task_to_id,
        no_timestamps=token("no_timestamps_token_id"), eos_token_ids=tokens("eos_token_id"),
        pad_token_id=token("pad_token_id"), suppress_tokens=tokens("suppress_tokens"),
        begin_suppress_tokens=tokens("begin_suppress_tokens"),
        max_target_positions=positions)  # type: ignore[arg-type]


def _forced(value: object, path: str) -> list[int | None]:
    """forced_decoder_ids' ids at positions 1, 2, ... (transformers' prompt pattern: consecutive from 1)."""
    if value is None:
        return []
    pairs = value if isinstance(value, list) else None
    if pairs is None or not all(isinstance(p, list) and len(p) == 2 and _is_int(p[0]) and (p[1] is None or _is_int(p[1]))
                                for p in pairs):
        raise InputError(f"{path}: forced_decoder_ids must be [position, token id or null] pairs, got {value!r}",
                         code="bad-input-file", file=path)
    if [p[0] for p in pairs] != list(range(1, len(pairs) + 1)):
        raise InputError(f"{path}: forced_decoder_ids {value!r} do not follow Whisper's prompt pattern (positions 1, "
                         "2, ... in order)", code=UNSUPPORTED, file=path)
    return [p[1] for p in pairs]


def _id_map(gen: Mapping[str, object], key: str, path: str) -> dict[str, int]:
    value = gen.get(key) or {}
    if not isinstance(value, dict) or not all(_is_int(v) for v in value.values()):
        raise InputError(f"{path}: {key} must map names to token ids", code="bad-input-file", file=path)
    return dict(value)


def _named(value: object, ids: Mapping[str, int], what: str, path: str,
           spellings: Callable[[str], tuple[str, ...]]) -> int | None:
    if value is None:
        return None
    for name in spellings(value) if isinstance(value, str) else ():
        if name in ids:
            return ids[name]
    raise InputError(f"{path}: {what} {value!r} is not one of {', '.join(ids) or 'nothing'} (its {what} ids; irexec "
                     f"does not translate language names)", code=UNSUPPORTED, file=path)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)




__all__ = ["WhisperFolder", "WhisperGeneration", "is_speech_folder", "open_whisper_folder"]
