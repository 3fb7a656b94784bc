"""Build the SentencePiece tokenizer IR pairs under this folder, offline.

Two tiny sentencepiece models are trained here on a short text: a unigram model with
sentencepiece's `nmt_nfkc` normalization (T5, XLM-R and ALBERT ship such a model: its
normalizer is a precompiled charsmap) and a BPE model with byte fallback and Llama-2's
options.  transformers builds tokenizers from the `.model` files and openvino_tokenizers
converts them:

- `t5-charsmap`: T5TokenizerFast (tokenizer.json with a `Precompiled` normalizer), converted
  into CharsMapNormalization with the model's charsmap and UnigramTokenizer;
- `xlmr-charsmap`: XLMRobertaTokenizerFast from the same model (fairseq's id offset, the
  precompiled charsmap again);
- `albert-charsmap`: AlbertTokenizerFast from it (NFKD, accents stripped and lower case
  before the charsmap: the converter merges them into one CharsMapNormalization);
- `t5-sentencepiece`: the slow T5Tokenizer, converted into SentencepieceTokenizer /
  SentencepieceDetokenizer carrying the model;
- `llama-sentencepiece`: the slow LlamaTokenizer (special tokens cut out by the
  tokenizer op, the begin token added by the graph), with SentencepieceStreamDetokenizer
  in `openvino_stream_detokenizer.xml` beside the plain detokenizer;
- `llama-sentencepiece-left`: the same with `padding_side="left"` (the tokenizer op reverses
  each row and the graph turns the padded rows back).

Needs sentencepiece, protobuf, transformers, openvino and openvino-tokenizers; the tests
only read the files this writes.

    python tests/data/tokenizers/make_sentencepiece.py
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import openvino as ov
import sentencepiece as spm
from openvino_tokenizers import convert_tokenizer

HERE = Path(__file__).resolve().parent
TEXT = """The quick brown fox jumps over the lazy dog. A tokenizer splits text into pieces;
the pieces are looked up in a vocabulary. Hello world! Tokens, tokens and more tokens.
Numbers like 2024 and 3.14 appear too, as do names: OpenVINO, NumPy, Python.
Café, naïve, straße and Ærøskøbing; 日本語のテキスト, 中文字符, Русский текст, Ελληνικά.
Full-width ＡＢＣ and ligatures like ﬁne ﬂow, ① ② ½ ² and ⅫⅢ, emoji 😀 👍.
It's a test: don't worry, we'll see. The end of the text is here."""


def train(model_type: str, vocab_size: int, coverage: float, **options: object) -> bytes:
    model = io.BytesIO()
    lines = [line for line in TEXT.splitlines() if line] * 8
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, model_type=model_type,
                                   vocab_size=vocab_size, hard_vocab_limit=False, character_coverage=coverage,
                                   num_threads=1, seed_sentencepiece_size=10000, **options)
    return model.getvalue()


def unigram_model() -> bytes:
    """T5-style ids: pad 0, end 1, unknown 2, no begin token."""
    return train("unigram", 220, 1.0, normalization_rule_name="nmt_nfkc", pad_id=0, eos_id=1, unk_id=2, bos_id=-1)


def llama_model() -> bytes:
    """Llama-2's trainer options: unknown 0, begin 1, end 2, byte fallback (the rarest characters
    are left to it), digits split."""
    return train("bpe", 400, 0.98, normalization_rule_name="identity", byte_fallback=True, split_digits=True,
                 add_dummy_prefix=True, remove_extra_whitespaces=False, allow_whitespace_only_pieces=True,
                 unk_id=0, bos_id=1, eos_id=2, pad_id=-1)


def save(tokenizer: object, folder: Path, **options: object) -> None:
    tok, detok = convert_tokenizer(tokenizer, with_detokenizer=True, **options)
    folder.mkdir(parents=True, exist_ok=True)
    ov.save_model(tok, folder / "openvino_tokenizer.xml")
    ov.save_model(detok, folder / "openvino_detokenizer.xml")


def main() -> None:
    from transformers import AlbertTokenizerFast, LlamaTokenizer, T5Tokenizer, T5TokenizerFast, XLMRobertaTokenizerFast

    with tempfile.TemporaryDirectory() as tmp:
        unigram = Path(tmp, "unigram.model")
        unigram.write_bytes(unigram_model())
        llama = Path(tmp, "llama.model")
        llama.write_bytes(llama_model())

        fast = T5TokenizerFast(vocab_file=str(unigram), extra_ids=0, model_max_length=40)
        save(fast, HERE / "t5-charsmap")

        save(XLMRobertaTokenizerFast(vocab_file=str(unigram), model_max_length=40), HERE / "xlmr-charsmap")
        save(AlbertTokenizerFast(vocab_file=str(unigram), model_max_length=40), HERE / "albert-charsmap")

        slow = T5Tokenizer(vocab_file=str(unigram), extra_ids=0, model_max_length=40, legacy=True)
        save(slow, HERE / "t5-sentencepiece")

        llama_tok = LlamaTokenizer(vocab_file=str(llama), legacy=True, model_max_length=48)
        save(llama_tok, HERE / "llama-sentencepiece")
        _, stream = convert_tokenizer(llama_tok, with_detokenizer=True, streaming_detokenizer=True)
        ov.save_model(stream, HERE / "llama-sentencepiece" / "openvino_stream_detokenizer.xml")
        left = LlamaTokenizer(vocab_file=str(llama), legacy=True, model_max_length=48, padding_side="left")
        save(left, HERE / "llama-sentencepiece-left")


if __name__ == "__main__":
    main()
