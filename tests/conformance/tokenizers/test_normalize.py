"""Conformance tables of RegexNormalization, CharsMapNormalization, CaseFold and
NormalizeUnicode (openvino_tokenizers) against OpenVINO with the extension loaded,
and CharsMapNormalization on every Unicode code point."""

from __future__ import annotations

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
pytest.importorskip("openvino_tokenizers")
pytest.importorskip("pcre2")
from conformance.harness import OV_TYPE_UNCHECKED, OV_VALUE_UNCHECKED, Case, ErrorCase, OpTable, conformance  # noqa: E402
from conformance.tokenizers.ragged_inputs import pattern, strings  # noqa: E402

# decomposed sequences the composing charsmaps compose, or (marks out of order, a mark on a
# composed letter, jamo) leave as NFC would not
COMPOSING = ["e\u0301", "A\u030a \u212b", "e\u0301\u0327", "\u0227\u0301", "\u1100\u1161\u11a8 \u1100\u1161",
             "o\u0308\u0304 \u00f6\u0304", "\u0344 \u0308\u0301", "\u1e9b\u0323", "ﬁ ＡＢＣ ① ㍻ ½ ẛ̣"]
HARD = ["", "  many   spaces  ", "Tab\tNew\nLine", "HÉLLO Wörld", "日本語テキスト中文", "مرحبا", "e\u0301\u0327x",
        "👩‍👩‍👧 Family", "İstanbul ẞ ß ﬁ ŉ", "ctrl\x01\x7f\u200bchars", "Ω Å K", "ǅ ǈ", "\u00a0\u3000\u2028"]
BYTES = [b"a\xffb", b"\xc3", b"x\xe2\x98", b"\xc0\x80", b"\xed\xa0\x80z", b"a\x00b"]


def regex_norm(id_: str, items: list[str | bytes], search: str, replace: str, skips: list[int] | None = None,
               global_replace: bool = True, **kw: object) -> Case:
    inputs = strings(items)
    if skips is not None:
        flags = np.zeros(len(items), bool)
        flags[skips] = True
        inputs.append(flags)
    inputs += [pattern(search), pattern(replace)]
    n = len(inputs)
    return Case(id_, inputs, attrs={"global_replace": global_replace}, const=(n - 2, n - 1), dynamic=True, **kw)  # type: ignore[arg-type]


REGEX_NORMALIZATION = OpTable("RegexNormalization", "extension", cases=[
    regex_norm("bert-control-chars", HARD, r"([\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\p{Cf}])", ""),
    regex_norm("bert-whitespace", HARD, r"\s", " "),
    regex_norm("bert-han", HARD, r"([\p{Han}])", " $1 "),
    regex_norm("strip-accents", HARD, r"\p{Mn}", ""),
    regex_norm("backslash-group", ["abc", "xbx"], r"(b)", r"<\1>"),
    regex_norm("first-only", ["a a a", "b"], "a", "x", global_replace=False,
               expect=[np.array([0, 5], np.int32), np.array([5, 6], np.int32), np.frombuffer(b"x a ab", np.uint8)]),
    regex_norm("empty-matches", ["abc", "", "日本"], "x*", "-"),
    regex_norm("metaspace-prepend", ["hello", "", " x"], "(^)(.)", "▁$2"),
    regex_norm("strip-both", ["  a b  ", "x\n", "\n\n", "", " \t ", "a \nb \n"], r"^\s*|\s*$", ""),
    regex_norm("rstrip-space", ["x ", "x  ", "x \n", " "], " $", ""),
    regex_norm("dollar-before-final-newline", ["a\n", "a\nb", "aa"], "a$", "Z"),
    regex_norm("with-skips", ["a b", "[CLS] c", "d e"], " ", "_", skips=[1]),
    regex_norm("invalid-utf8", BYTES, "a", "A"),
    # constructs only a backtracking engine has: PCRE2 runs them as OpenVINO's PCRE2 does
    regex_norm("dollar-inside", ["ac", "bc", "a\nc"], "(a$|b)c", "x"),
    regex_norm("branch-reset", ["ab", "ba"], "(?|(a)|(b))", "<$1>"),
    regex_norm("lookbehind", ["ab", "cb", "aab"], "(?<=a)b", "X"),
    regex_norm("word-boundary", ["a bc", "x"], r"\b", "|"),
    regex_norm("lookahead-inside", ["a+b", "aab"], "a(?!b)|b", "_"),
    regex_norm("code-point-escape", ["\u2581x", "x"], r"\x{2581}", " "),
], errors=[
    ErrorCase("not-pcre2", [*strings(["a"]), pattern("(a"), pattern("x")], const=(3, 4), code="unsupported-regex",
              ov="OpenVINO's extension compiles no code for it and leaves every string as it is"),
    ErrorCase("pattern-i32", [*strings(["a"]), np.zeros(2, np.int32), pattern("x")], code="bad-input-type"),
])

