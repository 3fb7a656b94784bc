"""Generation in one call, as OpenVINO GenAI's pipelines offer it: ``LLMPipeline(folder)``,
``VLMPipeline(folder)`` and ``WhisperPipeline(folder)`` open an export folder once, and
``generate(...)`` takes what ``irexec generate`` takes (a prompt as text or token ids, pixel
values, a waveform or log-mel features; ``max_new_tokens``, ``eos_token_id``, ``ignore_eos``)
and returns the tokens, the text and the timings.  ``open_pipeline(path)`` chooses the
pipeline the folder's files call for.  Greedy only, as the rest of ``generate``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...base.errors import UsageError
from ..session import Session
from .export_folder import ExportFolder, detokenize, open_export_folder
from .greedy import GenerateResult, generate
from .metrics import Metrics, metrics, peak_memory_bytes
from .speech import transcribe
from .vision_language import VisionLanguageModel, is_vision_language_folder, open_vision_language_folder
from .whisper_folder import NOT_SPEECH, is_speech_folder, open_whisper_folder

# A prompt: text (an export folder's tokenizer makes its ids), token ids [tokens] or
# [batch, tokens], or the prefill inputs by name (input_ids and optionally attention_mask, ...).
Prompt = str | Mapping[str, np.ndarray] | np.ndarray | Sequence[int] | Sequence[Sequence[int]]
OnToken = Callable[[int, np.ndarray, float], None]


@dataclass
class PipelineResult(GenerateResult):
    """The tokens (prompt or start tokens, then the new ones), each row's new text where the
    folder has a detokenizer, and what was measured."""

    texts: list[str] | None = None  # the new tokens of each row as text
    encoder_seconds: float | None = None  # a speech pipeline: the encoder's run
    detect_seconds: float | None = None  # a speech pipeline: language detection, when it ran
    languages: list[int] | None = None  # a speech pipeline: the language token detected per row

    @property
    def text(self) -> str | None:
        """The rows' texts, one per line (what ``irexec generate`` prints and ``--compare`` reads)."""
        return None if self.texts is None else "\n".join(self.texts)

    def metrics(self) -> Metrics:
        """Time to first token, decode and overall throughput, peak memory, as GenAI's benchmark puts them."""
        if self.encoder_seconds is None:
            return metrics(self)
        covers = "the encoder, language detection and the prefill" if self.languages else "the encoder and the prefill"
        before = self.encoder_seconds + (self.detect_seconds or 0.0)
        return Metrics(int(self.tokens.shape[0]), int(self.new_tokens.shape[1]), before + self.latencies[0],
                       list(self.latencies[1:]), peak_memory_bytes(), covers)


def _result(found: GenerateResult, texts: list[str] | None, **speech: object) -> PipelineResult:
    return PipelineResult(found.tokens, found.prompt_length, found.latencies, found.stopped_by_eos, texts,
                          **speech)  # type: ignore[arg-type]


def end_ids(max_new_tokens: int, eos_token_id: int | Sequence[int] | None, ignore_eos: bool, where: str
            ) -> list[int] | None:
    """The end ids asked for: none with ``ignore_eos`` (GenAI's: generate ``max_new_tokens`` whatever comes),
    ``eos_token_id`` when given, else None (the folder's own); a usage error where they do not fit."""
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, (int, np.integer)) or max_new_tokens < 1:
        raise UsageError(f"`max_new_tokens` is {max_new_tokens!r}; it must be an integer of at least 1",
                         code="bad-prompt", file=where)
    if ignore_eos:
        if eos_token_id is not None:
            raise UsageError("`eos_token_id` and `ignore_eos` together: ignoring the end-of-sequence token leaves "
                             "nothing for `eos_token_id` to stop", code="bad-token-id", file=where)
        return []
    if eos_token_id is None:
        return None
    return [eos_token_id] if isinstance(eos_token_id, (int, np.integer)) else list(eos_token_id)


def _prompt_feeds(prompt: Prompt, tokenize: Callable[[str], dict[str, np.ndarray]] | None, where: str
                  ) -> dict[str, np.ndarray]:
    if isinstance(prompt, str):
        if tokenize is None:
            raise UsageError(f"a text prompt needs an export folder's tokenizer (openvino_tokenizer.xml); {where} is a "
                             "model file: give the prompt as token ids", code="bad-prompt", file=where)
        return tokenize(prompt)
    if isinstance(prompt, Mapping):
        return {str(k): np.asarray(v) for k, v in prompt.items()}
    ids = np.asarray(prompt)
    return {"input_ids": ids[None] if ids.ndim == 1 else ids}


