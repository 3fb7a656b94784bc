"""PCRE2 patterns, run on PCRE2 as openvino_tokenizers runs them.

openvino_tokenizers compiles its patterns with PCRE2 in UTF and UCP mode (``\\s``,
``\\d``, ``\\w`` are Unicode classes, ``\\p{Han}`` takes in the characters whose
Script_Extensions list Han, lookarounds backtrack as PCRE2 does).  irexec hands the
same pattern, unchanged, to the same engine through the ``pcre2`` binding, JIT-compiled.
Two choices differ from the binding's defaults: no ``PCRE2_ALT_BSUX``, so ``\\x{2581}``
is a code point as in the C library (the binding reads JavaScript's ``\\u`` instead), and
``PCRE2_MATCH_INVALID_UTF``, so bytes that are not UTF-8 never match a character instead
of failing the whole match (OpenVINO matches such text unchecked, which PCRE2 leaves
undefined).

Time is bounded by PCRE2's own limits, set in the pattern: a search that takes more
than ``MATCH_LIMIT`` steps (OpenVINO's, PCRE2's default) or nests backtracking deeper
than ``DEPTH_LIMIT`` stops with ``regex-limit`` instead of running on.  The text is never
validated per search (``PCRE2_NO_UTF_CHECK`` is safe under ``MATCH_INVALID_UTF``; a
check would rescan the rest of the text each time), so a split of n bytes costs O(n)
plus its matches' own backtracking."""

from __future__ import annotations

import re
from functools import lru_cache
from sys import maxsize
from typing import Any

from ...base.errors import OpError
from ...base.extras import install_hint

MATCH_LIMIT = 10_000_000  # PCRE2's default, which OpenVINO keeps
DEPTH_LIMIT = 10_000_000  # the interpreter's backtracking depth (the JIT bounds its stack itself)
HEAP_LIMIT_KIB = 20_000  # PCRE2's default heap for backtracking, in KiB

# pcre2.h: the binding spells only some options as names
_UTF, _UCP, _ALT_BSUX = 0x00080000, 0x00020000, 0x00000002
_MATCH_INVALID_UTF, _NO_UTF_CHECK = 0x04000000, 0x40000000
_LIMIT_ERRORS = {-47: "match limit", -52: "depth limit", -63: "heap limit", -46: "JIT stack limit"}


def _pcre2() -> Any:
    try:
        import pcre2
    except ImportError:
        raise OpError("openvino_tokenizers ops need the pcre2 package (the regex engine openvino_tokenizers uses); "
                      f"{install_hint('tokenizers')}", code="missing-extra") from None
    return pcre2


class Regex:
    """One compiled pattern: ``search`` gives the leftmost match at or after a byte offset."""

    def __init__(self, pattern: bytes):
        pcre2 = _pcre2()
        try:
            text = pattern.decode("utf-8")
        except UnicodeDecodeError:
            raise OpError(f"the pattern {pattern!r} is not UTF-8", code="unsupported-regex") from None
        self.text = text
        limited = b"(*LIMIT_MATCH=%d)(*LIMIT_DEPTH=%d)(*LIMIT_HEAP=%d)" % (MATCH_LIMIT, DEPTH_LIMIT, HEAP_LIMIT_KIB)
        try:  # pcre2.compile() forces ALT_BSUX and hides MATCH_INVALID_UTF: its own lower level takes both
            code = pcre2._cy.compile(limited + pattern, _UTF | _UCP | _MATCH_INVALID_UTF, _ALT_BSUX)
            pcre2._cy.jit_compile(code)
        except pcre2.LibraryError as e:
            raise OpError(f"the pattern {text!r} is not one PCRE2 compiles: {_without_prefix(str(e), len(limited))}",
                          code="unsupported-regex") from None
        self._pattern = pcre2.Pattern(code, limited + pattern, pcre2.RegexFlag(_UTF), True, None)
        self._errors = pcre2.LibraryError
        self.groups = int(self._pattern.groups)

    def search(self, text: bytes, pos: int) -> tuple[int, int, list[tuple[int, int]]] | None:
        """(start, end, group spans; (-1, -1) for a group that did not take part) of the
        leftmost match at or after ``pos``, None when none."""
        try:
            m = self._pattern._match(text, pos, maxsize, _NO_UTF_CHECK)  # search() with match options
        except self._errors as e:
            limit = _LIMIT_ERRORS.get(getattr(e, "code", 0))
            if limit is None:
                raise
            raise OpError(f"the pattern {self.text!r} reached PCRE2's {limit} on a text of {len(text)} bytes "
                          f"(at byte {pos}): it backtracks too much for this input", code="regex-limit") from None
        if m is None:
            return None
        start, end = m.span()
        return start, end, [_span(m, g) for g in range(1, self.groups + 1)]


def _span(m: Any, group: int) -> tuple[int, int]:
    span = m.span(group)
    return (-1, -1) if span is None or span[0] is None else (int(span[0]), int(span[1]))


def _without_prefix(message: str, shift: int) -> str:
    """PCRE2's message with the offset counted in the user's pattern, not the limits before it."""
    return re.sub(r"(?<=at position )\d+", lambda m: str(max(0, int(m.group()) - shift)), message, count=1)


@lru_cache(maxsize=64)
def compiled(pattern: bytes) -> Regex:
    return Regex(pattern)
