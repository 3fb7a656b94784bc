"""WordpieceTokenizer (openvino_tokenizers): BERT's greedy longest-match-first WordPiece."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..framework.base import INTEGRAL, Attr, In, Inference, Op, TensorInfo
from ..framework.registry import register
from .ragged import ET_I32, EXTENSION, i32, ragged_out, ragged_strings, rows, string_input, string_list, text_of


def _trie(words: dict[bytes, int]) -> dict:
    root: dict = {}
    for word, idx in words.items():
        node = root
        for k, byte in enumerate(word):
            entry = node.setdefault(byte, [-1, {}])
            if k == len(word) - 1:
                entry[0] = idx
            node = entry[1]
    return root


def _longest(trie: dict, text: bytes, start: int) -> tuple[int, int]:
    """(token id, end) of the longest entry at ``start``; (-1, start) when none."""
    node, j, found, end = trie, start, -1, start
    while j < len(text) and text[j] in node:
        entry = node[text[j]]
        j += 1
        if entry[0] != -1:
            found, end = entry[0], j
        node = entry[1]
    return found, end


@register
class WordpieceTokenizer(Op):
    type, version = "WordpieceTokenizer", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "each word to its longest vocabulary prefix, then suffix pieces; a word that cannot be covered is unknown"
    inputs = (*ragged_strings(), *string_input("vocab"), In("unk_token_id", INTEGRAL))
    outputs = 3
    attributes = {"suffix_indicator": Attr("str", "##"), "max_bytes_per_word": Attr("int", 100)}

    def infer(self, *infos: TensorInfo) -> Inference:
        return Inference(ragged_out(infos[0].shape, ET_I32))

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        key = hash(tuple(a.tobytes() for a in args[5:8]))
        cached = getattr(self, "_cached", None)
        if cached is None or cached[0] != key:
            suffix = self.suffix_indicator.encode()
            roots: dict[bytes, int] = {}
            subwords: dict[bytes, int] = {}
            for idx, word in enumerate(string_list(args[5], args[6], args[7], 5)):
                if word.startswith(suffix):
                    subwords[word[len(suffix):]] = idx
                else:
                    roots[word] = idx
            cached = self._cached = (key, _trie(roots), _trie(subwords))
        _, root, sub = cached
        unk = int(np.asarray(args[8]).reshape(-1)[0].astype(np.int32))
        rb, re_, begins, ends, chars = args[:5]
        b, e, raw = text_of(begins, ends, chars, 2)
        out: list[int] = []
        new_rb, new_re = [], []
        for row in rows(rb, re_, len(b)):
            new_rb.append(len(out))
            for col in row:
                word = raw[b[col]:e[col]]
                if len(word) > self.max_bytes_per_word:
                    out.append(unk)
                    continue
                first, at = _longest(root, word, 0)
                if first == -1:
                    out.append(unk)
                    continue
                start = len(out)
                out.append(first)
                while at < len(word):
                    token, at2 = _longest(sub, word, at)
                    if token == -1:
                        del out[start + 1:]
                        out[start] = unk
                        break
                    out.append(token)
                    at = at2
            new_re.append(len(out))
        return [i32(new_rb).reshape(rb.shape), i32(new_re).reshape(rb.shape), i32(out)]
