"""Greedy decoding with a LLaVA-style VLM export folder, as optimum-intel writes one
(``OVModelForVisualCausalLM``, stateful) and GenAI's VLMPipeline reads it.

The vision-embeddings model turns pixel values into image features [images, tokens,
hidden]; the text-embeddings model turns token ids into embeddings [batch, tokens,
hidden]; the image features take the place of the image tokens, in order (as
transformers' LlavaForConditionalGeneration does, a masked scatter); the language
model, fed ``inputs_embeds``, then decodes greedily, each new token embedded by the
text-embeddings model.  The image preprocessing (resize, crop, rescale, normalise) is
in no IR: the pixel values are what the model's image processor gives.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...base import limits
from ...base.errors import ERROR, Diagnostic, InputError, ModelError
from ...system.json_file import json_field, read_json_object
from ..session import Session
from .export_folder import ExportFolder, _eos_ids
from .greedy import GenerateResult, generate

LANGUAGE, TEXT_EMBEDDINGS, VISION_EMBEDDINGS = ("openvino_language_model.xml", "openvino_text_embeddings_model.xml",
                                                 "openvino_vision_embeddings_model.xml")
TOKENIZER, DETOKENIZER = "openvino_tokenizer.xml", "openvino_detokenizer.xml"
IMAGE_TAG = "<image>"  # LLaVA's: where a prompt's image goes


@dataclass
class VisionLanguageFolder:
    path: str
    language: str
    text_embeddings: str
    vision_embeddings: str
    image_token_id: int  # config.json's image_token_index: the token the image features replace
    image_size: int | None = None  # config.json's vision_config.image_size, when it says
    tokenizer: str | None = None  # the openvino-tokenizers pair, when the folder has it
    detokenizer: str | None = None
    eos_token_ids: list[int] = field(default_factory=list)  # from generation_config.json


def is_vision_language_folder(path: str) -> bool:
    return os.path.isfile(os.path.join(path, LANGUAGE))


def open_vision_language_folder(path: str, *, follow_symlinks: bool | None = None) -> VisionLanguageFolder:
    """The folder's files and config, or ``not-vlm-export`` naming what is missing; its JSON read
    under the file rules (``follow_symlinks``: default $IREXEC_FOLLOW_SYMLINKS)."""
    if not os.path.isdir(path):
        raise InputError(f"{path} is not a folder: a VLM export is the folder optimum-intel writes",
                         code="not-vlm-export", file=path)
    files = {name: os.path.join(path, name) for name in (LANGUAGE, TEXT_EMBEDDINGS, VISION_EMBEDDINGS, "config.json")}
    missing = [name for name, full in files.items() if not os.path.lexists(full)]
    if missing:
        raise InputError(f"{path} is not a VLM export folder irexec can generate with: it has no {', '.join(missing)} "
                         "(OVModelForVisualCausalLM.from_pretrained(..., export=True) writes them for a LLaVA-style model)",
                         code="not-vlm-export", file=path)
    config = read_json_object(files["config.json"], follow_symlinks=follow_symlinks)
    token = config.get("image_token_index", config.get("image_token_id"))
    if not isinstance(token, int) or isinstance(token, bool):
        raise InputError(f"{files['config.json']} has no integer image_token_index (the token the image features replace): "
                         f"model_type {config.get('model_type')!r} is not a LLaVA-style model irexec can feed",
                         code="not-vlm-export", file=files["config.json"])
    vision = json_field(config, "vision_config", "an object", files["config.json"])
    size = json_field(vision, "image_size", "an integer", files["config.json"]) if isinstance(vision, dict) else None
    pair = [os.path.join(path, name) for name in (TOKENIZER, DETOKENIZER)]
    tokenizer, detokenizer = (p if os.path.isfile(p) else None for p in pair)
    return VisionLanguageFolder(path, files[LANGUAGE], files[TEXT_EMBEDDINGS], files[VISION_EMBEDDINGS], token,
                                size if isinstance(size, int) and not isinstance(size, bool) else None,
                                tokenizer, detokenizer, _eos_ids(os.path.join(path, "generation_config.json"), follow_symlinks))


class VisionLanguageModel:
    """The three models of a folder, each in its own session."""

    def __init__(self, folder: VisionLanguageFolder, max_memory: int | None = None,
                 follow_symlinks: bool | None = None) -> None:
        self.folder = folder
        self.max_memory = max_memory
        self.follow_symlinks = follow_symlinks
        self.language = Session(folder.language, max_memory=max_memory, follow_symlinks=follow_symlinks)
        self.text = Session(folder.text_embeddings, max_memory=max_memory, follow_symlinks=follow_symlinks)
        self.vision = Session(folder.vision_embeddings, max_memory=max_memory, follow_symlinks=follow_symlinks)

    def image_features(self, pixel_values: np.ndarray) -> np.ndarray:
        """The vision-embeddings model's features [images, tokens, hidden] for pixel values
        [images, channels, height, width] as the image processor gives them."""
        (param,) = self.vision.model.parameters
        op = self.vision.model.ops[param.id]
        dtype, shape = op.element_type.dtype, op.shape  # type: ignore[union-attr]
        pv = np.asarray(pixel_values)
        got = f"{pv.dtype}{list(pv.shape)}"
        size = self.folder.image_size
        expected = (f"[images, {shape[1].value if shape.rank == 4 and shape[1].is_static else 'channels'}, "
                    f"{size or 'height'}, {size or 'width'}]")
        problem = None
        if pv.dtype.kind != "f":
            problem = ("they must be floating-point: the image processor's pixel_values (resized, rescaled and normalised), "
                       "not an image's bytes" if pv.dtype == np.uint8 else "they must be floating-point")
        elif pv.ndim != 4 or not shape.accepts(pv.shape) or (size is not None and pv.shape[2:] != (size, size)):
            problem = f"the vision model takes {expected}"
        elif pv.shape[0] == 0:
            problem = "they hold no image"
        if problem is not None:
            raise InputError([Diagnostic("bad-pixel-values", f"the pixel values are {got}: {problem} (input {param.name!r} "
                                         f"is {op.element_type.name}{shape})", ERROR,  # type: ignore[union-attr]
                                         **self.vision.model.where(param))])
        outputs = self.vision.run({param.name: pv.astype(dtype)}).outputs
        features = np.asarray(outputs.get("last_hidden_state", next(iter(outputs.values()))))
        if features.ndim != 3 or features.shape[0] != pv.shape[0]:
            raise ModelError(f"the vision embeddings are {features.dtype}{list(features.shape)}; a LLaVA-style vision model "
                             f"gives [images={pv.shape[0]}, tokens, hidden]", code="not-vlm-export",
                             file=self.folder.vision_embeddings)
        return features

    def embed(self, ids: np.ndarray) -> np.ndarray:
        """The text-embeddings model's embeddings [batch, tokens, hidden] of token ids [batch, tokens]."""
        (param,) = self.text.model.parameters
        dtype = self.text.model.ops[param.id].element_type.dtype  # type: ignore[union-attr]
        embeds = np.asarray(next(iter(self.text.run({param.name: np.asarray(ids).astype(dtype)}).outputs.values())))
        if embeds.ndim != 3 or embeds.shape[:2] != np.shape(ids):
            raise ModelError(f"the text embeddings of token ids {list(np.shape(ids))} are {list(embeds.shape)}; a text-"
                             "embeddings model gives [batch, tokens, hidden]", code="not-vlm-export",
                             file=self.folder.text_embeddings)
        return embeds

    def text_folder(self) -> ExportFolder:
        """The tokenizer pair, as an export folder's (``not-vlm-export`` where the folder lacks it)."""
        if self.folder.tokenizer is None or self.folder.detokenizer is None:
            raise InputError(f"{self.folder.path} has no {TOKENIZER} and {DETOKENIZER} (openvino-tokenizers writes them): "
                             "give the prompt as token ids instead", code="not-vlm-export", file=self.folder.path)
        return ExportFolder(self.folder.path, self.folder.language, self.folder.tokenizer, self.folder.detokenizer,
                            self.folder.eos_token_ids, self.follow_symlinks)

    def prompt_ids(self, text: str, images: int, tokens_per_image: int) -> dict[str, np.ndarray]:
        """The prompt's input_ids as VLMPipeline builds them for LLaVA: without an ``<image>``
        tag one per image goes first; each tag becomes one per image feature and a newline."""
        tags = text.count(IMAGE_TAG)
        if tags and tags != images:
            raise InputError(f"the prompt has {tags} {IMAGE_TAG} tag(s) for {images} image(s): the numbers must match "
                             "(without a tag, the images go first)", code="image-tokens-mismatch", file=self.folder.path)
        if not tags:
            text = IMAGE_TAG * images + text
        return self.text_folder().tokenize(text.replace(IMAGE_TAG, IMAGE_TAG * tokens_per_image + "\n"), self.max_memory)

    def generate(self, prompt: dict[str, np.ndarray], pixel_values: np.ndarray, max_new_tokens: int, *,
                 eos_token_id: int | list[int] | None = None, features: np.ndarray | None = None) -> GenerateResult:
        """Greedy decoding: ``prompt`` holds input_ids [batch, tokens] with the image tokens in
        place (and optionally attention_mask, position_ids); the image features (``features``,
        else those of ``pixel_values``) replace them."""
        if features is None:
            features = self.image_features(pixel_values)
        ids = np.asarray(prompt.get("input_ids", np.zeros((0, 0), np.int64)))
        if ids.ndim != 2 or ids.shape[1] == 0 or ids.dtype.kind not in "iu":
            raise InputError(f"the prompt's input_ids must be integers [batch, tokens] with at least one token, got "
                             f"{ids.dtype}{list(ids.shape)}", code="input-mismatch", file=self.folder.path)
        embeds = merge_image_features(self.embed(ids), ids, features, self.folder.image_token_id, self.folder.path,
                                      self.max_memory)
        return generate(self.language, {**prompt, "inputs_embeds": embeds}, max_new_tokens, eos_token_id=eos_token_id,
                        embed=self.embed)


