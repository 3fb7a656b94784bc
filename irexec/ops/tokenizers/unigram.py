"""UnigramTokenizer (openvino_tokenizers): SentencePiece's unigram model, the Viterbi
path of highest summed log-probability (in f32, as the extension sums)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..framework.base import Attr, In, Inference, Op, TensorInfo, require
from ..framework.registry import register
from .ragged import ET_I32, EXTENSION, i32, ragged_out, ragged_strings, rows, string_input, string_list, text_of
from .wordpiece import _trie

_UNK_PENALTY = np.float32(10.0)


def _char_length(lead: int) -> int:
    return (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)[lead >> 4]


@register
class UnigramTokenizer(Op):
    type, version = "UnigramTokenizer", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "unigram (SentencePiece) tokenization: the most probable split of each string into vocabulary pieces"
    inputs = (*ragged_strings(), *string_input("vocab"), In("scores", ("f32",), rank=1))
    outputs = 3
    attributes = {
        "byte_fallback": Attr("bool", False, doc="read by the converter; the extension's search does not use it"),
        "unk_token_id": Attr("int", 0),
        "fuse_unk": Attr("bool", True, doc="consecutive unknown pieces are one (always, as the extension does)"),
        "min_score": Attr("float", float("inf"), doc="unused: the extension takes the vocabulary's lowest score"),
    }

    def infer(self, *infos: TensorInfo) -> Inference:
        return Inference(ragged_out(infos[0].shape, ET_I32))

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        key = hash(tuple(a.tobytes() for a in args[5:9]))
        cached = getattr(self, "_cached", None)
        if cached is None or cached[0] != key:
            tokens = string_list(args[5], args[6], args[7], 5)
            scores = args[8].astype(np.float32).reshape(-1)
            words: dict[bytes, int] = {}
            for idx, token in enumerate(tokens):
                require(bool(token), "bad-value", f"vocabulary piece {idx} is empty (the extension's trie refuses it)", 5)
                words.setdefault(token, idx)
            floor = np.float32(scores.min()) if scores.size else np.float32(np.finfo(np.float32).max)
            cached = self._cached = (key, _trie(words), scores, np.float32(floor - _UNK_PENALTY))
        _, trie, scores, unk_score = cached
        rb, re_, begins, ends, chars = args[:5]
        b, e, raw = text_of(begins, ends, chars, 2)
        out: list[int] = []
        new_rb, new_re = [], []
        for row in rows(rb, re_, len(b)):
            new_rb.append(len(out))
            for col in row:
                out.extend(self._viterbi(trie, scores, unk_score, raw[b[col]:e[col]]))
            new_re.append(len(out))
        return [i32(new_rb).reshape(rb.shape), i32(new_re).reshape(rb.shape), i32(out)]

    def _viterbi(self, trie: dict, scores: np.ndarray, unk_score: np.float32, text: bytes) -> list[int]:
        n = len(text)
        if not n:
            return []
        unk = int(self.unk_token_id)
        best = [np.float32(0)] * (n + 1)
        start_of = [-1] * (n + 1)
        token_of = [unk] * (n + 1)

        def offer(end: int, start: int, token: int, score: np.float32) -> None:
            candidate = np.float32(score + best[start])
            if start_of[end] == -1 or candidate > best[end]:
                best[end], start_of[end], token_of[end] = candidate, start, token

        start = 0
        while start < n:
            step = min(_char_length(text[start]), n - start)
            found = False
            node, pos = trie, start
            while pos < n and text[pos] in node:
                entry = node[text[pos]]
                pos += 1
                if entry[0] != -1:
                    offer(pos, start, entry[0], scores[entry[0]])
                    found = found or pos - start == step
                node = entry[1]
            if not found:
                offer(start + step, start, unk, unk_score)
            start += step
        out: list[int] = []
        at, previous = n, -1
        while at > 0:
            token, at = token_of[at], start_of[at]
            if token == unk and previous == unk:
                continue
            out.append(token)
            previous = token
        return out[::-1]