CHARSMAP_ATTRS = {"add_dummy_prefix": False, "remove_extra_whitespaces": False, "escape_whitespaces": False, "nmt": False}


def charsmap(id_: str, items: list[str | bytes], form: str, case_fold: bool, skips: bool = False, **kw: object) -> Case:
    inputs = strings(items) + ([np.arange(len(items)) % 2 == 0] if skips else [])
    return Case(id_, inputs, attrs={"normalization_form": form, "case_fold": case_fold, **CHARSMAP_ATTRS}, dynamic=True,
                **kw)  # type: ignore[arg-type]


def model_charsmap() -> np.ndarray:
    """The precompiled charsmap (sentencepiece's nmt_nfkc) of tests/data/tokenizers/t5-charsmap."""
    from conformance.tokenizers.test_sentencepiece_ops import DATA, model_const

    assert (DATA / "t5-charsmap").is_dir()
    return model_const("t5-charsmap")


# what NFKC and sentencepiece's whitespace handling change
SPM_TEXT = ["ＡＢＣ１２３ ｈｅｌｌｏ", "ﬁne ﬂow ① ½ ² ™ … \u212b ǆ \u33a1", "ｶﾀｶﾅ ｶﾞ", "  many   spaces  ", " ", "   ",
            "\t\n x \u3000y\u00a0", "\u200bzero\u200dwidth\ufeff", "e\u0301 a\u0308\u0304"]


def spm_norm(id_: str, items: list[str | bytes], flags: tuple[bool, bool, bool], skips: bool = False, **kw: object) -> Case:
    inputs = strings(items) + ([np.arange(len(items)) % 3 == 0] if skips else [])
    inputs.append(model_charsmap())
    dummy, remove, escape = flags
    attrs = {"normalization_form": "", "case_fold": False, "add_dummy_prefix": dummy, "remove_extra_whitespaces": remove,
             "escape_whitespaces": escape, "nmt": False}
    return Case(id_, inputs, attrs=attrs, const=(len(inputs) - 1,), dynamic=True, **kw)  # type: ignore[arg-type]


def whitespace(id_: str, items: list[str | bytes], form: str, fold: bool, flags: tuple[bool, bool, bool]) -> Case:
    dummy, remove, escape = flags
    attrs = {"normalization_form": form, "case_fold": fold, "add_dummy_prefix": dummy, "remove_extra_whitespaces": remove,
             "escape_whitespaces": escape, "nmt": False}
    return Case(id_, strings(items), attrs=attrs, dynamic=True)


