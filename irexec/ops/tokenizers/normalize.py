"""RegexNormalization and CharsMapNormalization (openvino_tokenizers): rewrite each
string (skipping the flagged ones), keeping the string tensor's layout."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np

from ...base import limits
from ...base.errors import OpError
from ..framework.base import ANY, Attr, Enum, In, Inference, Op, TensorInfo, op_error, require
from ..framework.registry import register
from .ragged import ET_BOOL, ET_I32, ET_U8, EXTENSION, FLAT, I32, U8, i32, pattern_input, text_of
from .regex_engine import Regex, compiled
from .spm_backend import normalizer
from .unicode_maps import composer, simple_fold

# the extension's rewrites of patterns older converters wrote
_REWRITES = {"(^)(.)": r"(^)([\s\S])", "(^)(.+)": r"(^)([\s\S])"}


def _normalized(infos: Sequence[TensorInfo], has_skips: bool) -> Inference:
    outs = [TensorInfo(infos[0].shape, ET_I32), TensorInfo(infos[0].shape, ET_I32), TensorInfo(FLAT, ET_U8)]
    return Inference(outs + [TensorInfo(infos[3].shape, ET_BOOL)] if has_skips else outs)


def _apply(args: Sequence[np.ndarray], has_skips: bool, fn, meter: limits.Meter | None = None) -> list[np.ndarray]:
    """Each string through ``fn``; the output characters are charged to ``meter`` (by
    default one of the run's) as each string is added, so a rewrite that grows
    the text is refused before it outgrows the memory limit."""
    b, e, raw = text_of(args[0], args[1], args[2], 0)
    skips = args[3].reshape(-1).tolist() if has_skips else [False] * len(b)
    meter = meter or limits.Meter("the normalized strings")
    out = bytearray()
    nb, ne = [], []
    for x, y, skip in zip(b, e, skips):
        nb.append(len(out))
        piece = raw[x:y] if skip else fn(raw[x:y])
        meter.grow(len(piece))
        out += piece
        ne.append(len(out))
    outs = [i32(nb).reshape(args[0].shape), i32(ne).reshape(args[0].shape), np.frombuffer(out, np.uint8)]
    return outs + [args[3]] if has_skips else outs


def substitute(regex: Regex, text: bytes, replacement: bytes, global_replace: bool, meter: limits.Meter | None = None) -> bytes:
    """PCRE2's substitute: $n and ${n} name groups, $$ is a dollar; after an empty match the
    next search starts one character on.  Each piece is charged to ``meter`` before it is added."""
    out = bytearray()
    pos = 0
    start = 0
    while start <= len(text):
        m = regex.search(text, start)
        if m is None:
            break
        m_start, m_end, groups = m
        piece = text[pos:m_start] + _expand(replacement, text, m_start, m_end, groups)
        if meter is not None:
            meter.grow(len(piece))
        out += piece
        pos = m_end
        if not global_replace:
            break
        if m_end == m_start:
            if m_end >= len(text):
                break
            step = _char_length(text, m_end)
            out += text[m_end:m_end + step]
            pos = start = m_end + step
        else:
            start = m_end
    out += text[pos:]
    return bytes(out)


def _char_length(text: bytes, at: int) -> int:
    lead = text[at]
    n = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return max(1, min(n, len(text) - at))


def _expand(replacement: bytes, text: bytes, start: int, end: int, groups: list[tuple[int, int]]) -> bytes:
    out = bytearray()
    i = 0
    while i < len(replacement):
        c = replacement[i:i + 1]
        if c == b"$" and i + 1 < len(replacement):
            nxt = replacement[i + 1:i + 2]
            if nxt == b"$":
                out += b"$"
                i += 2
                continue
            j, braced = i + 1, nxt == b"{"
            if braced:
                j += 1
            k = j
            while k < len(replacement) and replacement[k:k + 1].isdigit():
                k += 1
            if k > j and (not braced or replacement[k:k + 1] == b"}"):
                n = int(replacement[j:k])
                span = (start, end) if n == 0 else groups[n - 1] if n <= len(groups) else (-1, -1)
                if span[0] >= 0:
                    out += text[span[0]:span[1]]
                i = k + (1 if braced else 0)
                continue
        out += c
        i += 1
    return bytes(out)


def _replacement(raw: bytes) -> bytes:
    r"""The extension's rewrite of \1..\9 into $1..$9."""
    for d in b"123456789":
        raw = raw.replace(b"\\" + bytes([d]), b"$" + bytes([d]))
    return raw


@register
class RegexNormalization(Op):
    type, version = "RegexNormalization", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "replace a pattern's matches in each string (all or the first)"
    inputs = (In("begins", I32), In("ends", I32), In("chars", U8), In("skips_or_pattern", ANY), In("pattern_or_replace", ANY),
              In("replace", ANY, optional=True))
    attributes = {"global_replace": Attr("bool", True, doc="replace every match, not only the first")}

    def num_outputs(self, n_inputs: int) -> int:
        return 4 if n_inputs == 6 else 3

    def infer(self, *infos: TensorInfo) -> Inference:
        has_skips = len(infos) == 6
        if has_skips:
            require(infos[3].etype.name == "boolean", "bad-input-type", "the skip flags are boolean", 3)
        at = 3 + has_skips
        pattern_input(infos[at], at)
        pattern_input(infos[at + 1], at + 1)
        value = infos[at].value() if infos[at].is_constant else None
        if value is not None:
            try:
                self._regex(value)
            except OpError as e:
                raise op_error(e.diagnostics[0].message, e.diagnostics[0].code, at) from None
        return _normalized(infos, has_skips)

    @staticmethod
    def _regex(pattern: np.ndarray) -> Regex:
        text = pattern.tobytes()
        rewrite = _REWRITES.get(text.decode("utf-8", "replace"))
        return compiled(rewrite.encode() if rewrite is not None else text)

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        has_skips = len(args) == 6
        at = 3 + has_skips
        regex = self._regex(args[at])
        replacement = _replacement(args[at + 1].tobytes())
        meter = limits.Meter("RegexNormalization's rewritten strings")
        return _apply(args, has_skips, lambda s: substitute(regex, s, replacement, self.global_replace, meter), meter)


def _charmap(form: str, case_fold: bool):
    """The extension's built-in charsmap of ``form``: decomposition (and case folding) one
    character at a time, or composition over character sequences (``unicode_maps``)."""
    norm = form.upper()
    compose = composer(form, case_fold) if form in ("nfc", "nfkc") else None

    def one(ch: str) -> str:
        mapped = ch if norm == "IDENTITY" else unicodedata.normalize(norm, ch)  # type: ignore[arg-type]  # one of the four forms: the attribute is checked
        return "".join(simple_fold(c) for c in mapped) if case_fold else mapped

    cache: dict[str, str] = {}

    def apply(raw: bytes) -> bytes:
        chars: list[str] = []
        i = 0
        while i < len(raw):
            n = _char_length(raw, i)
            try:
                chars.append(raw[i:i + n].decode("utf-8"))
            except UnicodeDecodeError:  # each byte of a malformed sequence becomes U+FFFD
                chars.append("\ufffd")
                i += 1
                continue
            i += n
        if compose is not None:
            return compose(chars).encode()
        out = []
        for ch in chars:
            got = cache.get(ch)
            if got is None:
                got = cache[ch] = one(ch)
            out.append(got)
        return "".join(out).encode()

    return apply


@register
class CharsMapNormalization(Op):
    type, version = "CharsMapNormalization", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = ("SentencePiece normalization: a model's precompiled charsmap (or NFC, NFKC, NFD, NFKD, case folding) "
               "and its whitespace options")
    inputs = (In("begins", I32), In("ends", I32), In("chars", U8), In("skips_or_charsmap", ANY, optional=True),
              In("charsmap", ANY, optional=True))
    attributes = {
        "normalization_form": Enum("", "identity", "nfc", "nfkc", "nfd", "nfkd", default="",
                                   doc="empty: the charsmap input; else the extension's own charsmap of that form"),
        "case_fold": Attr("bool", False),
        "add_dummy_prefix": Attr("bool", False),
        "remove_extra_whitespaces": Attr("bool", True),
        "escape_whitespaces": Attr("bool", False),
        "nmt": Attr("bool", False, doc="read by the converter; the extension's normalizer does not use it"),
    }

    def validate(self) -> list[OpError]:
        if self.normalization_form == "identity" and not self.case_fold:
            return [OpError("normalization_form=identity needs case_fold (the extension has no such charsmap)",
                            code="bad-attribute")]
        return []

    def _layout(self, n: int) -> tuple[bool, int | None]:
        """(has skips, port of the charsmap): the extension reads the charsmap input only
        without a normalization form, and then the skips are the fourth of five inputs."""
        if self.normalization_form == "":
            return n == 5, (n - 1 if n >= 4 else None)
        return n >= 4, None

    def num_outputs(self, n_inputs: int) -> int:
        return 4 if self._layout(n_inputs)[0] else 3

    def infer(self, *infos: TensorInfo) -> Inference:
        has_skips, at = self._layout(len(infos))
        if has_skips:
            require(infos[3].etype.name == "boolean", "bad-input-type", "the skip flags are boolean", 3)
        if self.normalization_form == "":
            require(at is not None, "wrong-port-count",
                    "CharsMapNormalization without a normalization_form needs the charsmap input (a 4th or 5th)")
            assert at is not None
            pattern_input(infos[at], at)
            value = infos[at].value() if infos[at].is_constant else None
            if value is not None:
                self._normalizer(value)
        return _normalized(infos, has_skips)

    def _normalizer(self, charsmap: np.ndarray):
        return normalizer(charsmap.tobytes(), self.add_dummy_prefix, self.remove_extra_whitespaces,
                          self.escape_whitespaces)

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        has_skips, at = self._layout(len(args))
        strings = args[:4] if has_skips else args[:3]
        if at is not None:
            return _apply(strings, has_skips, self._normalizer(args[at]))
        chars = _charmap(self.normalization_form, self.case_fold)
        if not (self.add_dummy_prefix or self.remove_extra_whitespaces or self.escape_whitespaces):
            return _apply(strings, has_skips, chars)
        # the extension's charsmap maps one character at a time, so its whitespace handling is
        # sentencepiece's over the mapped text with no charsmap
        spaces = normalizer(b"", self.add_dummy_prefix, self.remove_extra_whitespaces, self.escape_whitespaces)
        return _apply(strings, has_skips, lambda s: spaces(chars(s)))


@register
class CaseFold(Op):
    type, version = "CaseFold", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "simple Unicode case folding (utf-8), or ASCII lower/upper case (no encoding)"
    inputs = (In("begins", I32), In("ends", I32), In("chars", U8), In("skips", ("boolean",), optional=True))
    attributes = {"encoding": Enum("utf-8", "", default="utf-8"), "lower": Attr("bool", True)}

    def validate(self) -> list[OpError]:
        if self.encoding == "utf-8" and not self.lower:
            return [OpError("encoding=utf-8 folds to lower case only (lower=true)", code="bad-attribute")]
        return []

    def num_outputs(self, n_inputs: int) -> int:
        return 4 if n_inputs == 4 else 3

    def infer(self, *infos: TensorInfo) -> Inference:
        return _normalized(infos, len(infos) == 4)

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        if self.encoding == "utf-8":
            return _apply(args, len(args) == 4, _charmap("identity", True))
        table = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz") if self.lower else \
            bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        outs = _apply(args[:3], False, lambda s: s.translate(table))  # the extension applies it to every string
        return outs + [args[3]] if len(args) == 4 else outs


@register
class NormalizeUnicode(Op):
    type, version = "NormalizeUnicode", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "Unicode normalization over the extension's charsmaps: NFD, NFKD per character, NFC, NFKC by sequence"
    inputs = (In("begins", I32), In("ends", I32), In("chars", U8), In("skips", ("boolean",), optional=True))
    attributes = {"normalization_form": Enum("nfd", "nfkd", "nfc", "nfkc", default="nfd")}

    def num_outputs(self, n_inputs: int) -> int:
        return 4 if n_inputs == 4 else 3

    def infer(self, *infos: TensorInfo) -> Inference:
        return _normalized(infos, len(infos) == 4)

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        return _apply(args, len(args) == 4, _charmap(self.normalization_form, False))
