"""SentencepieceTokenizer, SentencepieceDetokenizer and SentencepieceStreamDetokenizer
(openvino_tokenizers): a serialized SentencePiece model in a u8 Const, run by the
`sentencepiece` package as the extension runs sentencepiece's C++ library."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...base import dtypes, limits
from ...base.errors import OpError
from ...base.shapes import DYNAMIC, PartialShape
from ..framework.base import ANY, Attr, In, Inference, Op, TensorInfo, require
from ..framework.registry import register
from .ragged import ET_I32, ET_U8, EXTENSION, FLAT, U8, flat_rank, string_list, text_of
from .spm_backend import begin_end_pieces, processor

ET_I64 = dtypes.get("i64")


def _model(arr: np.ndarray) -> bytes:
    return arr.tobytes()


def _is_word(ch: str) -> bool:
    """PCRE2's \\w under UCP: letters, numbers, non-spacing marks, connector punctuation."""
    cat = unicodedata.category(ch)
    return cat[0] in "LN" or cat in ("Mn", "Pc")


def _char_before(text: bytes, at: int) -> str | None:
    start = at - 1
    while start > 0 and at - start < 4 and 0x80 <= text[start] < 0xC0:
        start -= 1
    return text[start:at].decode("utf-8", "replace")[-1:] if at > 0 else None


def _char_at(text: bytes, at: int) -> str | None:
    return text[at:at + 4].decode("utf-8", "replace")[:1] if at < len(text) else None


def _boundary(text: bytes, at: int) -> bool:
    before, after = _char_before(text, at), _char_at(text, at)
    return (before is not None and _is_word(before)) != (after is not None and _is_word(after))


