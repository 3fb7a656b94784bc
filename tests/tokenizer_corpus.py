"""A deterministic corpus of hard strings for tokenizers: many scripts, whitespace
runs, combining marks, emoji, characters NFKC rewrites, special tokens inside text, empty
strings."""

from __future__ import annotations

import numpy as np

FRAGMENTS = [
    "", " ", "  ", "\t", "\n", "\r\n", "   \n\n  ", "\u00a0", "\u3000", "\u2028", "\u200b", "\x0b", "\x0c",
    "The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "tokens", "Hello", "world", "OpenVINO",
    "2024", "3.14", "1,000,000", "x", "don't", "it's", "we're", "I'll", "they've", "I'd", "I'm",
    "!", "?", ".", ",", ";", ":", "...", "--", "(", ")", "[", "]", "{", "}", "\"", "'", "#", "@", "$", "%", "&", "*", "_",
    "héllo", "wörld", "naïve", "café", "Ærøskøbing", "straße", "İstanbul", "ǅ",
    "日本語", "テキスト", "中文字符", "한국어", "Русский", "Ελληνικά", "עברית", "مرحبا", "हिन्दी", "ไทย", "ქართული",
    "e\u0301", "a\u0308\u0304", "n\u0303", "\u0301", "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334",
    "😀", "👍🏽", "👩‍👩‍👧", "🇯🇵", "❤️", "🏳️‍🌈", "⚽",
    "Ω≈ç√∫", "½", "²", "①", "Ⅻ", "٣", "߁",
    # what NFKC changes: full-width and half-width forms, ligatures, compatibility characters
    "ＡＢＣ１２３", "ｈｅｌｌｏ", "ﬁne", "ﬂow", "ｶﾀｶﾅ", "™", "…", "\u212b", "ǆ", "\u2460\u2461", "\u33a1",
    # CJK punctuation and symbols that list Han (Hiragana, ...) among their script extensions; marks out of order
    "平成㍻", "東京、大阪。", "〆切", "e\u0301\u0327",
]
SPECIALS = ["<|endoftext|>", "[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]", "<s>", "</s>", "<unk>", "<pad>"]


def corpus(count: int = 520, seed: int = 0, specials: list[str] | None = None) -> list[str]:
    """``count`` strings, each 0..12 fragments joined by nothing, a space or a run of spaces."""
    rng = np.random.default_rng(seed)
    pool = FRAGMENTS + (specials if specials is not None else SPECIALS)
    out = ["", " ", "a", "  leading and trailing  ", "\n", "x" * 200]
    while len(out) < count:
        parts = [pool[i] for i in rng.integers(0, len(pool), int(rng.integers(0, 13)))]
        joins = [["", " ", "  ", "\n"][j] for j in rng.integers(0, 4, len(parts))]
        out.append("".join(p + j for p, j in zip(parts, joins)))
    return out
