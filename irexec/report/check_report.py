"""What ``irexec check`` found in a set of files, ready for any renderer.

The renderers (text, json, github, junit) only format; every decision that
changes what is reported (grouping repeated warnings, counting, whether the
run failed) is made here once, so all formats agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ..base.errors import ERROR, NOTE, WARNING, Diagnostic

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
        """Findings of ``severity``, a grouped one counted once per layer it stands
        for (as ``--statistics`` counts), so every format gives the same numbers."""
        return sum(weight(d) for d in self.diagnostics if d.severity == severity)

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


def weight(d: Diagnostic) -> int:
    """How many findings ``d`` stands for: a ``more-findings`` summary its count,
    a grouped finding its layers, any other one."""
    return int(d.values.get("count", 1)) if d.code == "more-findings" or "layers" in d.values else 1


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def group_repeated(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per (code, op, message) for the GROUPED_CODES, and one
    ``skipped`` note per failing layer (a cascade: one bad layer in front of a
    hundred), each placed at the first occurrence.  Its ``values`` keep every
    layer: ``count`` and ``layers`` (line, layer_id, layer_name of each)."""
    diagnostics = list(diagnostics)
    groups: dict[tuple, list[Diagnostic]] = {}
    for d in diagnostics:
        key = _group_key(d)
        if key is not None:
            groups.setdefault(key, []).append(d)
    out: list[Diagnostic] = []
    for d in diagnostics:
        key = _group_key(d)
        if key is None:
            out.append(d)
            continue
        members = groups.get(key)
        if members is None or members[0] is not d:
            continue  # already emitted with its group
        out.append(_merge(members))
    return out


_RANK = {ERROR: 0, WARNING: 1, NOTE: 2}


def errors_first(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Errors, then warnings, then notes, each in the order found (by line):
    what must be fixed is read first."""
    return sorted(diagnostics, key=lambda d: _RANK.get(d.severity, 3))


def _group_key(d: Diagnostic) -> tuple | None:
    if d.code in GROUPED_CODES:
        return (d.code, d.op, d.message)
    if d.code == "skipped" and "root_layer_id" in d.values:
        return (d.code, d.values["root_layer_id"])
    return None


def _merge(members: list[Diagnostic]) -> Diagnostic:
    first = members[0]
    layers = [{"line": d.line, "layer_id": d.layer_id, "layer_name": d.layer_name} for d in members]
    values = dict(first.values, count=len(members), layers=layers)
    if len(members) == 1:
        return replace(first, values=values)
    lines = [str(d.line) for d in members[:FIRST_LINES_SHOWN] if d.line is not None]
    more = ", ..." if len(members) > FIRST_LINES_SHOWN else ""
    where = f", first at lines {', '.join(lines)}{more}" if lines else ""
    if first.code == "skipped":
        root = f'layer {first.values["root_layer_id"]} "{first.values["root_layer_name"]}"'
        if "root_code" in first.values:  # a finding that stands for several layers
            root = f"the layers of the {first.values['root_code']} error ({root} and others)"
        where = f" (first at lines {', '.join(lines)}{more})" if lines else ""
        message = f"{len(members)} layers not checked: they depend on {root}, which failed{where}"
    else:
        trusted = "; their declared output dims are trusted" if first.code == "unsupported-op" else ""
        message = f"{first.message}: {len(members)} layers{where}{trusted}"
    return replace(first, message=message, layer_id=None, layer_name=None, op=None if first.code == "skipped" else first.op,
                   port=None, port_kind=None, values=values)


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


def _covers(d: Diagnostic) -> str:
    """The code a finding is selected by: a ``more-findings`` summary goes with the code it counts."""
    return str(d.values.get("code", d.code)) if d.code == "more-findings" else d.code


def select(report: CheckReport, *, select: frozenset[str] | None = None, ignore: frozenset[str] = frozenset(),
           notes: bool = True) -> CheckReport:
    """The report with only the findings ``select`` (None: all) names and
    ``ignore`` does not, and without notes unless ``notes``.  The exit status
    and every format follow from the result, as with ruff's --select/--ignore."""
    def keep(d: Diagnostic) -> bool:
        code = _covers(d)
        return (notes or d.severity != NOTE) and (select is None or code in select) and code not in ignore

    files = [replace(f, diagnostics=[d for d in f.diagnostics if keep(d)]) for f in report.files]
    return replace(report, files=files)


def statistics(report: CheckReport) -> list[tuple[str, str, int]]:
    """(code, severity, count) per code, most frequent first: a grouped finding
    counts every layer it stands for, a ``more-findings`` summary the findings
    it stands for."""
    counts: dict[tuple[str, str], int] = {}
    for f in report.files:
        for d in f.diagnostics:
            key = (_covers(d), d.severity)
            counts[key] = counts.get(key, 0) + weight(d)
    return sorted(((code, sev, n) for (code, sev), n in counts.items()), key=lambda t: (-t[2], t[0], t[1]))
