"""Write this folder: a tiny LLaVA exported by optimum-intel as users export one
(``OVModelForVisualCausalLM.from_pretrained(..., export=True, stateful=True)``):
openvino_vision_embeddings_model.xml (pixel_values to projected image features),
openvino_text_embeddings_model.xml (token ids to embeddings) and the stateful
openvino_language_model.xml fed inputs_embeds.

The text model runs over the 378-token vocabulary of the tokenizer pair written here:
the byte-level BPE of tests/data/tokenizers/bpe (make_tokenizers.py there) with the
special token ``<image>`` added at id 377, the model's image_token_index (a prompt's
``<image>`` becomes image_seq_length of them, as LLaVA's processor expands it).  The
weights are random (a LlavaConfig with a tiny CLIP vision tower and a tiny Llama,
seeded; nothing is downloaded).  pixel_values.npy is the CLIP processor's output for
the seeded random 32x32 image of image.npy.

Recorded: optimum-intel's own greedy ``generate`` for the token-id prompts of
prompts.npz (expected_tokens.npz; the first run, which needs torch, transformers,
optimum-intel, openvino and openvino-tokenizers), and openvino_genai.VLMPipeline's
greedy tokens and text for the text prompts of GENAI_PROMPTS given image.npy, which it
preprocesses itself (genai_tokens.npz; the second run, where openvino-genai is
installed).  prompts.npz also holds the ids VLMPipeline builds for those text prompts,
so the two references meet.  The tests only read the files this writes.

    python tests/data/llava_export/make_llava.py           # torch, transformers, optimum-intel
    python tests/data/llava_export/make_llava.py --genai   # openvino-genai
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

try:  # the real one where it is installed (make_tokenizers stands in for it only where it is not)
    import transformers  # noqa: F401
except ImportError:
    pass

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tokenizers"))
from make_tokenizers import AddedToken, byte_level_bpe, convert  # noqa: E402

NEW_TOKENS = 10
EOS, IMAGE = 376, 377
IMAGE_SIZE, PATCH = 32, 8
IMAGE_TOKENS = (IMAGE_SIZE // PATCH) ** 2  # "default" feature selection drops CLIP's class token
GENAI_PROMPTS = {"tagless": "The quick brown fox", "tagged": "Look: <image> what is it?"}
MEAN, STD = [0.48145466, 0.4578275, 0.40821073], [0.26862954, 0.26130258, 0.27577711]  # CLIP's


def config():  # type: ignore[no-untyped-def]
    from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig

    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                              image_size=IMAGE_SIZE, patch_size=PATCH, projection_dim=32)
    text = LlamaConfig(vocab_size=IMAGE + 1, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                       bos_token_id=0, eos_token_id=EOS, pad_token_id=EOS)
    return LlavaConfig(vision_config=vision.to_dict(), text_config=text.to_dict(), image_token_index=IMAGE,
                       image_seq_length=IMAGE_TOKENS, vision_feature_layer=-2, vision_feature_select_strategy="default",
                       pad_token_id=EOS, eos_token_id=EOS)


def tokenizer() -> None:
    """The BPE pair of tests/data/tokenizers/bpe with <image> added at 377, room for 64 tokens."""
    stand_in = byte_level_bpe()
    stand_in.tokenizer_json["added_tokens"].append({"id": IMAGE, "content": "<image>", "single_word": False, "lstrip": False,
                                                    "rstrip": False, "normalized": False, "special": True})
    stand_in.added_tokens_decoder[IMAGE] = AddedToken("<image>")
    stand_in.model_max_length = 64
    with tempfile.TemporaryDirectory() as tmp:
        convert(stand_in, Path(tmp))
        for name in ("openvino_tokenizer", "openvino_detokenizer"):
            for ext in (".xml", ".bin"):
                shutil.copy(Path(tmp) / f"{name}{ext}", HERE / f"{name}{ext}")


def genai_tokens(image: np.ndarray) -> dict[str, np.ndarray]:
    """VLMPipeline's greedy tokens (prompt not included) for each text prompt, or nothing without openvino_genai."""
    import openvino as ov
    import openvino_genai

    pipe = openvino_genai.VLMPipeline(str(HERE), "CPU", INFERENCE_PRECISION_HINT="f32")
    config = openvino_genai.GenerationConfig(max_new_tokens=NEW_TOKENS, do_sample=False, apply_chat_template=False)
    class Tokens(openvino_genai.StreamerBase):  # the token ids as they are streamed
        def __init__(self) -> None:
            super().__init__()
            self.ids: list[int] = []

        def write(self, token):  # type: ignore[no-untyped-def]
            self.ids.extend([token] if isinstance(token, int) else token)
            return openvino_genai.StreamingStatus.RUNNING

        def end(self) -> None:
            pass

    out = {}
    for key, text in GENAI_PROMPTS.items():
        streamer = Tokens()
        result = pipe.generate(text, images=[ov.Tensor(image[None])], generation_config=config, streamer=streamer)
        out[key] = np.array([streamer.ids], np.int64)
        out[f"{key}_text"] = np.array(result.texts)
        print("genai", key, streamer.ids, result.texts)
    return out


