"""Write this folder: a tiny multilingual Whisper exported by optimum-intel as users export
one (``OVModelForSpeechSeq2Seq.from_pretrained(..., export=True, stateful=True)``: an
encoder, and a decoder keeping its self-attention cache in variables and computing the
cross-attention cache from encoder_hidden_states on its first call), with config.json,
generation_config.json, preprocessor_config.json and an openvino-tokenizers pair converted
from a WhisperTokenizer over a hand-written byte-level vocabulary.

The weights are random (a WhisperConfig, seeded, scaled so that greedy choices are not
near-ties; nothing is downloaded).  The log-mel features of seeded noise (1 s of 16 kHz
audio: [1, 80, 100]) are in features.npz with the audio; optimum-intel's own greedy
``generate`` (language detection, the transcribe and notimestamps prompt tokens,
suppress_tokens and begin_suppress_tokens) is recorded in expected_tokens.npz, with the
text the HF tokenizer gives for the new tokens.  When openvino-genai is importable by
$GENAI_PYTHON (default /work/venv/bin/python), WhisperPipeline's tokens for the same audio
are recorded too (genai_<key>) and must equal optimum-intel's.

    python tests/data/whisper_export/make_whisper.py
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from optimum.exporters.openvino import main_export
from optimum.intel import OVModelForSpeechSeq2Seq
from transformers import (
    GenerationConfig,
    WhisperConfig,
    WhisperFeatureExtractor,
    WhisperForConditionalGeneration,
    WhisperTokenizer,
    WhisperTokenizerFast,
)
from transformers.models.gpt2.tokenization_gpt2 import bytes_to_unicode

HERE = Path(__file__).resolve().parent
NEW_TOKENS = 10
MAX_SOURCE_POSITIONS = 50
SEED = 6
F32 = {"INFERENCE_PRECISION_HINT": "f32"}
MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("e", "r"), ("a", "n"), ("o", "n"), ("Ġ", "a"),
          ("r", "e"), ("Ġ", "s"), ("o", "u"), ("Ġ", "w")]
BASE = 256 + len(MERGES)  # byte tokens (GPT-2's order: the space is 220), then the merges
LANGUAGES = ["en", "fr", "de"]
SPECIAL = ["<|endoftext|>", "<|startoftranscript|>", *(f"<|{c}|>" for c in LANGUAGES), "<|translate|>",
           "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>",
           *(f"<|{i * 0.02:.2f}|>" for i in range(11))]
ID = {tok: BASE + i for i, tok in enumerate(SPECIAL)}
EOT, SOT = ID["<|endoftext|>"], ID["<|startoftranscript|>"]
VOCAB = BASE + len(SPECIAL)
# non-speech tokens, as Whisper's generation_config lists them (here a few punctuation bytes)
SUPPRESS = sorted({ID["<|translate|>"], ID["<|transcribe|>"], ID["<|startoflm|>"], ID["<|startofprev|>"],
                   ID["<|nocaptions|>"], *range(0, 14), *range(25, 31), 143})


def _tokenizer(tmp: Path) -> WhisperTokenizerFast:
    chars = list(bytes_to_unicode().values())
    vocab = {c: i for i, c in enumerate(chars)}
    for a, b in MERGES:
        vocab[a + b] = len(vocab)
    (tmp / "vocab.json").write_text(json.dumps(vocab))
    (tmp / "merges.txt").write_text("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in MERGES))
    slow = WhisperTokenizer(str(tmp / "vocab.json"), str(tmp / "merges.txt"), pad_token="<|endoftext|>")
    slow.add_special_tokens({"additional_special_tokens": SPECIAL[1:]})
    assert [slow.convert_tokens_to_ids(t) for t in SPECIAL] == [ID[t] for t in SPECIAL]
    slow.save_pretrained(tmp / "tok")
    return WhisperTokenizerFast.from_pretrained(tmp / "tok", from_slow=True)


def _generation_config() -> GenerationConfig:
    return GenerationConfig(
        decoder_start_token_id=SOT, eos_token_id=EOT, pad_token_id=EOT, bos_token_id=EOT,
        forced_decoder_ids=[[1, None], [2, ID["<|transcribe|>"]]],
        lang_to_id={f"<|{c}|>": ID[f"<|{c}|>"] for c in LANGUAGES},
        task_to_id={"translate": ID["<|translate|>"], "transcribe": ID["<|transcribe|>"]},
        no_timestamps_token_id=ID["<|notimestamps|>"], prev_sot_token_id=ID["<|startofprev|>"],
        is_multilingual=True, suppress_tokens=SUPPRESS, begin_suppress_tokens=[220, EOT],
        max_initial_timestamp_index=50, max_length=64, alignment_heads=[[1, 0]])


def _model(seed: int = SEED) -> WhisperForConditionalGeneration:
    torch.manual_seed(seed)
    config = WhisperConfig(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                           decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=80,
                           max_source_positions=MAX_SOURCE_POSITIONS, max_target_positions=64, decoder_start_token_id=SOT,
                           eos_token_id=EOT, pad_token_id=EOT, bos_token_id=EOT, begin_suppress_tokens=[220, EOT],
                           suppress_tokens=SUPPRESS, forced_decoder_ids=None,
                           tie_word_embeddings=False)
    model = WhisperForConditionalGeneration(config).eval()
    with torch.no_grad():  # a spread of logits, so that greedy choices are not near-ties, and a decoder that
        for name, p in model.named_parameters():  # listens: a sharper, louder cross-attention
            if "layer_norm" not in name:
                p.mul_(3.0 * (3.0 if "encoder_attn." in name else 1.0) * (40.0 if name == "proj_out.weight" else 1.0))
    model.generation_config = _generation_config()
    return model


def main() -> None:
    model = _model()
    extractor = WhisperFeatureExtractor(feature_size=80, sampling_rate=16000, hop_length=160, chunk_length=1, n_fft=400)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        fast = _tokenizer(tmp)
        model.save_pretrained(tmp / "model")
        extractor.save_pretrained(tmp / "model")
        fast.save_pretrained(tmp / "model")
        for f in HERE.iterdir():
            if f.suffix in (".xml", ".bin", ".json", ".npz"):
                f.unlink()
        # what OVModelForSpeechSeq2Seq.from_pretrained(export=True, stateful=True) and optimum-cli run, with the
        # dummy features as long as this encoder takes (100 frames, not Whisper's 3000); the tokenizer
        # pair is converted below (main_export finds no tokenizer it can convert in this folder)
        main_export(str(tmp / "model"), HERE, task="automatic-speech-recognition-with-past", stateful=True,
                    nb_max_frames=2 * MAX_SOURCE_POSITIONS)
        for f in HERE.iterdir():  # the HF tokenizer files: the folder keeps the converted pair only
            if f.name in ("vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                          "added_tokens.json", "normalizer.json"):
                f.unlink()
        import openvino as ov
        from openvino_tokenizers import convert_tokenizer

        tok, detok = convert_tokenizer(fast, with_detokenizer=True, skip_special_tokens=True)
        ov.save_model(tok, HERE / "openvino_tokenizer.xml")
        ov.save_model(detok, HERE / "openvino_detokenizer.xml")
    _record(fast, extractor)


def _clips(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """1 s of chirping tones under a swelling envelope, and a little noise."""
    t = np.arange(16000) / 16000
    out = []
    for _ in range(n):
        freqs, amps = rng.uniform(100, 4000, 4), rng.uniform(0.05, 0.3, 4)
        envelope = np.clip(np.sin(np.pi * t * rng.uniform(1, 4)), 0, None)
        tones = sum(a * np.sin(2 * np.pi * f * t * (1 + rng.uniform(-0.3, 0.3) * t)) for f, a in zip(freqs, amps))
        out.append((tones * envelope + rng.normal(0, 0.01, t.size)).astype(np.float32))
    return out


# name -> (features, what generate is given besides them): the configured prompt and stops, a language
# given (no detection), a task given, and an end id that one row of two produces early
VARIANTS = {"one": ("one", {}), "two": ("two", {}), "one_de": ("one", {"language": "de"}),
            "two_translate": ("two", {"task": "translate"}), "two_eos": ("two", {"eos_token_id": 124})}


def _record(fast: WhisperTokenizerFast, extractor: WhisperFeatureExtractor) -> None:
    clips = np.stack(_clips(np.random.default_rng(5), 3))
    audio = {"one": clips[:1], "two": clips[1:]}
    features = {k: extractor(list(a), sampling_rate=16000, return_tensors="np").input_features.astype(np.float32)
                for k, a in audio.items()}
    model = OVModelForSpeechSeq2Seq.from_pretrained(HERE, ov_config=F32)
    expected: dict[str, np.ndarray] = {}
    for key, (source, given) in VARIANTS.items():
        feats = torch.from_numpy(features[source])
        # return_dict_in_generate: the sequences with the decoder prompt (start, language, task, notimestamps)
        out = model.generate(feats, max_new_tokens=NEW_TOKENS, do_sample=False, return_dict_in_generate=True, **given)
        expected[key] = out.sequences.numpy().astype(np.int64)
        start = list(expected[key][0]).index(ID["<|notimestamps|>"]) + 1
        texts = fast.batch_decode(expected[key][:, start:], skip_special_tokens=True)
        expected[f"text_{key}"] = np.array(texts)
        print(key, expected[key].tolist(), texts)
        if not given:
            plain = copy.deepcopy(model.generation_config)  # [], not None: None would bring config.json's lists back
            plain.suppress_tokens, plain.begin_suppress_tokens = [], []
            unsuppressed = model.generate(feats, generation_config=plain, max_new_tokens=NEW_TOKENS, do_sample=False,
                                          return_dict_in_generate=True)
            expected[f"unsuppressed_{key}"] = unsuppressed.sequences.numpy().astype(np.int64)
            print("  unsuppressed", expected[f"unsuppressed_{key}"].tolist())
    expected.update(_genai(audio))
    np.savez(HERE / "features.npz", **{f"audio_{k}": v for k, v in audio.items()}, **features)
    np.savez(HERE / "expected_tokens.npz", **expected)


# WhisperPipeline on the raw audio (its own feature extractor reads preprocessor_config.json); a streamer
# collects the new tokens.  The end id variant is left out: the pipeline's own stop rules are not transformers'.
GENAI = """
import json, sys
import numpy as np
import openvino_genai as g
pipe = g.WhisperPipeline(sys.argv[1], "CPU", INFERENCE_PRECISION_HINT="f32")
audio = np.load(sys.argv[2])
variants = json.loads(sys.argv[3])
class Collect(g.StreamerBase):
    def __init__(self, tokens):
        super().__init__()
        self.tokens = tokens
    def write(self, token):
        self.tokens.extend(token if isinstance(token, list) else [token])
        return g.StreamingStatus.RUNNING
    def end(self):
        pass
