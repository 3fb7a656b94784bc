"""Build the small tokenizer IR pairs under this folder, offline.

openvino_tokenizers converts a Hugging Face fast tokenizer from its tokenizer.json;
here that JSON is written by hand (a byte-level BPE learned from a short text, as
GPT-2's is, and a WordPiece vocabulary, as BERT's is) and handed to the converter
through a minimal stand-in for the transformers object.  Needs openvino and
openvino-tokenizers; the tests only read the files this writes.

    python tests/data/tokenizers/make_tokenizers.py
"""

from __future__ import annotations

import collections
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov


def _without_transformers() -> None:
    """The parser imports three names from transformers at load time and uses none
    of them on the path taken here: stand-ins let it load where transformers is absent."""
    import sys
    import types

    if "transformers" in sys.modules:
        return
    for name in ("transformers", "transformers.convert_slow_tokenizer", "transformers.utils", "transformers.utils.versions"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["transformers"].PreTrainedTokenizerBase = type("PreTrainedTokenizerBase", (), {})  # type: ignore[attr-defined]
    sys.modules["transformers"].PreTrainedTokenizerFast = type("PreTrainedTokenizerFast", (), {})  # type: ignore[attr-defined]
    sys.modules["transformers.convert_slow_tokenizer"].import_protobuf = None  # type: ignore[attr-defined]
    sys.modules["transformers.utils.versions"].require_version = lambda *a, **k: None  # type: ignore[attr-defined]


_without_transformers()
from openvino_tokenizers.hf_parser import convert_fast_tokenizer  # noqa: E402
from openvino_tokenizers.utils import TokenzierConversionParams, change_inputs_type, change_outputs_type  # noqa: E402

HERE = Path(__file__).resolve().parent
TEXT = """The quick brown fox jumps over the lazy dog. A tokenizer splits text into pieces;
the pieces are looked up in a vocabulary. Hello world! Tokens, tokens and more tokens.
Numbers like 2024 and 3.14 appear too, as do names: OpenVINO, NumPy, Python."""


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map of the 256 bytes to printable characters."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return dict(zip(keep, map(chr, chars)))


def merge_pairs(words: dict, vocab: dict[str, int], count: int) -> list[str]:
    """BPE training: up to ``count`` times, merge the most frequent adjacent pair of symbols
    (ties to the larger pair), giving the new symbol the next id in ``vocab``; the merges."""
    merges: list[str] = []
    for _ in range(count):
        pairs: collections.Counter = collections.Counter()
        for w, n in words.items():
            for a, b in zip(w, w[1:]):
                pairs[a, b] += n
        if not pairs:
            break
        (a, b), _count = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        merges.append(f"{a} {b}")
        vocab.setdefault(a + b, len(vocab))
        merged: collections.Counter = collections.Counter()
        for w, n in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] += n
        words = merged
    return merges


def learn_bpe(text: str, merges_wanted: int) -> tuple[dict[str, int], list[str]]:
    """Byte-level BPE merges learned from the words of ``text`` (a space joins the word after it)."""
    b2u = bytes_to_unicode()
    words = collections.Counter()
    for i, w in enumerate(text.split(" ")):
        piece = (" " if i else "") + w
        words[tuple(b2u[b] for b in piece.encode())] += 1
    vocab = {c: i for i, c in enumerate(b2u.values())}  # GPT-2's order: "!" is id 0, the pad id
    merges = merge_pairs(words, vocab, merges_wanted)
    return vocab, merges


@dataclass
class AddedToken:
    content: str
    special: bool = True
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False
    normalized: bool = False


class StandIn:
    """What openvino_tokenizers reads from a transformers fast tokenizer."""

    is_fast = True
    padding_side = "right"
    truncation_side = "right"
    clean_up_tokenization_spaces = False

    def __init__(self, tokenizer_json: dict, added: dict[int, AddedToken], max_length: int, input_names: list[str],
                 pad: tuple[str, int] | None = None, unk: str | None = None):
        self.tokenizer_json = tokenizer_json
        self.added_tokens_decoder = added
        self.model_max_length = max_length
        self.model_input_names = input_names
        self.pad_token, self.pad_token_id = pad if pad else (None, None)
        self.unk_token = unk

    def save_pretrained(self, folder: str) -> None:
        (Path(folder) / "tokenizer.json").write_text(json.dumps(self.tokenizer_json), encoding="utf-8")


def byte_level_bpe() -> StandIn:
    vocab, merges = learn_bpe(TEXT, 120)
    eos = "<|endoftext|>"
    vocab[eos] = len(vocab)
    level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tj = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[eos], "content": eos, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": True, "special": True}],
        "normalizer": None, "pre_tokenizer": level, "post_processor": level, "decoder": level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
    return StandIn(tj, {vocab[eos]: AddedToken(eos)}, 24, ["input_ids", "attention_mask"])


# Qwen2's pre-tokenizer split, as its tokenizer.json writes it
QWEN_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
              r"|\s+(?!\S)|\s+")