def genai_ids(text: str) -> np.ndarray:
    """The ids VLMPipeline feeds for a LLaVA prompt: a tag prepended if there is none, each
    <image> expanded to one per image feature and a newline, tokenized by the pair here."""
    import openvino as ov
    import openvino_tokenizers  # noqa: F401

    if "<image>" not in text:
        text = "<image>" + text
    text = text.replace("<image>", "<image>" * IMAGE_TOKENS + "\n")
    tok = ov.Core().compile_model(str(HERE / "openvino_tokenizer.xml"), "CPU")
    return next(v for k, v in tok([np.array([text])]).items() if "input_ids" in k.get_names()).astype(np.int64)


def main() -> None:
    import torch
    from optimum.intel import OVModelForVisualCausalLM
    from transformers import LlavaForConditionalGeneration

    torch.manual_seed(20261127)
    model = LlavaForConditionalGeneration(config()).eval()
    with torch.no_grad():  # a spread of logits, so that greedy choices are not near-ties
        for name, p in model.named_parameters():
            if "norm" not in name:
                p.mul_(4.0)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        exported = OVModelForVisualCausalLM.from_pretrained(tmp, export=True, stateful=True, compile=False,
                                                            ov_config={"INFERENCE_PRECISION_HINT": "f32"})
        for f in HERE.iterdir():
            if f.suffix in (".xml", ".bin", ".json", ".npy") or f.name in ("expected_tokens.npz", "prompts.npz"):
                f.unlink()
        exported.save_pretrained(HERE)
    tokenizer()
    (HERE / "generation_config.json").write_text(json.dumps({"eos_token_id": EOS}, indent=2) + "\n")
    (HERE / "preprocessor_config.json").write_text(json.dumps({
        "image_processor_type": "CLIPImageProcessor", "processor_class": "LlavaProcessor", "do_resize": True,
        "size": {"shortest_edge": IMAGE_SIZE}, "do_center_crop": True, "crop_size": {"height": IMAGE_SIZE, "width": IMAGE_SIZE},
        "do_rescale": True, "rescale_factor": 1 / 255, "do_normalize": True, "image_mean": MEAN, "image_std": STD,
        "do_convert_rgb": True, "resample": 3}, indent=2) + "\n")

    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, (IMAGE_SIZE, IMAGE_SIZE, 3), dtype=np.uint8)
    # the CLIP processor's pixel_values: a 32x32 image needs no resize or crop, only rescale and normalise
    pixel_values = ((image.astype(np.float32) / 255 - np.float32(MEAN)) / np.float32(STD)).transpose(2, 0, 1)[None]
    np.save(HERE / "image.npy", image)
    np.save(HERE / "pixel_values.npy", pixel_values.astype(np.float32))

    model = OVModelForVisualCausalLM.from_pretrained(HERE, ov_config={"INFERENCE_PRECISION_HINT": "f32"})
    text = rng.integers(1, EOS, (1, 6))
    prompts = {"image_first": np.concatenate([np.full((1, IMAGE_TOKENS), IMAGE), text], 1),
               "image_inside": np.concatenate([text[:, :2], np.full((1, IMAGE_TOKENS), IMAGE), text[:, 2:]], 1),
               **{key: genai_ids(t) for key, t in GENAI_PROMPTS.items()}}
    expected = {}
    for key, ids in prompts.items():
        ids_t = torch.tensor(ids, dtype=torch.long)
        out = model.generate(input_ids=ids_t, attention_mask=torch.ones_like(ids_t),
                             pixel_values=torch.from_numpy(pixel_values), max_new_tokens=NEW_TOKENS, do_sample=False)
        expected[key] = out.numpy().astype(np.int64)
        print(key, expected[key][:, ids.shape[1]:].tolist())
    np.savez(HERE / "prompts.npz", **{k: v.astype(np.int64) for k, v in prompts.items()})
    np.savez(HERE / "expected_tokens.npz", **expected)


if __name__ == "__main__":
    if "--genai" in sys.argv:
        np.savez(HERE / "genai_tokens.npz", **genai_tokens(np.load(HERE / "image.npy")))
    else:
        main()
