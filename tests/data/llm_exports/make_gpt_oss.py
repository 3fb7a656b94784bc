"""Write gpt_oss/ here: a tiny gpt-oss (mixture of experts, sliding-window and full attention
layers, attention sinks) with random weights, exported statefully by optimum-intel as users
export one, its MoE and attention weights then compressed to MXFP4 by NNCF (as optimum-cli's
``--weight-format mxfp4`` does), and OpenVINO CPU's logits for a prefill and a decode step
recorded beside it.  Nothing is downloaded.  Needs torch, transformers, optimum-intel, nncf and
openvino; the tests only read the files this writes.

    python tests/data/llm_exports/make_gpt_oss.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import torch
from optimum.intel import OVModelForCausalLM
from transformers import GptOssConfig, GptOssForCausalLM

HERE = Path(__file__).resolve().parent
OUT = HERE / "gpt_oss"
F32 = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}


def main() -> None:
    torch.manual_seed(20261127)
    config = GptOssConfig(vocab_size=256, hidden_size=64, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=16, num_local_experts=4,
                          num_experts_per_tok=2, sliding_window=4, layer_types=["sliding_attention", "full_attention"],
                          max_position_embeddings=128, rope_scaling=None, pad_token_id=0, eos_token_id=1)
    model = GptOssForCausalLM(config).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("sinks"):
                p.copy_(torch.randn_like(p))  # sinks that matter (they start at zero)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        exported = OVModelForCausalLM.from_pretrained(tmp, export=True, stateful=True, compile=False)
        if OUT.exists():
            shutil.rmtree(OUT)
        exported.save_pretrained(OUT)
    ov_model = ov.Core().read_model(OUT / "openvino_model.xml")
    try:
        import nncf

        ov_model = nncf.compress_weights(ov_model, mode=nncf.CompressWeightsMode.MXFP4, group_size=32, ratio=1.0,
                                         all_layers=True)
        # written beside, then moved: the read model still maps the original .bin
        ov.save_model(ov_model, OUT / "compressed.xml", compress_to_fp16=False)
        del ov_model
        for ext in (".xml", ".bin"):
            (OUT / f"compressed{ext}").replace(OUT / f"openvino_model{ext}")
    except ImportError:
        print("nncf is not installed: the weights stay f32")
    rng = np.random.default_rng(5)
    ids = rng.integers(2, 256, (1, 9)).astype(np.int64)
    step0 = {"input_ids": ids, "attention_mask": np.ones_like(ids), "position_ids": np.arange(9)[None].astype(np.int64),
             "beam_idx": np.zeros(1, np.int32)}
    step1 = {"input_ids": np.array([[7]], np.int64), "attention_mask": np.ones((1, 10), np.int64),
             "position_ids": np.array([[9]], np.int64), "beam_idx": np.zeros(1, np.int32)}
    request = ov.Core().compile_model(OUT / "openvino_model.xml", "CPU", F32).create_infer_request()
    out0 = request.infer(step0)["logits"].copy()
    out1 = request.infer(step1)["logits"].copy()
    np.savez(OUT / "inputs_step0.npz", **step0)
    np.savez(OUT / "inputs_step1.npz", **step1)
    np.savez(OUT / "expected_step0.npz", logits=out0)
    np.savez(OUT / "expected_step1.npz", logits=out1)
    for f in OUT.glob("*.json"):
        if f.name not in ("config.json", "generation_config.json"):
            f.unlink()


if __name__ == "__main__":
    main()