CHARSMAP = OpTable("CharsMapNormalization", "extension", cases=[
    spm_norm("model-charsmap", HARD + SPM_TEXT + BYTES, (False, True, False)),
    spm_norm("model-charsmap-sentencepiece-flags", HARD + SPM_TEXT + BYTES, (True, True, True)),
    spm_norm("model-charsmap-keep-spaces", HARD + SPM_TEXT + BYTES, (True, False, True)),
    spm_norm("model-charsmap-no-flags", HARD + SPM_TEXT, (False, False, False)),
    spm_norm("model-charsmap-skips", HARD + SPM_TEXT, (True, True, True), skips=True),
    spm_norm("hand-worked-nfkc", ["ＡＢ  ﬁ ", ""], (True, True, True),
             expect=[np.array([0, 10], np.int32), np.array([10, 10], np.int32), np.frombuffer("▁AB▁fi".encode(), np.uint8)]),
    whitespace("nfd-casefold-strip", HARD + SPM_TEXT + BYTES, "nfd", True, (False, True, False)),
    whitespace("nfkd-all-flags", HARD + SPM_TEXT + BYTES, "nfkd", False, (True, True, True)),
    whitespace("casefold-escape", HARD + SPM_TEXT, "identity", True, (True, False, True)),
    charsmap("nfd-casefold", HARD + BYTES, "nfd", True),
    charsmap("nfkd", HARD, "nfkd", False),
    charsmap("nfkd-casefold", HARD + BYTES, "nfkd", True),
    charsmap("casefold-only", HARD, "identity", True),
    charsmap("nfc", HARD + COMPOSING + BYTES, "nfc", False),
    charsmap("nfkc-casefold", HARD + COMPOSING + BYTES, "nfkc", True),
    whitespace("nfkc-all-flags", HARD + COMPOSING + SPM_TEXT, "nfkc", False, (True, True, True)),
    whitespace("nfc-casefold-strip", HARD + COMPOSING, "nfc", True, (False, True, False)),
    charsmap("with-skips", HARD, "nfd", True, skips=True),
    charsmap("hand-worked", ["ÅΩẞ", "e\u0301\u0327"], "nfd", True,
             expect=[np.array([0, 7], np.int32), np.array([7, 12], np.int32),
                     np.frombuffer("a\u030aωße\u0301\u0327".encode(), np.uint8)]),
], errors=[
    ErrorCase("identity-without-case-fold", strings(["a"]), attrs={"normalization_form": "identity", "case_fold": False,
                                                                  **CHARSMAP_ATTRS}, code="bad-attribute", ov=OV_VALUE_UNCHECKED),
    ErrorCase("no-charsmap", strings(["a"]), attrs={"normalization_form": "", "case_fold": False, **CHARSMAP_ATTRS},
              code="wrong-port-count", ov="OpenVINO's shape inference accepts it; its run reads a fourth input that is not there"),
    ErrorCase("charsmap-i32", [*strings(["a"]), np.zeros(4, np.int32)], const=(3,),
              attrs={"normalization_form": "", "case_fold": False, **CHARSMAP_ATTRS}, code="bad-input-type", ov=OV_TYPE_UNCHECKED),
    ErrorCase("broken-charsmap", [*strings(["a"]), np.frombuffer(b"garbage!!", np.uint8).copy()], const=(3,),
              attrs={"normalization_form": "", "case_fold": False, **CHARSMAP_ATTRS}, code="bad-value",
              ov="OpenVINO's extension ignores sentencepiece's refusal and outputs whatever its buffers hold"),
])

test_conformance = conformance([REGEX_NORMALIZATION, CHARSMAP])


@pytest.mark.parametrize(("op", "attrs"), [("NormalizeUnicode", {"normalization_form": "NFC"}),
                                           ("NormalizeUnicode", {"normalization_form": "NFKC"}),
                                           ("CharsMapNormalization", {"normalization_form": "nfkc", "case_fold": True,
                                                                      **CHARSMAP_ATTRS})],
                         ids=["nfc", "nfkc", "nfkc-casefold"])