class LLMPipeline:
    """A stateful causal LM (a KV-cache transformer, an SSM or a hybrid): an export folder
    (openvino_model.xml, the openvino-tokenizers pair, generation_config.json), text in and
    text out as GenAI's ``LLMPipeline(folder)``; or a model file, fed token ids."""

    def __init__(self, path: str | os.PathLike[str], *, weights: str | None = None, max_memory: int | None = None,
                 follow_symlinks: bool | None = None) -> None:
        self.path = os.fspath(path)
        self.max_memory, self.follow_symlinks = max_memory, follow_symlinks
        self.folder: ExportFolder | None = None
        model = self.path
        if os.path.isdir(self.path):
            if weights is not None:
                raise UsageError(f"`weights` goes with a model file; {self.path} is an export folder, whose model has "
                                 "its .bin beside it", code="bad-prompt", file=self.path)
            self.folder = open_export_folder(self.path, follow_symlinks=follow_symlinks)
            model = self.folder.model
        self.session = Session(model, weights, max_memory=max_memory, follow_symlinks=follow_symlinks)

    @property
    def eos_token_ids(self) -> list[int]:
        """Where decoding stops by default: generation_config.json's eos_token_id (a model file: nowhere)."""
        return [] if self.folder is None else list(self.folder.eos_token_ids)

    def tokenize(self, text: str) -> dict[str, np.ndarray]:
        """The prompt's input_ids and attention_mask [1, tokens], as the folder's tokenizer gives them."""
        return _prompt_feeds(text, None if self.folder is None else self._tokenize, self.path)

    def _tokenize(self, text: str) -> dict[str, np.ndarray]:
        assert self.folder is not None
        return self.folder.tokenize(text, self.max_memory)

    def generate(self, prompt: Prompt, *, max_new_tokens: int, eos_token_id: int | Sequence[int] | None = None,
                 ignore_eos: bool = False, on_token: OnToken | None = None) -> PipelineResult:
        """Greedy decoding of ``prompt``; stops where every row has produced an end id (``eos_token_id``, else
        generation_config.json's), never with ``ignore_eos``."""
        stops = end_ids(max_new_tokens, eos_token_id, ignore_eos, self.path)
        feeds = _prompt_feeds(prompt, None if self.folder is None else self._tokenize, self.path)
        eos = self.eos_token_ids if stops is None else stops
        found = generate(self.session, feeds, int(max_new_tokens), eos_token_id=eos or None, on_token=on_token)
        texts = None if self.folder is None else self.folder.detokenize(found.new_tokens, self.max_memory)
        return _result(found, texts)


class VLMPipeline:
    """A LLaVA-style vision-language export folder (language, text-embeddings and vision-embeddings
    models, config.json), as GenAI's ``VLMPipeline(folder)``: pixel values and a prompt in."""

    def __init__(self, path: str | os.PathLike[str], *, max_memory: int | None = None,
                 follow_symlinks: bool | None = None) -> None:
        self.path = os.fspath(path)
        self.max_memory, self.follow_symlinks = max_memory, follow_symlinks
        self.folder = open_vision_language_folder(self.path, follow_symlinks=follow_symlinks)
        self.model = VisionLanguageModel(self.folder, max_memory, follow_symlinks)

    @property
    def eos_token_ids(self) -> list[int]:
        return list(self.folder.eos_token_ids)

    def generate(self, prompt: Prompt, *, image: np.ndarray | None, max_new_tokens: int,
                 eos_token_id: int | Sequence[int] | None = None, ignore_eos: bool = False) -> PipelineResult:
        """Greedy decoding of ``prompt`` with ``image``, the image processor's pixel_values [images,
        channels, height, width].  A text prompt's ``<image>`` tags say where the images go (without
        one, they go first); token ids must hold the image tokens in place already."""
        stops = end_ids(max_new_tokens, eos_token_id, ignore_eos, self.path)
        if image is None:
            raise UsageError(f"{self.path} is a VLM export: it needs an image, the image processor's pixel_values",
                             code="bad-prompt", file=self.path)
        features = self.model.image_features(image)
        if isinstance(prompt, str):
            feeds = self.model.prompt_ids(prompt, features.shape[0], features.shape[1])
        else:
            feeds = _prompt_feeds(prompt, None, self.path)
        eos = self.eos_token_ids if stops is None else stops
        found = self.model.generate(feeds, image, int(max_new_tokens), eos_token_id=eos or None, features=features)
        texts = self.model.text_folder().detokenize(found.new_tokens, self.max_memory) if self.folder.detokenizer else None
        return _result(found, texts)


