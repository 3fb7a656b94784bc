"""The composing charsmaps (NFC, NFKC, with or without case folding) that openvino_tokenizers
normalizes with: not Unicode normalization itself, but sentencepiece's approximation of it, a
map from character sequences to their replacement applied by longest match from left to right.

The map is built as sentencepiece's ``Builder`` builds it, from the Unicode data Python has:
- every character whose NFC (NFKC) differs maps to it;
- every multi-character NFD (NFKD) decomposition that composes to something else maps to
  that, spelled in every way its characters can be written (each decomposed character, or
  any character that decomposes to it alone);
- with case folding, each replacement is folded character by character (simple folding), and
  every other character that folds maps to its fold;
- entries that shorter ones already give are dropped.

So ``e + U+0301`` becomes ``é``, but ``e + U+0301 + U+0327`` becomes ``é + U+0327`` where NFC
would reorder the marks first: the extension's answer, which is what irexec gives.  The maps
are built on first use (about a second, NFKC's 225,000 entries a little more) and kept."""

from __future__ import annotations

import functools
import itertools
import unicodedata
from collections.abc import Callable
from typing import Literal

Form = Literal["NFC", "NFD", "NFKC", "NFKD"]
_FORMS: dict[str, tuple[Form, Form]] = {"nfc": ("NFC", "NFD"), "nfkc": ("NFKC", "NFKD")}
_HANGUL = range(0xAC00, 0xD7A4)  # composed algorithmically: no decomposition() text, yet NFD splits them


def _is_character(cp: int) -> bool:
    """Neither a surrogate nor a noncharacter (ICU's U_IS_UNICODE_CHAR)."""
    return not (0xD800 <= cp <= 0xDFFF or 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE)


def simple_fold(ch: str) -> str:
    """Unicode simple case folding (C and S): where full folding gives several characters,
    the single-character lowercase if there is one."""
    folded = ch.casefold()
    if len(folded) == 1:
        return folded
    lower = ch.lower()
    return lower if len(lower) == 1 else ch


@functools.lru_cache(maxsize=4)
def composing_map(form: str, case_fold: bool) -> tuple[dict[str, str], int]:
    """The charsmap of ``form`` (nfc or nfkc) and its longest key."""
    compose, decompose = _FORMS[form]
    table: dict[str, str] = {}
    alone: dict[str, set[str]] = {}  # a decomposed character -> the others that decompose to it alone
    decomposed: set[str] = set()
    for cp in range(1, 0x110000):
        ch = chr(cp)
        if not (unicodedata.decomposition(ch) or cp in _HANGUL) or not _is_character(cp):
            continue  # nothing to compose or decompose: maps to itself
        composed = unicodedata.normalize(compose, ch)
        if composed != ch:
            table[ch] = composed
        parts = unicodedata.normalize(decompose, ch)
        if len(parts) == 1:
            alone.setdefault(parts, set()).add(ch)
        else:
            decomposed.add(parts)
    for parts in sorted(decomposed):
        composed = unicodedata.normalize(compose, parts)
        if composed == parts:
            continue
        spellings = [sorted({c} | alone.get(c, set())) for c in parts]
        for spelled in itertools.product(*spellings):
            key = "".join(spelled)
            if key != composed:
                table[key] = composed
    if case_fold:
        table = {k: "".join(simple_fold(c) for c in v) for k, v in table.items()}
        for cp in range(1, 0x110000):
            ch = chr(cp)
            if ch not in table and _is_character(cp):
                folded = simple_fold(ch)
                if folded != ch:
                    table[ch] = folded
    return _without_redundant(table)


def _without_redundant(table: dict[str, str]) -> tuple[dict[str, str], int]:
    """Drop each entry of length n that the entries shorter than n already give (sentencepiece's
    RemoveRedundantMap, so the longest match finds the same replacements it does)."""
    longest = max(map(len, table), default=1)
    kept = {k: v for k, v in table.items() if len(k) == 1}
    for n in range(2, longest + 1):
        for k, v in table.items():
            if len(k) == n and v != _replace(kept, n - 1, k):
                kept[k] = v
    return kept, longest


def _replace(table: dict[str, str], longest: int, text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        for n in range(min(longest, len(text) - i), 0, -1):
            found = table.get(text[i:i + n])
            if found is not None:
                out.append(found)
                i += n
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def composer(form: str, case_fold: bool) -> Callable[[list[str]], str]:
    """Longest-match replacement over a text given as its characters (a malformed byte
    already one U+FFFD character of its own, which no key starts with)."""
    table, longest = composing_map(form, case_fold)

    def apply(chars: list[str]) -> str:
        return _replace(table, longest, "".join(chars))

    return apply


__all__ = ["composer", "composing_map", "simple_fold"]
