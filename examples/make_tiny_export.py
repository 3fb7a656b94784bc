"""Write examples/tiny-export: an export folder as optimum-cli writes one, made offline.

openvino_model.xml is a tiny stateful causal LM (tests/stateful_models.py) over the
377-token vocabulary of the byte-level BPE tokenizer pair of tests/data/tokenizers/bpe
(made by openvino_tokenizers, see make_tokenizers.py there), copied beside it with a
generation_config.json.  OpenVINO's results are recorded beside them: the tokens of
texts.npz, the text of tokens.npz, and the greedy text for PROMPT.  Needs openvino
and openvino-tokenizers.

    python examples/make_tiny_export.py
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import openvino as ov
import openvino_tokenizers  # noqa: F401  (its ops, for the Core made below)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from stateful_models import ov_greedy, save, tiny_lm  # noqa: E402

OUT = ROOT / "examples" / "tiny-export"
PROMPT = "The quick brown fox"
NEW_TOKENS = 8
TEXTS = ["Hello world!", "", "  spaces  and\ttabs", "héllo 日本語 👍🏽", "it's <|endoftext|> done"]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    save(tiny_lm(vocab=377, seed=3), OUT, "openvino_model")
    for name in ("openvino_tokenizer", "openvino_detokenizer"):
        for ext in (".xml", ".bin"):
            shutil.copy(ROOT / "tests" / "data" / "tokenizers" / "bpe" / f"{name}{ext}", OUT / f"{name}{ext}")
    (OUT / "generation_config.json").write_text(json.dumps({"eos_token_id": 376}, indent=2) + "\n")
    core = ov.Core()
    tokenizer = core.compile_model(str(OUT / "openvino_tokenizer.xml"), "CPU")
    detokenizer = core.compile_model(str(OUT / "openvino_detokenizer.xml"), "CPU")
    texts = np.array(TEXTS)
    np.savez(OUT / "texts.npz", Parameter_1=texts)
    tokens = {next(iter(k.get_names())): v for k, v in tokenizer([texts]).items()}
    np.savez(OUT / "expected_tokens.npz", **tokens)
    ids = tokens["input_ids"]
    (param,) = core.read_model(str(OUT / "openvino_detokenizer.xml")).get_parameters()
    np.savez(OUT / "tokens.npz", **{param.get_friendly_name(): ids})
    text = detokenizer([ids])
    np.savez(OUT / "expected_texts.npz", string_output=np.array([str(t) for t in next(iter(text.values()))]))
    prompt = {next(iter(k.get_names())): v for k, v in tokenizer([np.array([PROMPT])]).items()}["input_ids"]
    greedy = ov_greedy(str(OUT / "openvino_model.xml"), prompt, NEW_TOKENS)[:, prompt.shape[1]:]
    (OUT / "expected_text.txt").write_text(str(next(iter(detokenizer([greedy]).values()))[0]), encoding="utf-8")


if __name__ == "__main__":
    main()