out = {}
for key, (source, given) in variants.items():
    rows = []
    for row in audio[source]:
        tokens = []
        result = pipe.generate(row.tolist(), max_new_tokens=%d, streamer=Collect(tokens), **given)
        rows.append({"tokens": tokens, "text": result.texts[0]})
    out[key] = rows
print(json.dumps(out))
"""


def _genai(audio: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    python = os.environ.get("GENAI_PYTHON", "/work/venv/bin/python")
    variants = {key: (source, {k: f"<|{v}|>" if k == "language" else v for k, v in given.items()})
                for key, (source, given) in VARIANTS.items() if "eos_token_id" not in given}
    with tempfile.TemporaryDirectory() as tmp:
        np.savez(Path(tmp) / "audio.npz", **audio)
        run = subprocess.run([python, "-c", GENAI % NEW_TOKENS, str(HERE), str(Path(tmp) / "audio.npz"),
                              json.dumps(variants)], capture_output=True, text=True)
    if run.returncode != 0:
        print("WhisperPipeline did not run:", run.stderr[-2000:], file=sys.stderr)
        return {}
    found = json.loads(run.stdout.strip().splitlines()[-1])
    recorded = {}
    for key, rows in found.items():
        for i, row in enumerate(rows):
            recorded[f"genai_{key}_{i}"] = np.array(row["tokens"], np.int64)
            recorded[f"genai_text_{key}_{i}"] = np.array(row["text"])
            print("genai", key, i, row)
    return recorded


if __name__ == "__main__":
    main()
