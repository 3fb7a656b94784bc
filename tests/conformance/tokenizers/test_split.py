"""Conformance tables of SpecialTokensSplit and RegexSplit (openvino_tokenizers),
against OpenVINO with the extension loaded.  Patterns are those the converter writes
(GPT-2's pre-tokenizer, BERT's whitespace and punctuation, special tokens)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino_tokenizers")
pytest.importorskip("pcre2")
from conformance.harness import Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import BERT_PUNCT, GPT2_SPLIT, pattern, ragged_strings, strings  # noqa: E402

SPECIALS = r"(\<\|endoftext\|\>|\[SEP\]|\[CLS\])"
STRIPPED = r"(?:\s*)(\[MASK\])(?:\s*)|(\<s\>)"
HARD = ["", " ", "  many   spaces  ", "tab\tand\nnewline", "héllo wörld", "日本語テキスト", "مرحبا بالعالم", "e\u0301\u0301x",
        "👩‍👩‍👧 family 🇯🇵", "it's we're I'll", "3.14 and 2024!", "\u00a0nbsp\u3000ideographic\u2028sep", "a\u0085b"]
SHAPES_DIFFER = ("the extension declares the skip flags with the input strings' shape, which a run outgrows; "
                 "irexec declares [?] (docs/strings-and-tokenizers.md)")


def flags(n: int, true_at: tuple[int, ...] = ()) -> np.ndarray:
    out = np.zeros(n, bool)
    out[list(true_at)] = True
    return out


INSIDE = ragged_strings([["Hello<|endoftext|>world", "[CLS] a [SEP]"], ["<|endoftext|><|endoftext|>"]])
SPLIT_SPECIAL = OpTable("SpecialTokensSplit", "extension", cases=[
    Case("inside-text", [*INSIDE, pattern(SPECIALS)], const=(5,), ov_shapes=SHAPES_DIFFER, dynamic=True,
         expect=[np.array([0, 6], np.int32), np.array([6, 8], np.int32), np.array([0, 5, 18, 23, 28, 31, 36, 49], np.int32),
                 np.array([5, 18, 23, 28, 31, 36, 49, 62], np.int32), INSIDE[4], flags(8, (1, 3, 5, 6, 7))]),
    Case("no-special", [*ragged_strings([HARD]), pattern(SPECIALS)], const=(5,), ov_shapes=SHAPES_DIFFER, dynamic=True),
    # all constant and nothing to split: irexec's folded shapes are then OpenVINO's declared ones
    Case("constant-no-special", [*ragged_strings([["plain", "text"], ["x"]]), pattern(SPECIALS)], const=tuple(range(6))),
    Case("stripping-groups", [*ragged_strings([["a  [MASK]  b", "[MASK]", "x<s>y", "  [MASK]"]]), pattern(STRIPPED)],
         const=(5,), ov_shapes=SHAPES_DIFFER, dynamic=True),
    Case("unequal-rows", [*ragged_strings([["[SEP]"], [], ["a", "", "[CLS]b[SEP]"], HARD[:4]]), pattern(SPECIALS)],
         const=(5,), ov_shapes=SHAPES_DIFFER, dynamic=True),
    Case("with-skips", [*ragged_strings([["x[SEP]y", "[CLS]", "z[CLS]"]]), flags(3, (1,)), pattern(SPECIALS)],
         const=(6,), ov_shapes=SHAPES_DIFFER, dynamic=True,
         ov="OpenVINO CPU crashes (segmentation fault) compiling SpecialTokensSplit with skip flags; the converter "
            "never writes that form", expect=[np.array([0], np.int32), np.array([6], np.int32),
                                           np.array([0, 1, 6, 7, 12, 13], np.int32), np.array([1, 6, 7, 12, 13, 18], np.int32)]),
], errors=[
    ErrorCase("pattern-i32", [*ragged_strings([["a"]]), np.zeros(3, np.int32)], code="bad-input-type"),
])


def regex_case(id_: str, rows: list[list[str]], pat: str, skips: np.ndarray | None = None, **attrs: object) -> Case:
    """Without skip flags, one string a row: the extension then reads a flag per row for each string
    (past its buffer when a row holds more), and the converter always writes one string a row there."""
    if skips is None:
        rows = [[s] for row in rows for s in row]
    inputs = [*ragged_strings(rows)] + ([skips] if skips is not None else []) + [pattern(pat)]
    return Case(id_, inputs, attrs={"behaviour": "isolate", "invert": False, "max_splits": -1, **attrs},
                const=(len(inputs) - 1,), dynamic=True)


REGEX_SPLIT = OpTable("RegexSplit", "extension", cases=[
    regex_case("gpt2-hard", [HARD], GPT2_SPLIT),
    regex_case("gpt2-space-runs", [["a  b", "a   ", "   a", " \n\n x", "x\u00a0\u00a0y", "end  "]], GPT2_SPLIT),
    regex_case("gpt2-contractions", [["don't it's we're I'LL they've I'd I'm", "''s"]], GPT2_SPLIT),
    regex_case("bert-whitespace-remove", [HARD, ["a b"]], r"\s+", behaviour="remove"),
    regex_case("bert-punct-isolate", [["Hello, world! (x) 中文 a--b"]], BERT_PUNCT),
    regex_case("merged-with-previous", [["a-b-c", "-x-", "--"]], "-", behaviour="mergedwithprevious"),
    regex_case("merged-with-next", [["a-b-c", "-x-", "--"]], "-", behaviour="mergedwithnext"),
    regex_case("contiguous", [["a111b22c3", "1"]], r"\d", behaviour="contiguous"),
    regex_case("invert-remove", [["ab12cd3", "x"]], r"\p{L}+", behaviour="remove", invert=True),
    regex_case("max-splits", [["a b c d e"]], " ", behaviour="remove", max_splits=2),
    regex_case("word-boundary", [["a bx", "x"]], r"\bx", behaviour="remove"),
    regex_case("lookbehind", [["a b", "ab cb"]], r"(?<=a)b", behaviour="remove"),
    regex_case("lookahead-not-last", [["aab ab", "ba"]], r"a(?!b)|b"),
    regex_case("scripts", [["漢字、〆 かな カナ 한글", "㍻x"]], r"\p{Han}+|\p{Hiragana}+"),
    Case("with-skips", [*ragged_strings([["a b", "<s> x", "c d"], ["e  f"]]), flags(4, (1,)), pattern(r"\s+")],
         attrs={"behaviour": "remove"}, const=(6,), dynamic=True, ov_shapes=SHAPES_DIFFER),
    Case("legacy-skip-tokens", [*ragged_strings([["a b"], ["<s>"], ["c <s> d"]]), pattern(r"\s+"),
                                *strings(["<s>", "</s>"])], attrs={"behaviour": "remove"}, const=(5, 6, 7, 8), dynamic=True),
    Case("no-bytes-at-all", [*ragged_strings([[""], [""]]), pattern(r"\s+")], attrs={"behaviour": "remove"}, const=(5,),
         dynamic=True, ov_shapes="with no bytes the extension answers one row, not the declared batch: irexec infers [?]",
         expect=[np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(2, np.int32), np.zeros(2, np.int32),
                 np.zeros(0, np.uint8)]),
], errors=[
    ErrorCase("not-pcre2", [*ragged_strings([["a b"]]), pattern(r"a{2,1}")], attrs={"behaviour": "remove"}, const=(5,),
              code="unsupported-regex", ov="OpenVINO's extension compiles no code for it and splits nothing"),
    ErrorCase("max-splits-zero", [*ragged_strings([["a b"]]), pattern(" ")], attrs={"max_splits": 0}, code="bad-attribute"),
    ErrorCase("unknown-behaviour", [*ragged_strings([["a b"]]), pattern(" ")], attrs={"behaviour": "shuffle"},
              code="bad-attribute"),
])

test_conformance = conformance([SPLIT_SPECIAL, REGEX_SPLIT])