class SpecialTokens:
    """The extension's special-token regex, ``tok1|\\btok2|tok2\\b|...``: the literal tokens in
    order, a token of ASCII letters only when a word boundary is at its start or end (PCRE2's
    UCP \\b), leftmost match first, the earliest token among those at one position."""

    def __init__(self, tokens: list[bytes], ids: list[int]):
        self.ids: dict[bytes, int] = {}
        for token, idx in zip(tokens, ids):
            self.ids.setdefault(token, idx)
        # PCRE2 refuses to compile a pattern that is not UTF-8; the extension then matches nothing
        ordered = [(t, t.isalpha() or not t) for t in tokens] if all(_utf8(t) for t in tokens) else []  # ASCII letters
        # the candidates at a position, in the pattern's order: the tokens starting with its byte
        # and the empty ones (an empty token is all letters to std::all_of: bounded)
        self.empty: list[tuple[int, bytes, bool]] = [(k, t, b) for k, (t, b) in enumerate(ordered) if not t]
        self.by_byte: dict[int, list[tuple[int, bytes, bool]]] = {}
        for k, (t, b) in enumerate(ordered):
            if t:
                self.by_byte.setdefault(t[0], []).append((k, t, b))
        for first, found in self.by_byte.items():
            self.by_byte[first] = sorted(found + self.empty)
        self.any = bool(ordered)

    def find(self, text: bytes, start: int) -> tuple[int, int] | None:
        if not self.any:
            return None
        for at in range(start, len(text) + 1):
            candidates = self.by_byte.get(text[at], self.empty) if at < len(text) else self.empty
            for _, token, bounded in candidates:
                if text.startswith(token, at) and (
                        not bounded or _boundary(text, at) or _boundary(text, at + len(token))):
                    return at, at + len(token)
        return None


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@register
class SentencepieceTokenizer(Op):
    type, version = "SentencepieceTokenizer", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "a SentencePiece model's token ids of each string, as a sparse tensor (indices, values, dense shape)"
    inputs = (In("model", U8), In("strings_or_begins", ANY), *(In(f"input{i}", ANY, optional=True) for i in range(2, 8)))
    outputs = 3
    attributes = {
        "nbest_size": Attr("int", 0, doc="0 or 1: the best segmentation; another value samples (refused)"),
        "alpha": Attr("float", 1.0, doc="the sampling smoothing, unused by the best segmentation"),
        "add_bos": Attr("bool", False),
        "add_eos": Attr("bool", False),
        "reverse": Attr("bool", False),
    }

    def validate(self) -> list[OpError]:
        if self.nbest_size not in (0, 1):
            return [OpError(f"SentencepieceTokenizer with nbest_size={self.nbest_size} samples a random segmentation "
                            "(sentencepiece's SampleEncode); irexec runs the deterministic one (nbest_size 0 or 1)",
                            code="unsupported-op")]
        return []

    def infer(self, *infos: TensorInfo) -> Inference:
        n = len(infos)
        require(n in (2, 4, 6, 8), "wrong-port-count",
                f"SentencepieceTokenizer takes 2, 4, 6 or 8 inputs (the model, one string tensor or its begins, ends "
                f"and bytes, then optionally the special tokens and their ids), got {n}")
        require(infos[0].etype.name == "u8", "bad-input-type", "the SentencePiece model is a u8 tensor", 0)
        if n in (2, 6):
            require(infos[1].etype.name == "string", "bad-input-type", "the strings are a string tensor", 1)
        else:
            _string_parts(infos, 1)
        if n >= 6:
            _string_parts(infos, n - 4)
            require(infos[n - 1].etype.name == "i32", "bad-input-type", "the special tokens' ids are i32", n - 1)
            listed, ids = infos[n - 4].shape, infos[n - 1].shape
            if listed.is_static and ids.is_static:
                count, given = math.prod(listed.to_tuple()), math.prod(ids.to_tuple())
                require(count == given, "bad-value", f"{count} special tokens but {given} ids", n - 1)
        model = infos[0].value() if infos[0].is_constant else None
        if model is not None:  # the extension loads the model when the node is made
            sp = processor(_model(model))
            _extra_ids(sp, _model(model), self._options(n >= 5))
        return Inference([TensorInfo(PartialShape.of((DYNAMIC, 2)), ET_I64), TensorInfo(FLAT, ET_I32),
                          TensorInfo(PartialShape.static((2,)), ET_I64)])

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        n = len(args)
        model = _model(args[0])
        sp = processor(model)
        special = n >= 5
        options = self._options(special)
        extra = _extra_ids(sp, model, options)
        if n in (2, 6):
            texts = [bytes(t) for t in args[1].reshape(-1).tolist()]
        else:
            b, e, raw = text_of(args[1], args[2], args[3], 1)
            texts = [raw[x:y] for x, y in zip(b, e)]
        tokens = None
        if special:
            listed, ids = string_list(args[n - 4], args[n - 3], args[n - 2], n - 4), args[n - 1].reshape(-1).tolist()
            require(len(ids) == len(listed), "bad-value",  # the extension reads one id per token, past the ids
                    f"{len(listed)} special tokens but {len(ids)} ids", n - 1)
            tokens = SpecialTokens(listed, ids)

        def encode(text: bytes) -> list[int]:
            ids = sp.encode(text)
            for option in options:
                if option == "bos":
                    ids.insert(0, extra["bos"])
                elif option == "eos":
                    ids.append(extra["eos"])
                else:
                    ids.reverse()
            return ids

        rows = [encode(t) if tokens is None else self._with_specials(sp, tokens, encode, t) for t in texts]
        indices = [(r, k) for r, ids in enumerate(rows) for k in range(len(ids))]
        return [np.array(indices, np.int64).reshape(-1, 2), np.array([i for ids in rows for i in ids], np.int32),
                np.array([len(rows), max((len(ids) for ids in rows), default=0)], np.int64)]

    def _options(self, special: bool) -> list[str]:
        """sentencepiece's encoding options as the extension sets them: with special tokens it
        adds the end id and reverses itself, over the whole row."""
        return [o for o, on in (("bos", self.add_bos), ("eos", self.add_eos and not special),
                                ("reverse", self.reverse and not special)) if on]

    def _with_specials(self, sp: object, tokens: SpecialTokens, encode, text: bytes) -> list[int]:
        ids: list[int] = []
        cursor = 0
        while True:
            found = tokens.find(text, cursor)
            if found is None or found[0] == found[1]:
                if cursor < len(text):
                    ids += encode(text[cursor:])
                break
            if cursor < found[0]:
                ids += encode(text[cursor:found[0]])
            ids.append(tokens.ids[text[found[0]:found[1]]])
            cursor = found[1]
        if self.add_eos:
            ids.append(sp.eos_id())  # type: ignore[attr-defined]  # a SentencePieceProcessor
        if self.reverse and len(ids) > 1:
            ids.reverse()
        return ids


def _string_parts(infos: Sequence[TensorInfo], at: int) -> None:
    for k, name in ((at, "begins"), (at + 1, "ends")):
        require(infos[k].etype.name == "i32", "bad-input-type", f"the {name} of a string tensor are i32", k)
    require(infos[at + 2].etype.name == "u8", "bad-input-type", "the bytes of a string tensor are u8", at + 2)
    flat_rank(infos[at + 2], at + 2, "the bytes")


