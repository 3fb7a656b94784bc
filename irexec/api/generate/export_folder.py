"""An optimum-cli export folder: the LLM, its tokenizer pair and generation_config.json,
for text in and text out (what GenAI's LLMPipeline(folder) reads)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...base.errors import InputError, ModelError
from ...system.json_file import read_json_object
from ..session import Session

MODEL, TOKENIZER, DETOKENIZER, CONFIG = ("openvino_model.xml", "openvino_tokenizer.xml", "openvino_detokenizer.xml",
                                          "generation_config.json")


@dataclass
class ExportFolder:
    path: str
    model: str
    tokenizer: str
    detokenizer: str
    eos_token_ids: list[int] = field(default_factory=list)  # from generation_config.json (none: no stop)
    follow_symlinks: bool | None = None  # for the tokenizer pair too (default: $IREXEC_FOLLOW_SYMLINKS)

    def tokenize(self, text: str, max_memory: int | None = None) -> dict[str, np.ndarray]:
        """The prompt's input_ids and attention_mask [1, tokens], as the tokenizer IR gives them."""
        session = Session(self.tokenizer, max_memory=max_memory, follow_symlinks=self.follow_symlinks)
        (param,) = session.model.parameters or [None]  # type: ignore[list-item]  # [None]: no Parameter, said below
        if param is None:
            raise ModelError(f"{self.tokenizer} has no input for the text", code="not-causal-lm", file=self.tokenizer)
        outputs = session.run({param.name: np.array([text])}).outputs
        if "input_ids" not in outputs:
            raise ModelError(f"{self.tokenizer} gives no input_ids (outputs: {', '.join(outputs)})", code="not-causal-lm",
                             file=self.tokenizer)
        return {k: np.asarray(v, np.int64) for k, v in outputs.items() if k in ("input_ids", "attention_mask")}

    def detokenize(self, tokens: np.ndarray, max_memory: int | None = None) -> list[str]:
        return detokenize(self.detokenizer, tokens, max_memory, self.follow_symlinks)


def detokenize(detokenizer: str, tokens: np.ndarray, max_memory: int | None = None,
               follow_symlinks: bool | None = None) -> list[str]:
    """Each row of token ids as text (invalid UTF-8 is replaced, as the detokenizer does)."""
    session = Session(detokenizer, max_memory=max_memory, follow_symlinks=follow_symlinks)
    (param,) = session.model.parameters
    dtype = session.model.ops[param.id].element_type.dtype  # type: ignore[union-attr]
    outputs = session.run({param.name: np.asarray(tokens).astype(dtype)}).outputs
    texts = next(iter(outputs.values()))
    return [bytes(x).decode("utf-8", "replace") for x in np.asarray(texts).reshape(-1)]


def is_export_folder(path: str) -> bool:
    return os.path.isdir(path)


def open_export_folder(path: str, *, follow_symlinks: bool | None = None) -> ExportFolder:
    """The folder's files, or ``not-export-folder`` naming what is missing; its JSON read under
    the file rules (``follow_symlinks``: default $IREXEC_FOLLOW_SYMLINKS)."""
    files = {name: os.path.join(path, name) for name in (MODEL, TOKENIZER, DETOKENIZER)}
    missing = [name for name, full in files.items() if not os.path.isfile(full)]
    if missing:
        raise InputError(f"{path} is not an export folder irexec can generate text with: it has no "
                         f"{', '.join(missing)} (optimum-cli export openvino writes them, with the tokenizer pair "
                         "from openvino-tokenizers)", code="not-export-folder", file=path)
    return ExportFolder(path, files[MODEL], files[TOKENIZER], files[DETOKENIZER],
                        _eos_ids(os.path.join(path, CONFIG), follow_symlinks), follow_symlinks)


def _eos_ids(config: str, follow_symlinks: bool | None = None) -> list[int]:
    if not os.path.lexists(config):
        return []
    value = read_json_object(config, follow_symlinks=follow_symlinks).get("eos_token_id")
    values = value if isinstance(value, list) else [] if value is None else [value]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise InputError(f"{config}: eos_token_id must be an integer or a list of integers, got {value!r}",
                         code="bad-input-file", file=config)
    return list(values)
