"""Tokenizer ops in linear or bounded time, whatever the text and the vocabulary
(docs/strings-and-tokenizers.md, "Time"): a regex with a lookahead and BPE with
one very long vocabulary entry, each on a text ten times longer, cost about ten
times as much (bound: 30x CPU time, cheapest of a few runs, as
tests/security/test_linear_time.py measures).  A pattern that backtracks without
bound stops at PCRE2's match limit with a coded error."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from cpu_time import assert_linear

import irexec
from irexec.model.builder import IRBuilder, Out

pytest.importorskip("pcre2")

SCALE = 10
MAX_RATIO = 30


def _assert_linear(make: Callable[[int], Callable[[], object]], small: int) -> None:
    assert_linear(make, small, scale=SCALE, max_ratio=MAX_RATIO, floor=2e-3, what="text")


def _u8(text: bytes) -> np.ndarray:
    return np.frombuffer(text, np.uint8).copy()


def _string_list(b: IRBuilder, items: list[bytes]) -> list[Out]:
    ends = np.cumsum([len(s) for s in items]).astype(np.int32)
    begins = (ends - np.array([len(s) for s in items], np.int32)).astype(np.int32)
    return [b.const(begins), b.const(ends), b.const(_u8(b"".join(items)))]


def _unpacked(b: IRBuilder) -> list[Out]:
    text = b.parameter("text", [1], "string")
    return b.outputs_of(b.layer("StringTensorUnpack", "opset15", [text]))


def _normalization_model(path: Path, pattern: bytes) -> Path:
    b = IRBuilder()
    begins, ends, chars = _unpacked(b)
    norm = b.layer("RegexNormalization", "extension", [begins, ends, chars, b.const(_u8(pattern)), b.const(_u8(b"x"))],
                   {"global_replace": "true"})
    b.result(b.layer("StringTensorPack", "opset15", b.outputs_of(norm)[:3]), name="out")
    xml, _ = b.write(path)
    return Path(xml)


def _split_model(path: Path, pattern: bytes) -> Path:
    b = IRBuilder()
    begins, ends, chars = _unpacked(b)
    rows = [b.const(np.array([0], np.int32)), b.const(np.array([1], np.int32))]
    split = b.layer("RegexSplit", "extension", [*rows, begins, ends, chars, b.const(_u8(pattern))],
                    {"behaviour": "isolate", "invert": "false", "max_splits": "-1"})
    b.result(b.outputs_of(split)[3], name="ends")
    xml, _ = b.write(path)
    return Path(xml)


def _bpe_model(path: Path, vocab: list[bytes], merges: list[bytes]) -> Path:
    b = IRBuilder()
    begins, ends, chars = _unpacked(b)
    rows = [b.const(np.array([0], np.int32)), b.const(np.array([1], np.int32))]
    bpe = b.layer("BPETokenizer", "extension", [*rows, begins, ends, chars, *_string_list(b, vocab),
                                                *_string_list(b, merges)],
                  {"unk_token": "", "fuse_unk": "false", "suffix_indicator": "", "end_suffix": "",
                   "byte_fallback": "false", "cache_capacity": "0"})
    b.result(b.outputs_of(bpe)[2], name="ids")
    xml, _ = b.write(path)
    return Path(xml)


def _runner(xml: Path, text: bytes) -> Callable[[], object]:
    session = irexec.Session(str(xml))
    feeds = {"text": np.array([text], dtype=object)}
    return lambda: session.run(feeds)


def _text(value: object) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


TAIL = b"a" * 40 + b"c " + "漢字、〆 ".encode()


def test_a_negative_lookahead_runs_in_linear_time(tmp_path: Path) -> None:
    """`a+(?![ab])` backtracks through a run of a's before a b from every start in it; that was
    cubic in the run on the RE2 emulation (4 KB for minutes).  On PCRE2 it is linear."""
    xml = _normalization_model(tmp_path / "lookahead.xml", rb"a+(?![ab])")
    _assert_linear(lambda n: _runner(xml, b"a" * n + b"b" + TAIL), 40_000)
    out = irexec.Session(str(xml)).run({"text": np.array([b"a" * 4000 + b"b" + TAIL], dtype=object)}).outputs["out"]
    assert _text(out[0]) == b"a" * 4000 + b"bxc " + "漢字、〆 ".encode()


def test_gpt2_split_runs_in_linear_time(tmp_path: Path) -> None:
    """GPT-2's pattern (a lookahead after a run of spaces) over one long run of spaces and words."""
    pattern = rb"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
    xml = _split_model(tmp_path / "gpt2.xml", pattern)
    words = b"word 12 ,, " + "漢字 ".encode()
    _assert_linear(lambda n: _runner(xml, words * (n // 200) + b" " * n + b"x"), 20_000)


def test_bpe_with_a_10kb_entry_runs_in_linear_time(tmp_path: Path) -> None:
    """One entry of 10 KB that the text almost matches everywhere: the extension's trie walk
    costs 10^4 steps a byte (10^9 for 100 KB); the reversed automaton costs one."""
    long_entry = b"a" * 10_000 + b"b"
    xml = _bpe_model(tmp_path / "bpe.xml", [b"a", b"b", b"aa", long_entry], [b"a a"])
    _assert_linear(lambda n: _runner(xml, b"a" * n), 10_000)
    ids = irexec.Session(str(xml)).run({"text": np.array([b"a" * 5 + long_entry + b"a"], dtype=object)}).outputs["ids"]
    # "aa" is a merge result, so not in the trie: five a's, the long entry, an a; then a a -> aa merges
    assert ids.tolist() == [2, 2, 0, 3, 0]


def test_a_pattern_past_pcre2s_match_limit_is_a_coded_error(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _normalization_model(tmp_path / "redos.xml", rb"(a+)+$")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, text=np.array(["a" * 40 + "b"]))
    started = time.perf_counter()
    r = run_cli.subprocess("run", xml, "--inputs", inputs)
    assert time.perf_counter() - started < 60
    assert r.returncode == 1 and "error[regex-limit]" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert "match limit" in r.stderr
