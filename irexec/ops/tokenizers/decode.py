"""VocabDecoder, FuzeRagged and UTF8Validate (openvino_tokenizers): token ids back to bytes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import Attr, In, Inference, Op, TensorInfo, require
from ..framework.registry import register
from .ragged import ET_I32, ET_U8, EXTENSION, FLAT, I32, U8, i32, ragged_strings_out, string_input, text_of

_REPLACEMENT = "\ufffd".encode()


@register
class VocabDecoder(Op):
    type, version = "VocabDecoder", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "each token id of a [batch, tokens] tensor to its vocabulary bytes, leaving out the ids to skip"
    inputs = (In("token_ids", I32, rank=2), *string_input("vocab"), In("skip_tokens", I32, optional=True))
    outputs = 5
    attributes = {"skip_tokens": Attr("ints", (), doc="ids to leave out when no skip_tokens input is given")}

    def infer(self, ids: TensorInfo, *rest: TensorInfo) -> Inference:
        require(ids.shape.dims is not None, "bad-input-rank", "the token ids need a known rank (2)", 0)
        batch = ids.shape.dims[0] if ids.shape.dims else DYNAMIC
        return Inference(ragged_strings_out(PartialShape((batch,))))

    def compute(self, plan: None, ids: np.ndarray, vb: np.ndarray, ve: np.ndarray, vc: np.ndarray,
                skip: np.ndarray | None = None) -> Sequence[np.ndarray]:
        b, e, raw = text_of(vb, ve, vc, 1)
        skips = set((skip.reshape(-1) if skip is not None else np.asarray(self.skip_tokens, np.int64)).tolist())
        batch, length = ids.shape
        per_row = length if length > 0 else 1
        meter = limits.Meter("VocabDecoder's strings")  # a few ids of a long vocabulary entry make much text
        out = bytearray()
        begins, ends = [], []
        for r in range(batch):
            if length == 0:
                begins.append(len(out))
                ends.append(len(out))
                continue
            for t in ids[r].tolist():
                begins.append(len(out))
                if 0 <= t < len(b) and t not in skips:  # a negative id is past the vocabulary as an unsigned index
                    meter.grow(e[t] - b[t])
                    out += raw[b[t]:e[t]]
                ends.append(len(out))
        ragged = np.arange(batch, dtype=np.int32) * per_row
        if length == 0:  # the extension writes row r's empty string at index r
            begins += [0] * (batch * per_row - len(begins))
            ends += [0] * (batch * per_row - len(ends))
        return [ragged, ragged + per_row, i32(begins), i32(ends), np.frombuffer(out, np.uint8)]


@register
class FuzeRagged(Op):
    type, version = "FuzeRagged", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "each row of a ragged tensor of strings as one string from its first begin to its last end"
    inputs = (In("ragged_begins", I32), In("ragged_ends", I32), In("begins", I32), In("ends", I32))
    outputs = 2

    def infer(self, rb: TensorInfo, re_: TensorInfo, b: TensorInfo, e: TensorInfo) -> Inference:
        return Inference([TensorInfo(rb.shape, ET_I32), TensorInfo(rb.shape, ET_I32)])

    def compute(self, plan: None, rb: np.ndarray, re_: np.ndarray, b: np.ndarray, e: np.ndarray) -> Sequence[np.ndarray]:
        require(rb.size == re_.size and b.size == e.size, "bad-value", "begins and ends differ in size", 0)
        lo, hi = rb.reshape(-1).astype(np.int64), re_.reshape(-1).astype(np.int64)
        last = np.where(hi > lo, hi - 1, hi)
        for what, idx, size in (("row begin", lo, b.size), ("row end", last, e.size)):
            bad = (idx < 0) | (idx >= size)
            require(not bad.any(), "bad-value",
                    lambda what=what, idx=idx, bad=bad, size=size: f"a {what} {int(idx[np.argmax(bad)])} is outside the "
                    f"{size} strings", 0)
        return [b.reshape(-1)[lo].astype(np.int32).reshape(rb.shape), e.reshape(-1)[last].astype(np.int32).reshape(rb.shape)]


@register
class UTF8Validate(Op):
    type, version = "UTF8Validate", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "invalid UTF-8 in each string replaced by U+FFFD (replace_mode) or dropped"
    inputs = (In("begins", I32), In("ends", I32), In("chars", U8))
    outputs = 3
    attributes = {"replace_mode": Attr("bool", False, doc="replace invalid bytes with U+FFFD instead of dropping them")}

    def infer(self, b: TensorInfo, e: TensorInfo, chars: TensorInfo) -> Inference:
        return Inference([TensorInfo(b.shape, ET_I32), TensorInfo(b.shape, ET_I32), TensorInfo(FLAT, ET_U8)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, chars: np.ndarray) -> Sequence[np.ndarray]:
        bl, el, raw = text_of(begins, ends, chars, 0)
        start = bl[0] if bl else 0
        out = bytearray()
        nb, ne = [], []
        for lo, hi in zip(bl, el):
            nb.append(start + len(out))
            out += _validate(raw, lo, hi, self.replace_mode)
            ne.append(start + len(out))
        # the extension writes from the first string's begin on and keeps as many bytes as it wrote
        data = (bytes(start) + bytes(out))[:len(out)]
        return [i32(nb).reshape(begins.shape), i32(ne).reshape(begins.shape), np.frombuffer(data, np.uint8).copy()]


def _validate(raw: bytes, lo: int, hi: int, replace: bool) -> bytes:
    """The extension's byte loop: leads by their high bits, continuations checked, overlong forms refused
    (surrogates and code points past U+10FFFF pass)."""
    out = bytearray()
    need = 0
    count = 0
    code = 0
    rep = _REPLACEMENT if replace else b""
    j = lo
    while j < hi:
        c = raw[j]
        if not need:
            if c < 0x80:
                out.append(c)
            elif c >> 5 == 0b110:
                count, need, code = 2, 1, (c & 0x1F) << 6
            elif c >> 4 == 0b1110:
                count, need, code = 3, 2, (c & 0x0F) << 12
            elif c >> 3 == 0b11110:
                count, need, code = 4, 3, (c & 0x07) << 18
            else:
                out += rep
            j += 1
            continue
        if c >> 6 != 0b10:
            need = 0
            out += rep
            continue  # the byte starts over
        need -= 1
        code |= (c & 0x3F) << (6 * need)
        if not need:
            if code < (0, 0x80, 0x800, 0x10000)[count - 1]:
                out += rep * count
            else:
                out += raw[j + 1 - count:j + 1]
            code = 0
        j += 1
    if need and replace:
        out += rep
    return bytes(out)


_BYTE_PIECES = {f"<0x{b:02X}>".encode(): b for b in range(256)}


@register
class ByteFallback(Op):
    type, version = "ByteFallback", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "each <0xXX> piece to the byte it names (SentencePiece's byte fallback)"
    inputs = (In("begins", I32), In("ends", I32), In("chars", U8))
    outputs = 3

    def infer(self, b: TensorInfo, e: TensorInfo, chars: TensorInfo) -> Inference:
        return Inference([TensorInfo(b.shape, ET_I32), TensorInfo(b.shape, ET_I32), TensorInfo(FLAT, ET_U8)])

    def compute(self, plan: None, begins: np.ndarray, ends: np.ndarray, chars: np.ndarray) -> Sequence[np.ndarray]:
        bl, el, raw = text_of(begins, ends, chars, 0)
        out = bytearray()
        nb, ne = [], []
        for lo, hi in zip(bl, el):
            nb.append(len(out))
            piece = raw[lo:hi]
            if len(piece) == 6 and piece[:1] == b"<" and piece[5:] == b">":
                out.append(_BYTE_PIECES.get(piece, 0xFF))  # sentencepiece's PieceToByte: -1, as a byte, for another <....>
            else:
                out += piece
            ne.append(len(out))
        return [i32(nb).reshape(begins.shape), i32(ne).reshape(begins.shape), np.frombuffer(bytes(out), np.uint8).copy()]