def merge_image_features(embeds: np.ndarray, ids: np.ndarray, features: np.ndarray, image_token_id: int,
                         where: str, max_memory: int | None = None) -> np.ndarray:
    """``embeds`` with the image features, one per image token of ``ids`` in order, in place of
    those tokens' embeddings (``image-tokens-mismatch`` when the counts differ).  The merged
    copy is charged, next to the embeddings and features it is made from, before it is made."""
    need = 2 * embeds.nbytes + features.nbytes + features.size * embeds.itemsize + ids.size
    why = limits.over_limit(need, limits.resolve(max_memory))
    if why:
        raise InputError(f"merging the image features {list(features.shape)} into the prompt's embeddings "
                         f"{list(embeds.shape)} {why}", code="memory-limit", file=where)
    mask = ids == image_token_id
    rows = features.reshape(-1, features.shape[-1])
    if int(mask.sum()) != rows.shape[0]:
        raise InputError(f"the prompt has {int(mask.sum())} image token(s) (id {image_token_id}) but the image(s) give "
                         f"{rows.shape[0]} feature(s) ({features.shape[0]} x {features.shape[1]}): the processor puts one "
                         "image token per feature", code="image-tokens-mismatch", file=where)
    if features.shape[-1] != embeds.shape[-1]:
        raise ModelError(f"the image features have {features.shape[-1]} values each and the text embeddings "
                         f"{embeds.shape[-1]}: they cannot share the language model's input", code="not-vlm-export",
                         file=where)
    merged = embeds.copy()
    merged[mask] = rows.astype(merged.dtype)
    return merged


__all__ = ["IMAGE_TAG", "VisionLanguageFolder", "VisionLanguageModel", "is_vision_language_folder", "merge_image_features",
           "open_vision_language_folder"]
