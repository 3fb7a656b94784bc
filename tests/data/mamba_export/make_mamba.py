"""Write this folder: a tiny Mamba exported by optimum-intel as users export one
(``OVModelForCausalLM.from_pretrained(..., export=True, stateful=True)``: conv and SSM
states in variables, fed ``cache_position``), over the 377-token vocabulary of the
byte-level BPE tokenizer pair of tests/data/tokenizers/bpe, copied beside it.

The weights are random (a MambaConfig, seeded; nothing is downloaded).  optimum-intel's
own ``generate`` (greedy) is recorded in expected_tokens.npz for the prompts of
prompts.npz.  Needs torch, transformers, optimum-intel, openvino and
openvino-tokenizers; the tests only read the files this writes.

    python tests/data/mamba_export/make_mamba.py
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
from optimum.intel import OVModelForCausalLM
from transformers import MambaConfig, MambaForCausalLM

HERE = Path(__file__).resolve().parent
TOKENIZERS = HERE.parent / "tokenizers" / "bpe"
NEW_TOKENS = 12
EOS = 376


def main() -> None:
    torch.manual_seed(20261127)
    config = MambaConfig(vocab_size=377, hidden_size=32, state_size=8, num_hidden_layers=2, conv_kernel=4, expand=2,
                         bos_token_id=0, eos_token_id=EOS, pad_token_id=EOS)
    model = MambaForCausalLM(config).eval()
    with torch.no_grad():  # a spread of logits, so that greedy choices are not near-ties
        for p in model.parameters():
            p.mul_(3.0)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        exported = OVModelForCausalLM.from_pretrained(tmp, export=True, stateful=True, compile=False,
                                                      ov_config={"INFERENCE_PRECISION_HINT": "f32"})
        for f in HERE.iterdir():
            if f.suffix in (".xml", ".bin", ".json", ".npz"):
                f.unlink()
        exported.save_pretrained(HERE)
    for name in ("openvino_tokenizer", "openvino_detokenizer"):
        for ext in (".xml", ".bin"):
            shutil.copy(TOKENIZERS / f"{name}{ext}", HERE / f"{name}{ext}")
    # generation_config.json: only the end id, as the tests read it
    (HERE / "generation_config.json").write_text(json.dumps({"eos_token_id": EOS}, indent=2) + "\n")

    model = OVModelForCausalLM.from_pretrained(HERE, ov_config={"INFERENCE_PRECISION_HINT": "f32"})
    rng = np.random.default_rng(3)
    prompts = {"one": rng.integers(1, 376, (1, 7)), "two": rng.integers(1, 376, (2, 5)), "single": np.array([[42]])}
    expected = {}
    for key, ids in prompts.items():
        ids_t = torch.tensor(ids, dtype=torch.long)
        out = model.generate(input_ids=ids_t, attention_mask=torch.ones_like(ids_t), max_new_tokens=NEW_TOKENS,
                             do_sample=False)
        expected[key] = out.numpy().astype(np.int64)
        print(key, expected[key].tolist())
    np.savez(HERE / "prompts.npz", **{k: v.astype(np.int64) for k, v in prompts.items()})
    np.savez(HERE / "expected_tokens.npz", **expected)


if __name__ == "__main__":
    main()
