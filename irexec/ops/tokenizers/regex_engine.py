"""PCRE2 patterns, as openvino_tokenizers compiles them, run on RE2.

openvino_tokenizers compiles its patterns with PCRE2 in UTF and UCP mode.  RE2
(google-re2) gives the same leftmost-first matches for what both engines accept
once the classes are spelt as PCRE2 reads them under UCP (``\\s``, ``\\d``,
``\\w`` are Unicode there, ASCII in RE2, and a script such as ``\\p{Han}`` takes in the characters
that list it among their Script_Extensions, ``、`` and ``〆`` for Han).  RE2 has no lookaround; an alternative
that ends in a negative lookahead (GPT-2's ``\\s+(?!\\S)``) is matched by trying
the alternative's shorter matches in turn, as PCRE2's backtracking does.  Any
other construct RE2 lacks is refused with ``unsupported-regex``, never run by
another engine with other rules.  Python's ``re`` is not used."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from ...base.errors import OpError
from ...base.extras import install_hint
from .script_extensions import SCRIPT_EXTENSIONS

# PCRE2 under UCP: \s is \p{Z}, \h, \v and the ASCII spaces; \d is \p{Nd}; \w is letters, numbers, Mn and Pc
_SPACE = r"\t-\r\x{85}\x{180E}\p{Z}"
_DIGIT = r"\p{Nd}"
_WORD = r"\p{L}\p{N}\p{Mn}\p{Pc}"
_IN_CLASS = {"s": _SPACE, "d": _DIGIT, "w": _WORD}
_DOLLAR = "\x00$"  # a $ outside a class, until the alternatives are split
_OUTSIDE = {"s": f"[{_SPACE}]", "S": f"[^{_SPACE}]", "d": _DIGIT, "D": r"\P{Nd}", "w": f"[{_WORD}]", "W": f"[^{_WORD}]"}


def _re2() -> Any:
    try:
        import re2  # google-re2
    except ImportError:
        raise OpError(f"openvino_tokenizers ops need the google-re2 package; {install_hint('tokenizers')}",
                      code="missing-extra") from None
    return re2


def translate(pattern: str) -> str:
    """A PCRE2 (UTF, UCP) pattern in RE2's syntax; lookarounds are left as they are."""
    for whole in (r"[\s\S]", r"[\S\s]", r"[\d\D]", r"[\w\W]"):  # any character, as PCRE2 spells it
        pattern = pattern.replace(whole, "(?s:.)")
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            e = pattern[i + 1]
            script = _script_at(pattern, i)
            if script is not None:
                name, end = script
                if in_class and e == "P":
                    raise OpError(f"the pattern {pattern!r} negates the script {name} inside a class, which RE2 cannot "
                                  "spell with PCRE2's script extensions", code="unsupported-regex")
                spelt = _script_class(name)
                out.append(spelt if in_class else f"[{'^' if e == 'P' else ''}{spelt}]")
                i = end
                continue
            if in_class and e in _IN_CLASS:
                out.append(_IN_CLASS[e])
            elif in_class and e in "SDW":
                raise OpError(f"the pattern {pattern!r} negates a class inside a class ([...\\{e}...]), which RE2 "
                              "cannot spell", code="unsupported-regex")
            elif not in_class and e in _OUTSIDE:
                out.append(_OUTSIDE[e])
            elif e in "bBAZGKRXhHvVN" or e.isdigit() and e != "0":
                raise OpError(f"the pattern {pattern!r} uses \\{e}, which RE2 does not match as PCRE2 does",
                              code="unsupported-regex")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            if c == "[" and i + 1 < n and pattern[i + 1] == ":":
                raise OpError(f"the pattern {pattern!r} uses a POSIX class, which is ASCII in RE2", code="unsupported-regex")
            out.append(c)
        elif c == "[":
            in_class = True
            if pattern.startswith("[^", i):
                out.append("[^")
                i += 2
                continue
            out.append(c)
        elif c == "$":
            out.append(_DOLLAR)  # PCRE2's end: only an alternative's last atom (see _split_lookahead)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _script_at(pattern: str, i: int) -> tuple[str, int] | None:
    """``\\p{Name}`` or ``\\P{Name}`` at ``i`` naming a script whose extensions PCRE2 matches
    and RE2 does not: (the name, the index after it)."""
    if pattern[i + 1] not in "pP" or not pattern.startswith("{", i + 2):
        return None
    close = pattern.find("}", i + 3)
    if close < 0:
        return None
    name = pattern[i + 3:close]
    return (name, close + 1) if name in SCRIPT_EXTENSIONS else None


@cache
def _script_class(name: str) -> str:
    """The characters of a script as PCRE2 matches ``\\p{Name}`` (Script_Extensions): RE2 ranges."""
    return "".join(f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}" for lo, hi in SCRIPT_EXTENSIONS[name])


