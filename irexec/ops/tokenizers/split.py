"""SpecialTokensSplit and RegexSplit (openvino_tokenizers): cut each string of a
ragged tensor at the matches of a pattern, keeping the offsets into the same bytes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.errors import OpError
from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import ANY, Attr, Enum, In, Inference, Op, TensorInfo, op_error, require
from ..framework.registry import register
from .ragged import (
    BOOL,
    ET_BOOL,
    EXTENSION,
    FLAT,
    flat_rank,
    i32,
    pattern_input,
    ragged_strings,
    ragged_strings_out,
    rows,
    text_of,
)
from .regex_engine import Regex, compiled


def _skips_and_pattern(op: Op, infos: Sequence[TensorInfo], pattern_at: int) -> bool:
    """Whether input 5 is the skip flags (then the pattern follows it); checks both, and
    compiles a constant pattern so that one RE2 cannot run is found by a check."""
    has_skips = pattern_at == 6
    if has_skips:
        require(infos[5].etype.name == "boolean", "bad-input-type", lambda: f"the skip flags are boolean, got {infos[5].etype}", 5)
        flat_rank(infos[5], 5, "the skip flags")
    pattern_input(infos[pattern_at], pattern_at)
    value = infos[pattern_at].value() if infos[pattern_at].is_constant else None
    if value is not None:
        try:
            compiled(_pattern(value))
        except OpError as e:
            raise op_error(e.diagnostics[0].message, e.diagnostics[0].code, pattern_at) from None
    return has_skips


class _Pieces:
    """The pieces a split makes: begin and end offsets and skip flags."""

    def __init__(self) -> None:
        self.begins: list[int] = []
        self.ends: list[int] = []
        self.skips: list[bool] = []

    def add(self, begin: int, end: int, skip: bool) -> None:
        self.begins.append(begin)
        self.ends.append(end)
        self.skips.append(skip)

    def __len__(self) -> int:
        return len(self.begins)


def _pattern(chars: np.ndarray) -> bytes:
    return chars.tobytes()


@register
class SpecialTokensSplit(Op):
    type, version = "SpecialTokensSplit", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "split strings around special tokens (the pattern's matches), flagging those pieces to skip"
    inputs = (*ragged_strings(), In("skips_or_pattern", ANY), In("pattern", BOOL + ("u8",), optional=True))
    outputs = 6

    def infer(self, *infos: TensorInfo) -> Inference:
        _skips_and_pattern(self, infos, 6 if len(infos) == 7 else 5)
        values = [i.value() if i.is_constant else None for i in infos]
        if all(v is not None for v in values):  # known before the run: as many flags as pieces
            pieces = self.compute(None, *values)[5].shape  # type: ignore[arg-type]
            return Inference([*ragged_strings_out(infos[0].shape), TensorInfo(PartialShape.static(pieces), ET_BOOL)])
        # one flag a piece: as many as the pieces (the extension declares the input strings' shape, which
        # a run outgrows whenever a string is split)
        skips = TensorInfo(FLAT, ET_BOOL)
        return Inference([*ragged_strings_out(infos[0].shape), skips])

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        has_skips = len(args) == 7
        rb, re_, begins, ends, chars = args[:5]
        regex = compiled(_pattern(args[6 if has_skips else 5]))
        b, e, raw = text_of(begins, ends, chars, 2)
        skips = args[5].reshape(-1).tolist() if has_skips else None
        pieces = _Pieces()
        new_rb, new_re = [], []
        for row in rows(rb, re_, len(b)):
            new_rb.append(len(pieces))
            for col in row:
                if skips is not None and skips[col]:
                    pieces.add(b[col], e[col], True)
                    continue
                text, base, start = raw[b[col]:e[col]], b[col], 0
                while (m := regex.search(text, start)) is not None and m[0] != m[1]:
                    m_start, m_end, groups = m
                    inside = [g for g in groups if g[0] >= 0 and m_start <= g[0] and g[1] <= m_end]
                    g_start, g_end = inside[-1] if inside and inside[-1][0] != inside[-1][1] else (m_start, m_end)
                    if start < m_start:
                        pieces.add(base + start, base + m_start, False)
                    pieces.add(base + g_start, base + g_end, True)
                    start = m_end
                if start < len(text):
                    pieces.add(base + start, base + len(text), False)
            new_re.append(len(pieces))
        shape = rb.shape
        return [i32(new_rb).reshape(shape), i32(new_re).reshape(shape), i32(pieces.begins), i32(pieces.ends), chars,
                np.array(pieces.skips, dtype=bool)]


@register
class RegexSplit(Op):
    type, version = "RegexSplit", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "split strings at a pattern's matches: remove, isolate or merge them with a neighbour"
    inputs = (*ragged_strings(), In("skips_or_pattern", ANY), In("pattern_or_skip_begins", ANY, optional=True),
              In("skip_ends", ANY, optional=True), In("skip_chars", ANY, optional=True))
    attributes = {
        "behaviour": Enum("remove", "isolate", "contiguous", "mergedwithprevious", "mergedwithnext", default="remove"),
        "invert": Attr("bool", False, doc="split at what the pattern does not match"),
        "max_splits": Attr("int", -1, doc="-1 or a positive count"),
    }

    def validate(self) -> list:
        if self.max_splits != -1 and self.max_splits <= 0:
            return [OpError(f"max_splits={self.max_splits} must be -1 or positive", code="bad-attribute")]
        return []

    def num_outputs(self, n_inputs: int) -> int:
        return 6 if n_inputs == 7 else 5

    def infer(self, *infos: TensorInfo) -> Inference:
        require(len(infos) in (6, 7, 9), "wrong-port-count", f"RegexSplit takes 6, 7 or 9 inputs, got {len(infos)}")
        has_skips = _skips_and_pattern(self, infos, 6 if len(infos) == 7 else 5)
        shape = infos[0].shape
        chars = infos[4].shape
        if chars.rank != 1 or chars[0].lo == 0:  # no bytes at all: the extension answers one empty row, whatever the batch
            shape = PartialShape((DYNAMIC,)) if shape.rank == 1 else PartialShape(None)
        outs = ragged_strings_out(shape)
        return Inference(outs + [TensorInfo(FLAT, ET_BOOL)] if has_skips else outs)

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        has_skips = len(args) == 7
        rb, re_, begins, ends, chars = args[:5]
        if chars.size == 0:  # the extension's shortcut: one empty row, whatever the batch
            outs = [np.zeros(1, np.int32), np.zeros(1, np.int32), begins, ends, chars]
            return outs + [args[5]] if has_skips else outs
        pattern = _pattern(args[6 if has_skips else 5])
        if self.behaviour == "contiguous" and not pattern.endswith(b"+"):
            pattern = b"(" + pattern + b")+"
        regex = compiled(pattern)
        skip_tokens: set[bytes] = set()
        if len(args) == 9 and args[6].size:
            sb, se, sraw = text_of(args[6], args[7], args[8], 6)
            skip_tokens = {sraw[x:y] for x, y in zip(sb, se)}
        b, e, raw = text_of(begins, ends, chars, 2)
        skips = args[5].reshape(-1).tolist() if has_skips else [False] * len(b)
        pieces = _Pieces()
        new_rb, new_re = [], []
        for row in rows(rb, re_, len(b)):
            new_rb.append(len(pieces))
            for col in row:
                text = raw[b[col]:e[col]]
                if skips[col] or text in skip_tokens:
                    pieces.add(b[col], e[col], bool(skips[col]))
                    continue
                self._split(regex, text, b[col], pieces)
            new_re.append(len(pieces))
        shape = rb.shape
        outs = [i32(new_rb).reshape(shape), i32(new_re).reshape(shape), i32(pieces.begins), i32(pieces.ends), chars]
        return outs + [np.array(pieces.skips, dtype=bool)] if has_skips else outs

    def _split(self, regex: Regex, text: bytes, base: int, pieces: _Pieces) -> None:
        mode, length, state = self.behaviour, len(text), {"last": -1, "splits": 0}

        def add(begin: int, end: int, invert: bool) -> None:
            if mode == "remove" and invert:
                return
            if mode == "mergedwithprevious":
                if not invert and end != length:
                    state["last"] = begin
                    return
                if invert:
                    begin = state["last"]
            elif mode == "mergedwithnext":
                if not invert:
                    if state["last"] != -1:
                        begin = state["last"]
                else:
                    state["last"] = begin
                    return
            begin, end = max(0, begin), min(length, end)
            if state["splits"] == self.max_splits:
                end = length
            pieces.add(base + begin, base + end, False)
            state["splits"] += 1

        start = 0
        while (m := regex.search(text, start)) is not None and m[0] != m[1]:
            if m[0] != start:
                add(start, m[0], self.invert)
            add(m[0], m[1], not self.invert)
            start = m[1]
        if start < length:
            add(start, length, self.invert)
        elif mode == "mergedwithnext" and state["last"] != length:
            add(state["last"], length, self.invert)