def test_composing_charsmaps_match_openvino_on_every_code_point_and_decomposition(op, attrs):
    """Every assigned code point alone, every one's NFD and (a third of) NFKD spelled out,
    and random runs of letters and combining marks: composition by the extension's
    sequence maps, not Unicode's NFC (marks are not reordered)."""
    import random
    import unicodedata

    from openvino import opset15
    from openvino_tokenizers import _get_factory

    from irexec.ops.tokenizers import normalize

    cps = [c for c in range(1, 0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs")]
    marks = [c for c in cps if unicodedata.combining(chr(c))]
    rng = random.Random(7)
    texts = [chr(c) for c in cps] + [unicodedata.normalize("NFD", chr(c)) for c in cps]
    texts += [unicodedata.normalize("NFKD", chr(c)) for c in cps[::3]]
    texts += ["".join(chr(rng.choice(cps[:3000] if rng.random() < 0.5 else marks)) for _ in range(rng.randint(2, 6)))
              for _ in range(5000)]
    data = [t.encode() for t in texts] + [b"\xff\xfea\xcc\x81", b"e\xcc", b"\xe1\x84\x80\xe1"]
    p = opset15.parameter([-1], ov.Type.string)
    n = _get_factory().create(op, opset15.string_tensor_unpack(p).outputs(), attrs).outputs()
    request = ov.Core().compile_model(ov.Model([opset15.string_tensor_pack(*n[:3]).output(0)], [p]), "CPU").create_infer_request()
    request.infer([ov.Tensor(np.array(data))])
    out = request.get_output_tensor(0)
    cls = getattr(normalize, op)
    ours = {k: (v.lower() if k == "normalization_form" else v) for k, v in attrs.items()}
    b, e, chars = cls(attrs=ours).run(*strings(data))
    raw = chars.tobytes()
    differ = [(t, raw[x:y], bytes(w)) for t, x, y, w, s in zip(data, b.tolist(), e.tolist(), out.bytes_data, out.str_data)
              if raw[x:y] != (bytes(w) if s else b"")]
    assert not differ, f"{len(differ)} of {len(data)} strings differ, first {differ[:3]}"


def test_charsmap_matches_openvino_on_every_code_point():
    """NFD and simple case folding per character: the charsmap the extension compiled in."""
    import unicodedata

    from openvino import opset15
    from openvino_tokenizers import _get_factory

    import irexec
    from irexec.ops.tokenizers.normalize import _charmap

    cps = [c for c in range(1, 0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs")]
    mismatches = []
    for form, fold in (("nfd", True), ("nfkd", False), ("identity", True)):
        p = opset15.parameter([-1], ov.Type.string)
        attrs = {"normalization_form": form, "case_fold": fold, **CHARSMAP_ATTRS}
        n = _get_factory().create("CharsMapNormalization", opset15.string_tensor_unpack(p).outputs(), attrs).outputs()
        compiled = ov.Core().compile_model(ov.Model([opset15.string_tensor_pack(*n[:3]).output(0)], [p]), "CPU")
        request = compiled.create_infer_request()
        request.infer([ov.Tensor(np.array([chr(c).encode() for c in cps]))])
        out = request.get_output_tensor(0)
        ours = _charmap(form, fold)
        for c, raw, text in zip(cps, out.bytes_data, out.str_data):
            want = bytes(raw) if text else b""
            if ours(chr(c).encode()) != want:
                mismatches.append((form, hex(c), want))
    assert irexec and not mismatches, f"{len(mismatches)} code points differ, first {mismatches[:5]}"


# Code points whose class differs between the Unicode of the extension's PCRE2 and the newer
# one of the pcre2 binding: U+0320 gained Script_Extensions in Unicode 16, so it is no longer
# outside Latin to PCRE2 10.47 (docs/strings-and-tokenizers.md)
RECLASSIFIED = {0x320}


@pytest.mark.parametrize("pattern_text", [r"\s", r"\p{L}", r"[^\s\p{L}\p{N}]", r"\p{P}", r"\d", r"\p{Han}",
                                          r"[\p{Hiragana}\p{Katakana}\p{Hangul}]", r"\P{Latin}", r"[^\p{Greek}\p{Cyrillic}]",
                                          r"[\P{Han}a]", r"\w", r"\W"])
def test_classes_match_openvino_on_every_assigned_code_point(pattern_text):
    """PCRE2's UCP classes on every code point Python assigns, as OpenVINO's PCRE2 matches them.
    A script takes in the characters that list it among their Script_Extensions (``、`` is Han)."""
    import unicodedata

    from openvino import opset15
    from openvino_tokenizers import _get_factory

    from irexec.ops.tokenizers.normalize import substitute
    from irexec.ops.tokenizers.regex_engine import compiled

    # every code point Python's Unicode assigns, private use aside (the others are where versions differ)
    cps = [c for c in range(1, 0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs")]
    p = opset15.parameter([-1], ov.Type.string)
    consts = [opset15.constant(pattern(pattern_text)).output(0), opset15.constant(pattern("#")).output(0)]
    n = _get_factory().create("RegexNormalization", [*opset15.string_tensor_unpack(p).outputs(), *consts],
                              {"global_replace": True}).outputs()
    compiled_model = ov.Core().compile_model(ov.Model([opset15.string_tensor_pack(*n[:3]).output(0)], [p]), "CPU")
    request = compiled_model.create_infer_request()
    request.infer([ov.Tensor(np.array([chr(c).encode() for c in cps]))])
    out = request.get_output_tensor(0)
    regex = compiled(pattern_text.encode())
    differ = [c for c, raw, text in zip(cps, out.bytes_data, out.str_data)
              if substitute(regex, chr(c).encode(), b"#", True) != (bytes(raw) if text else b"")]
    assigned = [hex(c) for c in differ if c not in RECLASSIFIED]
    assert not assigned, f"{len(assigned)} assigned code points differ: {assigned[:10]}"


CASE_FOLD = OpTable("CaseFold", "extension", cases=[
    Case("utf-8", strings(HARD + BYTES), attrs={"encoding": "utf-8", "lower": True}, dynamic=True),
    Case("utf-8-skips", [*strings(HARD[:4]), np.array([True, False, True, False])], attrs={"encoding": "utf-8", "lower": True},
         dynamic=True),
    Case("ascii-lower", strings(HARD + BYTES), attrs={"encoding": "", "lower": True}, dynamic=True),
], errors=[
    ErrorCase("utf-8-upper", strings(["a"]), attrs={"encoding": "utf-8", "lower": False}, code="bad-attribute"),
])

NORMALIZE_UNICODE = OpTable("NormalizeUnicode", "extension", cases=[
    Case("nfd", strings(HARD + BYTES), attrs={"normalization_form": "NFD"}, dynamic=True),
    Case("nfc", strings(HARD + COMPOSING + BYTES), attrs={"normalization_form": "NFC"}, dynamic=True),
    Case("nfkc-skips", [*strings(COMPOSING[:4]), np.array([False, True, False, False])], attrs={"normalization_form": "NFKC"},
         dynamic=True),
    Case("nfkd-skips", [*strings(HARD[:4]), np.array([False, True, False, True])], attrs={"normalization_form": "NFKD"},
         dynamic=True),
])

test_more = conformance([CASE_FOLD, NORMALIZE_UNICODE])


@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True)], ids=["no-flags", "sentencepiece-flags"])
def test_model_charsmap_matches_openvino_on_every_code_point(flags):
    """A model's precompiled charsmap (nmt_nfkc) on every assigned code point, alone and
    between spaces (the whitespace options at work)."""
    import unicodedata

    from openvino import opset15
    from openvino_tokenizers import _get_factory

    from irexec.ops.tokenizers.normalize import CharsMapNormalization

    cps = [c for c in range(1, 0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs")]
    texts = [chr(c).encode() for c in cps] + [f" {chr(c)}  x ".encode() for c in cps[::7]]
    dummy, remove, escape = flags
    attrs = {"normalization_form": "", "case_fold": False, "add_dummy_prefix": dummy, "remove_extra_whitespaces": remove,
             "escape_whitespaces": escape, "nmt": False}
    p = opset15.parameter([-1], ov.Type.string)
    cm = opset15.constant(model_charsmap()).output(0)
    n = _get_factory().create("CharsMapNormalization", [*opset15.string_tensor_unpack(p).outputs(), cm], attrs).outputs()
    request = ov.Core().compile_model(ov.Model([opset15.string_tensor_pack(*n[:3]).output(0)], [p]), "CPU").create_infer_request()
    request.infer([ov.Tensor(np.array(texts))])
    out = request.get_output_tensor(0)
    b, e, chars = CharsMapNormalization(attrs=attrs).run(*strings(texts), model_charsmap())
    raw = chars.tobytes()
    differ = [(t, raw[x:y], bytes(w)) for t, x, y, w, s in zip(texts, b.tolist(), e.tolist(), out.bytes_data, out.str_data)
              if raw[x:y] != (bytes(w) if s else b"")]
    assert not differ, f"{len(differ)} strings differ, first {differ[:3]}"
