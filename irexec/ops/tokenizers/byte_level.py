"""BytesToChars and CharsToBytes (openvino_tokenizers): GPT-2's printable stand-ins for
bytes, as older byte-level converters wrote them around BPETokenizer and VocabDecoder."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..framework.base import In, Inference, Op, TensorInfo, require
from ..framework.registry import register
from .ragged import ET_BOOL, ET_I32, ET_U8, EXTENSION, FLAT, i32, ragged_strings, ragged_strings_out, rows, text_of


def _gpt2_chars() -> list[bytes]:
    """GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the rest for U+0100 on."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    out: dict[int, str] = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in out:
            out[b] = chr(256 + n)
            n += 1
    return [out[b].encode() for b in range(256)]


TO_CHARS = _gpt2_chars()
TO_BYTE = {c: b for b, c in enumerate(TO_CHARS)}


@register
class BytesToChars(Op):
    type, version = "BytesToChars", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "each byte of each string to GPT-2's printable stand-in character (skipped strings as they are)"
    inputs = (*ragged_strings(), In("skips", ("boolean",), optional=True))

    def num_outputs(self, n_inputs: int) -> int:
        return 6 if n_inputs == 6 else 5

    def infer(self, *infos: TensorInfo) -> Inference:
        outs = ragged_strings_out(infos[0].shape)
        return Inference(outs + [TensorInfo(infos[5].shape, ET_BOOL)] if len(infos) == 6 else outs)

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        rb, re_, begins, ends, chars = args[:5]
        skips = args[5].reshape(-1).tolist() if len(args) == 6 else None
        b, e, raw = text_of(begins, ends, chars, 2)
        nb, ne = [0] * len(b), [0] * len(b)  # a string no row names: 0..0 (the extension leaves it unset)
        out = bytearray()
        for row in rows(rb, re_, len(b)):
            for i in row:
                nb[i] = len(out)
                piece = raw[b[i]:e[i]]
                out += piece if skips is not None and skips[i] else b"".join(TO_CHARS[x] for x in piece)
                ne[i] = len(out)
        outs = [rb, re_, i32(nb).reshape(begins.shape), i32(ne).reshape(ends.shape), np.frombuffer(bytes(out), np.uint8).copy()]
        return outs + [args[5]] if skips is not None else outs


@register
class CharsToBytes(Op):
    type, version = "CharsToBytes", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "GPT-2's stand-in characters back to bytes, each row's strings joined into one"
    inputs = ragged_strings()
    outputs = 3

    def infer(self, *infos: TensorInfo) -> Inference:
        return Inference([TensorInfo(infos[0].shape, ET_I32), TensorInfo(infos[0].shape, ET_I32), TensorInfo(FLAT, ET_U8)])

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        rb, re_, begins, ends, chars = args
        b, e, raw = text_of(begins, ends, chars, 2)
        out = bytearray()
        nb, ne = [], []
        for row in rows(rb, re_, len(b)):
            nb.append(len(out))
            for i in row:
                k, end = b[i], e[i]
                while k < end:
                    if raw[k] < 128:
                        out.append(raw[k])
                        k += 1
                        continue
                    byte = TO_BYTE.get(raw[k:k + 2])
                    # the extension reads any other pair from an unset table entry
                    require(byte is not None, "bad-value", f"bytes {raw[k:k + 2]!r} are no byte-level stand-in character", 4)
                    out.append(byte)  # type: ignore[arg-type]
                    k += 2
            ne.append(len(out))
        return [i32(nb).reshape(rb.shape), i32(ne).reshape(rb.shape), np.frombuffer(bytes(out), np.uint8).copy()]