class WhisperPipeline:
    """A Whisper export folder (encoder, stateful decoder, config.json, generation_config.json and,
    if present, the detokenizer), as GenAI's ``WhisperPipeline(folder)``: speech in, text out."""

    def __init__(self, path: str | os.PathLike[str], *, max_memory: int | None = None,
                 follow_symlinks: bool | None = None) -> None:
        from ...base.errors import InputError

        self.path = os.fspath(path)
        self.max_memory, self.follow_symlinks = max_memory, follow_symlinks
        if not os.path.isdir(self.path):
            raise InputError(f"{self.path} is not a folder: speech needs a Whisper export folder (with "
                             "openvino_encoder_model.xml and openvino_decoder_model.xml)", code=NOT_SPEECH, file=self.path)
        self.folder = open_whisper_folder(self.path, follow_symlinks=follow_symlinks)
        self.encoder = Session(self.folder.encoder, max_memory=max_memory, follow_symlinks=follow_symlinks)
        self.decoder = Session(self.folder.decoder, max_memory=max_memory, follow_symlinks=follow_symlinks)

    def generate(self, audio: np.ndarray | None = None, *, features: np.ndarray | None = None, max_new_tokens: int,
                 language: str | None = None, task: str | None = None, eos_token_id: int | Sequence[int] | None = None,
                 ignore_eos: bool = False, source: str | None = None, on_token: OnToken | None = None) -> PipelineResult:
        """Greedy transcription of ``audio``, a 16 kHz waveform [samples] or [batch, samples] made into
        log-mel features as preprocessor_config.json says, or of ``features`` (f32 [batch, mel bins,
        frames]); ``language`` (``en`` or ``<|en|>``) and ``task`` (``transcribe``, ``translate``) as
        transformers' ``generate`` takes them.  ``source`` names the input in messages (a file's path)."""
        stops = end_ids(max_new_tokens, eos_token_id, ignore_eos, self.path)
        if (audio is None) == (features is None):
            raise UsageError(f"{self.path} is a Whisper export folder: it takes a waveform (audio) or log-mel features "
                             f"(features), {'not both' if audio is not None else 'and got neither'}", code="bad-prompt",
                             file=self.path)
        generation = self.folder.generation.choose(language, task)
        if audio is not None:
            from .whisper_features import check_waveform, read_extractor

            extractor = read_extractor(self.path, follow_symlinks=self.follow_symlinks)
            features = extractor(check_waveform(audio, source or "the waveform"), self.max_memory, source)
        assert features is not None
        found = transcribe(self.encoder, self.decoder, generation, features, int(max_new_tokens),
                           source=source or "the features", eos_token_id=stops, on_token=on_token)
        result = found.generated
        texts = (detokenize(self.folder.detokenizer, result.new_tokens, self.max_memory, self.follow_symlinks)
                 if self.folder.detokenizer else None)
        return _result(result, texts, encoder_seconds=found.encoder_seconds, detect_seconds=found.detect_seconds,
                       languages=found.languages)


Pipeline = LLMPipeline | VLMPipeline | WhisperPipeline
TEXT, VISION, SPEECH = "text", "vision", "speech"


def pipeline_kind(path: str | os.PathLike[str]) -> str:
    """What ``path`` holds: ``speech`` (a Whisper encoder or decoder), ``vision`` (a VLM's language
    model) or ``text`` (an export folder, or a model file)."""
    path = os.fspath(path)
    if is_speech_folder(path):
        return SPEECH
    if os.path.isdir(path) and is_vision_language_folder(path):
        return VISION
    return TEXT


def open_pipeline(path: str | os.PathLike[str], *, kind: str | None = None, weights: str | None = None,
                  max_memory: int | None = None, follow_symlinks: bool | None = None) -> Pipeline:
    """The pipeline for ``path``: of the kind its files say (``pipeline_kind``), or ``kind`` when given
    (then a folder of another kind fails naming what it lacks).  ``weights``: a model file's .bin."""
    kind = pipeline_kind(path) if kind is None else kind
    if kind not in (TEXT, VISION, SPEECH):
        raise UsageError(f"kind {kind!r} is not one of {TEXT}, {VISION}, {SPEECH}", code="bad-prompt", file=os.fspath(path))
    if kind == TEXT:
        return LLMPipeline(path, weights=weights, max_memory=max_memory, follow_symlinks=follow_symlinks)
    if weights is not None:
        raise UsageError(f"`weights` goes with a model file; a {kind} pipeline opens an export folder", code="bad-prompt",
                         file=os.fspath(path))
    if kind == VISION:
        return VLMPipeline(path, max_memory=max_memory, follow_symlinks=follow_symlinks)
    return WhisperPipeline(path, max_memory=max_memory, follow_symlinks=follow_symlinks)


__all__ = ["SPEECH", "TEXT", "VISION", "LLMPipeline", "Pipeline", "PipelineResult", "VLMPipeline", "WhisperPipeline",
           "end_ids", "open_pipeline", "pipeline_kind"]