def _top_level_alternatives(pattern: str) -> list[str]:
    parts, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern.startswith("[]", i) or pattern.startswith("[^]", i):
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


@dataclass
class _Alternative:
    body: Any  # compiled RE2 of the alternative without its trailing lookahead
    ahead: Any | None  # compiled RE2 of what must not follow, or None
    at_end: bool = False  # ends in $: at the end, or before a newline that ends the text


def _split_lookahead(alt: str) -> tuple[str, str | None]:
    """The alternative without its trailing negative lookahead (returned apart) or trailing $ ("$")."""
    if alt.endswith(_DOLLAR):
        return alt[:-len(_DOLLAR)], "$"
    if alt.endswith(")"):
        depth, i = 0, len(alt) - 1
        while i >= 0:
            c = alt[i]
            if c == ")" and (i == 0 or alt[i - 1] != "\\"):
                depth += 1
            elif c == "(" and (i == 0 or alt[i - 1] != "\\"):
                depth -= 1
                if depth == 0:
                    break
            i -= 1
        if alt.startswith("(?!", i):
            return alt[:i], alt[i + 3:-1]
    return alt, None


class Regex:
    """One compiled pattern: ``search`` gives the leftmost match at or after a byte offset."""

    def __init__(self, pattern: bytes):
        re2 = _re2()
        try:
            text = pattern.decode("utf-8")
        except UnicodeDecodeError:
            raise OpError(f"the pattern {pattern!r} is not UTF-8", code="unsupported-regex") from None
        self.text = text
        translated = translate(text)
        self._options = re2.Options()
        self._options.log_errors = False  # a refused pattern is a coded error, not a line on stderr
        self._alternatives: list[_Alternative] | None = None
        try:
            if "(?=" in translated or "(?<" in translated or "(?!" in translated or _DOLLAR in translated:
                self._alternatives = self._with_lookahead(re2, translated)
                bodies = "|".join(f"(?:{a.body.pattern.decode()})" for a in self._alternatives)
                self._any = re2.compile(bodies.encode(), self._options)
            else:
                self._any = re2.compile(translated.encode(), self._options)
        except re2.error as e:
            raise OpError(f"the pattern {text!r} is not one RE2 accepts: {e}", code="unsupported-regex") from None

    def _with_lookahead(self, re2: Any, translated: str) -> list[_Alternative]:
        out = []
        for alt in _top_level_alternatives(translated):
            body, ahead = _split_lookahead(alt)
            if "(?=" in body or "(?!" in body or "(?<" in body or _DOLLAR in body or \
                    ahead is not None and ("(?" in ahead.replace("(?:", "") or _DOLLAR in ahead):
                raise OpError(f"the pattern {self.text!r} has a lookaround or $ RE2 cannot emulate (only a negative "
                              "lookahead or a $ that ends a top-level alternative is)", code="unsupported-regex")
            out.append(_Alternative(re2.compile(f"(?:{body})".encode(), self._options),
                                    None if ahead is None or ahead == "$" else re2.compile(ahead.encode(), self._options),
                                    ahead == "$"))
        return out

    @property
    def groups(self) -> int:
        return int(self._any.groups)

    def search(self, text: bytes, pos: int) -> tuple[int, int, list[tuple[int, int]]] | None:
        """(start, end, group spans) of the leftmost match at or after ``pos``, None when none."""
        if self._alternatives is None:
            m = self._any.search(text, pos)
            if m is None:
                return None
            return m.start(), m.end(), [m.span(g) for g in range(1, self._any.groups + 1)]
        while pos <= len(text):
            m = self._any.search(text, pos)
            if m is None:
                return None
            start = m.start()
            found = self._at(text, start)
            if found is not None:
                return start, found, []
            pos = start + 1
        return None

    def _at(self, text: bytes, start: int) -> int | None:
        """The end of the first alternative that matches at ``start`` (PCRE2's order)."""
        for alt in self._alternatives or ():
            m = alt.body.match(text, start)
            if m is None:
                continue
            if alt.ahead is None and not alt.at_end:
                return int(m.end())
            end = m.end()
            while end >= start:  # backtrack: shorter matches of the body, longest first
                if (end == m.end() or alt.body.fullmatch(text, start, end) is not None) and self._follows(alt, text, end):
                    return int(end)
                end -= 1
        return None


    @staticmethod
    def _follows(alt: _Alternative, text: bytes, end: int) -> bool:
        if alt.at_end:
            return end == len(text) or end == len(text) - 1 and text[end:] == b"\n"
        return alt.ahead is None or alt.ahead.match(text, end) is None


@lru_cache(maxsize=64)
def compiled(pattern: bytes) -> Regex:
    return Regex(pattern)