def qwen_bpe() -> StandIn:
    """A Qwen2-style byte-level BPE: NFC normalization, then Qwen's split regex and byte level."""
    stand_in = byte_level_bpe()
    tj = stand_in.tokenizer_json
    tj["normalizer"] = {"type": "NFC"}
    tj["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": QWEN_SPLIT}, "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]}
    return stand_in


def wordpiece() -> StandIn:
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = sorted({w.strip(".,;:!?").lower() for w in TEXT.split() if w.strip(".,;:!?")})
    pieces = sorted({c for w in words for c in w}) + ["##" + c for c in sorted({c for w in words for c in w})]
    pieces += [w for w in words if len(w) > 3] + ["##s", "##ing", "##er", "."] + list(",;:!?")
    vocab: dict[str, int] = {}
    for t in specials + pieces:
        vocab.setdefault(t, len(vocab))
    tj = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in specials],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                           "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
    added = {vocab[t]: AddedToken(t) for t in specials}
    return StandIn(tj, added, 32, ["input_ids", "token_type_ids", "attention_mask"], pad=("[PAD]", vocab["[PAD]"]),
                   unk="[UNK]")


def word_level() -> StandIn:
    words = sorted({w.strip(".,;:!?").lower() for w in TEXT.split() if w.strip(".,;:!?")})
    vocab = {t: i for i, t in enumerate(["[UNK]", "[PAD]", *words, ".", ",", "!", ";", ":"])}
    tj = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in ("[UNK]", "[PAD]")],
        "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None,
        "decoder": None, "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }
    return StandIn(tj, {vocab[t]: AddedToken(t) for t in ("[UNK]", "[PAD]")}, 32, ["input_ids", "attention_mask"],
                   pad=("[PAD]", vocab["[PAD]"]), unk="[UNK]")


def llama_bpe() -> StandIn:
    """A Llama-style BPE: Metaspace by normalizers, byte fallback to <0xXX> pieces."""
    specials = ["<unk>", "<s>", "</s>"]
    pieces = [f"<0x{b:02X}>" for b in range(256)]
    words = collections.Counter()
    for w in TEXT.replace("\n", " ").split(" "):
        words[tuple("\u2581" + w)] += 1
    chars = sorted({c for w in words for c in w})
    vocab = {t: i for i, t in enumerate(specials + pieces + chars)}
    merges = merge_pairs(words, vocab, 80)
    tj = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in specials],
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
                                                          {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                                                   {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<s>": {"id": "<s>", "ids": [vocab["<s>"]], "tokens": ["<s>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
            {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
    return StandIn(tj, {vocab[t]: AddedToken(t) for t in specials}, 48, ["input_ids", "attention_mask"], unk="<unk>")


def unigram() -> StandIn:
    """A SentencePiece unigram model (T5 / ALBERT style) with the metaspace pre-tokenizer."""
    pieces: collections.Counter = collections.Counter()
    for w in TEXT.replace("\n", " ").split(" "):
        w = "\u2581" + w
        for i in range(len(w)):
            for j in range(i + 1, min(len(w), i + 5) + 1):
                pieces[w[i:j]] += 1
    common = [p for p, _ in sorted(pieces.items(), key=lambda kv: (-kv[1], kv[0]))[:150]]
    total = sum(pieces[p] for p in common)
    vocab = [["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]] + [[p, float(np.log(pieces[p] / total))] for p in common]
    tj = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, t in enumerate(["<pad>", "</s>", "<unk>"])],
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}},
                                                                   {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                                    {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "</s>", "type_id": 1}}],
                           "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 2, "vocab": vocab, "byte_fallback": False},
    }
    added = {i: AddedToken(t) for i, t in enumerate(["<pad>", "</s>", "<unk>"])}
    return StandIn(tj, added, 40, ["input_ids", "attention_mask"], pad=("<pad>", 0), unk="<unk>")


def convert(stand_in: StandIn, folder: Path) -> None:
    params = TokenzierConversionParams(with_detokenizer=True)
    tokenizer, detokenizer = convert_fast_tokenizer(stand_in, params)
    tokenizer = change_outputs_type(tokenizer, ov.Type.i64)
    detokenizer = change_inputs_type(detokenizer, ov.Type.i64)
    folder.mkdir(parents=True, exist_ok=True)
    ov.save_model(tokenizer, folder / "openvino_tokenizer.xml")
    ov.save_model(detokenizer, folder / "openvino_detokenizer.xml")
    with tempfile.TemporaryDirectory() as tmp:
        stand_in.save_pretrained(tmp)
        (folder / "tokenizer.json").write_text(Path(tmp, "tokenizer.json").read_text(encoding="utf-8"), encoding="utf-8")


if __name__ == "__main__":
    convert(byte_level_bpe(), HERE / "bpe")
    convert(wordpiece(), HERE / "wordpiece")
    convert(word_level(), HERE / "wordlevel")
    convert(llama_bpe(), HERE / "llama-bpe")
    convert(unigram(), HERE / "unigram")
    convert(qwen_bpe(), HERE / "qwen-bpe")
