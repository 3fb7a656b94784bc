"""TrieTokenizer (openvino_tokenizers): each string cut greedily into the longest
vocabulary tokens, left to right (the RWKV "world" tokenizer)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.errors import shorten
from ..framework.base import In, Inference, Op, TensorInfo, op_error, require
from ..framework.registry import register
from .ragged import ET_I32, EXTENSION, I32, i32, ragged_out, ragged_strings, rows, string_input, string_list, text_of


def _vocabulary(tokens: list[bytes], ids: np.ndarray) -> tuple[dict[bytes, int], list[int]]:
    """token -> id, as the extension's trie holds it: a later token replaces an
    earlier one of the same bytes, an id of -1 marks no token, and the empty
    token is never matched.  Also the token lengths there are, longest first."""
    table: dict[bytes, int] = {}
    for token, value in zip(tokens, ids.reshape(-1).tolist()):
        if token:
            table[token] = value
    table = {t: v for t, v in table.items() if v != -1}
    return table, sorted({len(t) for t in table}, reverse=True)


@register
class TrieTokenizer(Op):
    type, version = "TrieTokenizer", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "each string of a ragged tensor cut into the longest vocabulary tokens, left to right"
    inputs = (*ragged_strings(), *string_input("vocab"), In("indices", I32))
    outputs = 3

    def infer(self, *infos: TensorInfo) -> Inference:
        return Inference(ragged_out(infos[0].shape, ET_I32))

    def compute(self, plan: None, rb: np.ndarray, re_: np.ndarray, begins: np.ndarray, ends: np.ndarray, chars: np.ndarray,
                vb: np.ndarray, ve: np.ndarray, vc: np.ndarray, indices: np.ndarray) -> Sequence[np.ndarray]:
        require(vb.size == indices.size, "bad-value",
                f"the vocabulary has {vb.size} tokens but indices {indices.size} values", 8)
        table, lengths = _vocabulary(string_list(vb, ve, vc, 5), indices)
        b, e, raw = text_of(begins, ends, chars, 2)
        out: list[int] = []
        new_begins, new_ends = [], []
        for row in rows(rb, re_, len(b)):
            new_begins.append(len(out))
            for k in row:
                text = raw[b[k]:e[k]]
                pos = 0
                while pos < len(text):
                    for n in lengths:
                        value = table.get(text[pos:pos + n]) if pos + n <= len(text) else None
                        if value is not None:
                            out.append(value)
                            pos += n
                            break
                    else:
                        # the extension loops forever here: no token starts with this byte
                        raise op_error(f"no vocabulary token matches string {k} at byte {pos} "
                                       f"({shorten(text[pos:pos + 16])})", "bad-value", 2)
            new_ends.append(len(out))
        return [i32(new_begins).reshape(rb.shape), i32(new_ends).reshape(rb.shape), i32(out)]
