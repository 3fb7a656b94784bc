"""Conformance table of BPETokenizer (openvino_tokenizers) against OpenVINO with the
extension loaded: the byte-level BPE of tests/data/tokenizers/bpe, pieces of many
scripts, bytes no token starts, added tokens, both forms of the merges."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
from conformance.harness import Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import ragged_strings, strings  # noqa: E402

_JSON = json.loads((Path(__file__).parents[2] / "data" / "tokenizers" / "bpe" / "tokenizer.json").read_text("utf-8"))
_U2B = {}
for _b, _c in zip(list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256)),
                  list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))):
    _U2B[chr(_c)] = _b
_n = 0
for _b in range(256):
    if _b not in _U2B.values():
        _U2B[chr(256 + _n)] = _b
        _n += 1


def raw(token: str) -> bytes:
    """A byte-level token as the bytes it stands for (the converter writes the vocabulary so)."""
    return bytes(_U2B[c] for c in token)


VOCAB = [b""] * len(_JSON["model"]["vocab"])
for _tok, _id in _JSON["model"]["vocab"].items():
    VOCAB[_id] = raw(_tok) if _tok != "<|endoftext|>" else _tok.encode()
LEFT = [raw(m.split(" ")[0]) for m in _JSON["model"]["merges"]]
RIGHT = [raw(m.split(" ")[1]) for m in _JSON["model"]["merges"]]
ADDED = ["<|endoftext|>", "<extra>"]
ADDED_IDS = np.array([VOCAB.index(b"<|endoftext|>"), len(VOCAB)], np.int32)

PIECES = [["The", " quick", " brown", " fox"], [" tokens", " tokenizer", " Tokens"], [], ["<|endoftext|>", "<extra>"],
          [" héllo", " 日本語", " 👩\u200d👩\u200d👧", " e\u0301"], ["", " ", "  ", "\n\n"], [" supercalifragilistic"]]
ATTRS = {"unk_token": "", "fuse_unk": False, "suffix_indicator": "", "end_suffix": "", "byte_fallback": False,
         "cache_capacity": 20000}


def full(pieces: list[list[str]]) -> list[np.ndarray]:
    return [*ragged_strings(pieces), *strings(VOCAB), *strings(LEFT), *strings(RIGHT), *strings(ADDED), ADDED_IDS]


CONSTS = tuple(range(5, 18))
BPE = OpTable("BPETokenizer", "extension", cases=[
    Case("gpt2-pieces", full(PIECES), attrs=ATTRS, const=CONSTS, dynamic=True),
    # pieces longer than bpe.SHORT_PIECE: longest entries found by the reversed automaton
    Case("long-pieces", full([["The quick brown fox, jumps over the lazy dog. " * 12, " tokenizer" * 40 + "<|endoftext|>" * 3],
                              ["日本語 héllo \xff" * 30]]), attrs=ATTRS, const=CONSTS, dynamic=True),
    Case("one-row", full([[" lazy", " dog", "."]]), attrs=ATTRS, const=CONSTS, dynamic=True,
         expect=[np.array([0], np.int32), np.array([3], np.int32),
                 np.array([VOCAB.index(b" lazy"), VOCAB.index(b" dog"), VOCAB.index(b".")], np.int32)]),
    Case("long-entry", [*ragged_strings([["a" * 300 + "b", "a" * 299 + "c" + "a" * 300, "ab" * 200]]),
                        *strings([b"a", b"b", b"c", b"aa", b"a" * 40 + b"b", b"a" * 280]), *strings([b"a a"])],
         attrs=ATTRS, const=(5, 6, 7, 8, 9, 10), dynamic=True),
    Case("merges-joined-by-space", [*ragged_strings([["abcab", "cabbage", "aaaa"], ["bab"]]),
                                    *strings([b"a", b"b", b"c", b"g", b"e", b"ab", b"ca", b"cab", b"aa", b"aaaa"]),
                                    *strings([b"a b", b"c a", b"ca b", b"a a", b"aa aa"])],
         attrs=ATTRS, const=tuple(range(5, 11)), dynamic=True),
    Case("left-right-merges-no-added", [*ragged_strings(PIECES), *strings(VOCAB), *strings(LEFT), *strings(RIGHT)],
         attrs=ATTRS, const=tuple(range(5, 14)), dynamic=True),
    Case("joined-merges-and-added", [*ragged_strings([["abcab", "<x>", "ab<x>"]]), *strings([b"a", b"b", b"c", b"ab"]),
                                     *strings([b"a b"]), *strings(["<x>"]), np.array([4], np.int32)],
         attrs=ATTRS, const=tuple(range(5, 15)), dynamic=True),
    Case("end-suffix", [*ragged_strings([["low", "lower", "newer"]]),
                        *strings([b"l", b"o", b"w", b"e", b"r", b"n", b"</w>", b"lo", b"low", b"low</w>", b"r</w>", b"er</w>"]),
                        *strings([b"l o", b"lo w", b"low </w>", b"r </w>", b"e r</w>"])],
         attrs={**ATTRS, "end_suffix": "</w>"}, const=tuple(range(5, 11)), dynamic=True),
    Case("bytes-no-token-starts", [*ragged_strings([["ab\x00c", "\xff"]]), *strings([b"a", b"b", b"ab"]),
                                   *strings([b"a"]), *strings([b"b"])], attrs=ATTRS, const=tuple(range(5, 14)),
         dynamic=True),
    Case("unknown-token", [*ragged_strings([["abzq", "zz"]]), *strings([b"<unk>", b"a", b"b", b"ab"]), *strings([b"a b"])],
         attrs={**ATTRS, "unk_token": "<unk>"}, const=tuple(range(5, 11)), dynamic=True),
    Case("byte-fallback", [*ragged_strings([["az", "é"]]), *strings([b"a", b"<0x7A>", b"<0xC3>", b"<0xA9>"]), *strings([])],
         attrs={**ATTRS, "byte_fallback": True}, const=tuple(range(5, 11)), dynamic=True),
], errors=[
    ErrorCase("wrong-count", [*ragged_strings([["a"]]), *strings([b"a"])], attrs=ATTRS, code="wrong-port-count"),
])

test_conformance = conformance([BPE])