def _extra_ids(sp: object, model: bytes, options: list[str]) -> dict[str, int]:
    """The ids sentencepiece's ``bos``/``eos`` options add: those of the trainer spec's pieces,
    which the model must know (else sentencepiece refuses the options, as the extension does)."""
    out: dict[str, int] = {}
    wanted = [o for o in options if o in ("bos", "eos")]
    if wanted:
        bos, eos = begin_end_pieces(model)
        for option, piece in (("bos", bos), ("eos", eos)):
            if option in wanted:
                idx = sp.piece_to_id(piece)  # type: ignore[attr-defined]
                require(not sp.is_unknown(idx), "bad-value",  # type: ignore[attr-defined]
                        f"the SentencePiece model has no piece {piece!r} for add_{option}", 0)
                out[option] = idx
    return out


def _detokenizer_inputs(infos: Sequence[TensorInfo]) -> Inference:
    require(infos[0].etype.name == "u8", "bad-input-type", "the SentencePiece model is a u8 tensor", 0)
    model = infos[0].value() if infos[0].is_constant else None
    if model is not None:
        processor(_model(model))
    require(infos[1].etype.name == "i32", "bad-input-type", "the token ids are i32", 1)
    rank = infos[1].shape.rank
    require(rank is None or rank == 2, "bad-input-rank", f"the token ids are [batch, tokens], got {infos[1].shape}", 1)
    batch = PartialShape((infos[1].shape.dims[0],)) if infos[1].shape.dims is not None else FLAT
    return Inference([TensorInfo(batch, ET_I32), TensorInfo(batch, ET_I32), TensorInfo(FLAT, ET_U8)])


def _strings_out(texts: list[bytes]) -> list[np.ndarray]:
    ends = np.cumsum([len(t) for t in texts], dtype=np.int64).astype(np.int32)
    begins = (ends - np.array([len(t) for t in texts], np.int32)).astype(np.int32)
    return [begins, ends, np.frombuffer(b"".join(texts), np.uint8).copy()]


def _negative(ids: np.ndarray) -> None:
    if ids.size and int(ids.min()) < 0:
        require(False, "bad-value", f"token id {int(ids.min())} is negative: sentencepiece has no such piece", 1)


class _Detokenizer(Op):
    """Each row of token ids to one string by a SentencePiece model; ids past its vocabulary are skipped."""

    family = "tokenizers"
    extension = EXTENSION
    inputs = (In("model", U8), In("token_ids", ANY))
    outputs = 3

    def infer(self, *infos: TensorInfo) -> Inference:
        return _detokenizer_inputs(infos)

    def compute(self, plan: None, model: np.ndarray, ids: np.ndarray) -> Sequence[np.ndarray]:
        sp = processor(_model(model))
        size = sp.GetPieceSize()
        _negative(ids)
        meter = limits.Meter(f"{self.type}'s strings")
        texts = []
        for row in ids.tolist():
            texts.append(self.row(sp, [i for i in row if i < size]))
            meter.grow(len(texts[-1]))
        return _strings_out(texts)

    def row(self, sp: Any, ids: list[int]) -> bytes:
        raise NotImplementedError


@register
class SentencepieceDetokenizer(_Detokenizer):
    type, version = "SentencepieceDetokenizer", 1
    summary = "each row of token ids to its text by a SentencePiece model (ids past the vocabulary skipped)"

    def row(self, sp: Any, ids: list[int]) -> bytes:
        return sp.decode(ids, out_type=bytes) if ids else b""


def _byte_piece(piece: bytes) -> int | None:
    """The extension's test of a byte piece (six bytes ``<0x..>``) and its byte: sentencepiece's
    map knows ``<0x00>``..``<0xFF>`` in upper case; another such piece gives -1, stored as 0xFF."""
    if len(piece) != 6 or not piece.startswith(b"<0x") or not piece.endswith(b">"):
        return None
    digits = piece[3:5]
    valid = all(c in b"0123456789ABCDEF" for c in digits)
    return int(digits, 16) if valid else 0xFF


@register
class SentencepieceStreamDetokenizer(_Detokenizer):
    type, version = "SentencepieceStreamDetokenizer", 1
    summary = "each row of token ids to its pieces joined as they are (byte pieces as bytes), for streaming"

    def row(self, sp: Any, ids: list[int]) -> bytes:
        out = bytearray()
        for i in ids:
            try:
                piece = sp.id_to_piece(i).encode()
            except UnicodeDecodeError:  # a piece protobuf let through without checking its UTF-8
                require(False, "bad-value", f"piece {i} of the SentencePiece model is not UTF-8", 0)
            byte = _byte_piece(piece)
            out += piece if byte is None else bytes([byte])
        return bytes(out)
