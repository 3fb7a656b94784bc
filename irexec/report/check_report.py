"""What ``irexec check`` found in a set of files, ready for any renderer.

The renderers (text, json, github, junit) only format; every decision that
changes what is reported (grouping repeated warnings, counting, whether the
run failed) is made here once, so all formats agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ..errors import ERROR, NOTE, WARNING, Diagnostic

# Warnings that real models repeat on hundreds of layers (every Convolution of
# a network): reported once per op, with a count and the first lines.
GROUPED_CODES = frozenset({"unsupported-op", "unsupported-element-type"})
FIRST_LINES_SHOWN = 3


@dataclass
class FileReport:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    layers: int = 0
    seconds: float = 0.0

    def count(self, severity: str) -> int:
        return sum(d.severity == severity for d in self.diagnostics)

    @property
    def errors(self) -> int:
        return self.count(ERROR)

    @property
    def warnings(self) -> int:
        return self.count(WARNING)

    @property
    def notes(self) -> int:
        return self.count(NOTE)

    def failures(self, strict: bool) -> list[Diagnostic]:
        """The diagnostics that make this file fail."""
        failing = (ERROR, WARNING) if strict else (ERROR,)
        return [d for d in self.diagnostics if d.severity in failing]


@dataclass
class CheckReport:
    files: list[FileReport]
    strict: bool = False

    @property
    def errors(self) -> int:
        return sum(f.errors for f in self.files)

    @property
    def warnings(self) -> int:
        return sum(f.warnings for f in self.files)

    @property
    def notes(self) -> int:
        return sum(f.notes for f in self.files)

    @property
    def failed(self) -> bool:
        return any(f.failures(self.strict) for f in self.files)

    def summary_line(self) -> str:
        return f"{_plural(len(self.files), 'file')}, {_plural(self.errors, 'error')}, {_plural(self.warnings, 'warning')}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def group_repeated(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per (code, op, message) for the GROUPED_CODES, placed at
    the first occurrence.  Its ``values`` keep every layer: ``count`` and
    ``layers`` (line, layer_id, layer_name of each)."""
    diagnostics = list(diagnostics)
    groups: dict[tuple[str, str | None, str], list[Diagnostic]] = {}
    for d in diagnostics:
        if d.code in GROUPED_CODES:
            groups.setdefault((d.code, d.op, d.message), []).append(d)
    out: list[Diagnostic] = []
    for d in diagnostics:
        if d.code not in GROUPED_CODES:
            out.append(d)
            continue
        members = groups.get((d.code, d.op, d.message))
        if members is None or members[0] is not d:
            continue  # already emitted with its group
        out.append(_merge(members))
    return out


def _merge(members: list[Diagnostic]) -> Diagnostic:
    first = members[0]
    layers = [{"line": d.line, "layer_id": d.layer_id, "layer_name": d.layer_name} for d in members]
    values = dict(first.values, count=len(members), layers=layers)
    if len(members) == 1:
        return replace(first, values=values)
    lines = [str(d.line) for d in members[:FIRST_LINES_SHOWN] if d.line is not None]
    more = ", ..." if len(members) > FIRST_LINES_SHOWN else ""
    where = f", first at lines {', '.join(lines)}{more}" if lines else ""
    trusted = "; their declared output dims are trusted" if first.code == "unsupported-op" else ""
    message = f"{first.message}: {len(members)} layers{where}{trusted}"
    return replace(first, message=message, layer_id=None, layer_name=None, port=None, port_kind=None, values=values)


# At most this many findings of one code, and of all codes, are reported per
# file; the rest are counted in one summary finding of the same severity.
MAX_PER_CODE = 100
MAX_PER_FILE = 1000


def cap_findings(diagnostics: list[Diagnostic], per_code: int = MAX_PER_CODE, per_file: int = MAX_PER_FILE) -> list[Diagnostic]:
    """The first ``per_code`` findings of each code, ``per_file`` in all, and
    one ``more-findings`` summary per code that had more."""
    if len(diagnostics) <= per_code:
        return diagnostics
    kept: list[Diagnostic] = []
    per: dict[str, int] = {}
    dropped: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        n = per.get(d.code, 0)
        per[d.code] = n + 1
        if n < per_code and len(kept) < per_file:
            kept.append(d)
        else:
            dropped.setdefault(d.code, []).append(d)
    for code, rest in dropped.items():
        severity = ERROR if any(d.severity == ERROR for d in rest) else WARNING if any(d.severity == WARNING for d in rest) else NOTE
        kept.append(Diagnostic("more-findings", f"{len(rest)} more {code} finding{'s' if len(rest) != 1 else ''} not shown "
                               f"(at most {per_code} per code and {per_file} per file are)", severity, file=rest[0].file,
                               line=rest[0].line, values={"code": code, "count": len(rest)}))
    return kept


def occurrences(d: Diagnostic) -> list[dict]:
    """The layers a (possibly grouped) diagnostic stands for."""
    return list(d.values.get("layers", []))
