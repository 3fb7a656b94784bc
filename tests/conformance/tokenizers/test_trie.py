"""Conformance table of TrieTokenizer (openvino_tokenizers) against OpenVINO with
the extension loaded: longest match, ties of prefixes, repeated tokens, ids of -1."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import ragged_strings, strings  # noqa: E402

# every byte the texts hold is a token, so each text is covered (the extension loops forever on a byte no token starts)
SINGLE = [bytes([c]) for c in sorted(set(b"abcdehlorw ,!" + "日本".encode()))]
MULTI = [b"hello", b"hell", b"he", b"world", b" w", b"ab", b"abc", b"abcd", "日本".encode(), "日".encode()[:2]]
VOCAB = SINGLE + MULTI
IDS = list(range(100, 100 + len(VOCAB)))


def _trie(inputs: list[np.ndarray], attrs: dict) -> list[np.ndarray]:
    """Greedy longest match over the token table (a later token replaces an earlier one; -1 is no token)."""
    rb, re_, b, e, c, vb, ve, vc, ids = inputs
    raw, vraw = c.tobytes(), vc.tobytes()
    table: dict[bytes, int] = {}
    for x, y, v in zip(vb, ve, ids):
        if y > x:
            table[vraw[x:y]] = int(v)
    table = {k: v for k, v in table.items() if v != -1}
    out, begins, ends = [], [], []
    for r in range(len(rb)):
        begins.append(len(out))
        for k in range(rb[r], re_[r]):
            text, pos = raw[b[k]:e[k]], 0
            while pos < len(text):
                n = max(n for n in range(1, len(text) - pos + 1) if text[pos:pos + n] in table)
                out.append(table[text[pos:pos + n]])
                pos += n
        ends.append(len(out))
    return [np.array(begins, np.int32), np.array(ends, np.int32), np.array(out, np.int32)]


def trie(id_: str, rows: list[list[str]], vocab: list[bytes] = VOCAB, ids: list[int] = IDS, **kw: object) -> Case:
    return Case(id_, [*ragged_strings(rows), *strings(vocab), np.array(ids, np.int32)], const=(5, 6, 7, 8), dynamic=True,
                **kw)  # type: ignore[arg-type]


# The extension sizes the row begins and ends by the number of strings, not of rows, and
# leaves the entries past the rows unwritten: compared only where each row holds one string.
ROWS_NOT_STRINGS = "the extension's row begins and ends have one entry per string, those past the rows uninitialised"

TRIE = OpTable("TrieTokenizer", "extension", reference=_trie, cases=[
    trie("longest-match", [["hello world"], ["abcd"], ["abc"], ["hel"], ["abcabcdab"]]),
    trie("single-bytes", [["dcba"]], expect=[np.array([0], np.int32), np.array([4], np.int32),
                                             np.array([IDS[VOCAB.index(bytes([ch]))] for ch in b"dcba"], np.int32)]),
    trie("multibyte", [["日本日"], ["本"]]),
    trie("empty-strings", [[""], ["he"], [""]]),
    trie("several-strings-a-row", [["hello", " world"], ["abcd", "abc", "hel"]], ov=ROWS_NOT_STRINGS),
    trie("empty-rows", [[], ["he"], []], ov=ROWS_NOT_STRINGS),
    trie("repeated-token-last-wins", [["abab"]], vocab=VOCAB + [b"ab"], ids=IDS + [7]),
    trie("id-minus-one-is-no-token", [["abcd"]], vocab=VOCAB + [b"abcd"], ids=IDS + [-1]),
    trie("empty-token", [["ab"]], vocab=VOCAB + [b""], ids=IDS + [5]),
], errors=[
    ErrorCase("i64-indices", [*ragged_strings([["a"]]), *strings(VOCAB), np.array(IDS, np.int64)], const=(5, 6, 7, 8),
              code="bad-input-type"),
])

test_conformance = conformance([TRIE])
