"""Comparing a run's outputs with a reference, Polygraphy style.

An element passes when ``|run - ref| <= atol + rtol * |ref|``, when both are
equal (so equal infinities pass), or when both are NaN.  A tolerance not given
(globally or for the output) takes its default from the output's element type
(``irexec.api.tolerances``): exact for integers and booleans and for an output
the graph only moves (``exact``); for floats an atol scaled by the reference's
largest magnitude plus an rtol; ``atol=0, rtol=0`` asks for exact.
Differences are computed in float64 for floating types and as exact unsigned
64-bit magnitudes for integers, so nothing overflows or rounds to zero.

On a mismatch the report gives, per output, the largest absolute and relative
errors, the worst element (index and both values), how many elements fail and
the smallest atol (keeping rtol) or rtol (keeping atol) that would pass.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..base import lowbit, strings
from ..base.errors import ERROR, CompareError, Diagnostic, UsageError
from ..base.shapes import format_shape
from ..system.tensorfile import as_dtype
from .tolerances import DEFAULT_TOLERANCES, DefaultTolerance, Tolerance, check_tolerance, default_tolerance, reference_magnitude

__all__ = ["DEFAULT_TOLERANCES", "CompareReport", "DefaultTolerance", "OutputComparison", "Tolerance",
           "check_tolerance", "compare_outputs", "compare_tensor", "default_tolerance", "format_number"]

# ------------------------------------------------------------------ results

OK, MISMATCH, MISSING, EXTRA, DTYPE, SHAPE = "ok", "mismatch", "missing", "extra", "dtype", "shape"
_CODES = {
    MISMATCH: "compare-mismatch",
    MISSING: "compare-missing-output",
    EXTRA: "compare-extra-output",
    DTYPE: "compare-dtype-mismatch",
    SHAPE: "compare-shape-mismatch",
}


@dataclass
class OutputComparison:
    """How one output compares with its reference."""

    name: str
    status: str  # ok | mismatch | missing | extra | dtype | shape
    atol: float = 0.0
    rtol: float = 0.0
    # given | default (both by the element type) | atol given | rtol given | exact (the graph only moves data)
    tolerance_from: str = "given"
    dtype: str = ""
    shape: tuple[int, ...] = ()
    size: int = 0
    mismatches: int = 0
    unfixable: int = 0  # mismatches no finite tolerance passes (NaN or infinity against another value)
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    worst_index: tuple[int, ...] | None = None
    worst_actual: object = None
    worst_reference: object = None
    required_atol: float = 0.0  # the smallest atol that passes with this rtol (inf: none does)
    required_rtol: float = 0.0  # the smallest rtol that passes with this atol (inf: none does)
    suggested_atol: float | None = None  # required_atol rounded up to 3 digits, verified to pass
    suggested_rtol: float | None = None
    detail: str = ""  # for dtype / shape / missing / extra
    magnitude: float = 1.0  # the largest finite |ref|, which scales a default float atol
    note: str = ""  # what may explain a mismatch (dynamic_quantization.py), after the passing hint

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def code(self) -> str:
        return _CODES.get(self.status, "compare-mismatch")

    def summary(self) -> str:
        """One line naming the output and every number that matters."""
        if self.status != MISMATCH:
            return f"output {self.name!r}: {self.detail}" if self.detail else f"output {self.name!r}: {self.status}"
        if self.dtype == "string":
            return (f"output {self.name!r} (string{format_shape(self.shape)}): {self.mismatches} of {self.size} strings differ "
                    f"(strings compare exactly); first at {_index(self.worst_index)}: run {format_number(self.worst_actual)}, "
                    f"reference {format_number(self.worst_reference)}")
        pct = 100.0 * self.mismatches / self.size if self.size else 0.0
        parts = [
            f"output {self.name!r} ({self.dtype}{format_shape(self.shape)}): {self.mismatches} of {self.size} "
            f"elements ({pct:.3g}%) differ beyond {self.tolerance_text()}",
            f"max abs error {format_number(self.max_abs_error)}, max rel error {format_number(self.max_rel_error)}",
            f"worst at {_index(self.worst_index)}: run {format_number(self.worst_actual)}, reference {format_number(self.worst_reference)}",
            self.passing_hint(),
        ]
        return "; ".join(parts + [self.note] if self.note else parts)

    def tolerance_text(self) -> str:
        """The tolerance applied and where it came from: ``atol=1e-05, rtol=1e-05, the float32 default``."""
        values = "exact (atol=0, rtol=0)" if self.atol == 0 and self.rtol == 0 else \
            f"atol={format_number(self.atol)}, rtol={format_number(self.rtol)}"
        scale = DEFAULT_TOLERANCES.get(self.dtype)
        scaled = f" ({scale.scale:g} x max|ref| {self.magnitude:.3g})" if scale else ""
        if self.tolerance_from == "exact":
            return f"{values}, the graph only moves data"
        if self.tolerance_from == "given":
            return f"{values}, as given"
        if self.tolerance_from in ("atol given", "rtol given"):
            given = self.tolerance_from.split()[0]
            other = "rtol" if given == "atol" else "atol"
            return (f"{given}={format_number(getattr(self, given))} as given, "
                    f"{other}={format_number(getattr(self, other))}{scaled if other == 'atol' else ''} "
                    f"by the {self.dtype} default")
        if scaled and values.startswith("atol="):
            values = f"atol={format_number(self.atol)}{scaled}, rtol={format_number(self.rtol)}"
        return f"{values}, the {self.dtype} default"

    def passing_hint(self) -> str:
        options = []
        if self.suggested_atol is not None:
            options.append(f"`atol={self.name}:{format_number(self.suggested_atol)}` (with rtol {format_number(self.rtol)})")
        if self.suggested_rtol is not None:
            options.append(f"`rtol={self.name}:{format_number(self.suggested_rtol)}` (with atol {format_number(self.atol)})")
        stuck = (f"{self.unfixable} element{'s' if self.unfixable != 1 else ''} no tolerance passes "
                 "(NaN or infinity against another value)") if self.unfixable else ""
        if not options:
            return stuck or "no finite tolerance passes"
        hint = "would pass with " + " or ".join(options)
        return f"{stuck}; the other elements {hint}" if stuck else hint


@dataclass
class CompareReport:
    comparisons: list[OutputComparison]
    reference: str | None = None  # the reference file, for messages
    # (output, reference array) pairs matched by position, when no name matched
    by_position: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.comparisons)

    @property
    def failures(self) -> list[OutputComparison]:
        return [c for c in self.comparisons if not c.ok]

    def __getitem__(self, name: str) -> OutputComparison:
        for c in self.comparisons:
            if c.name == name:
                return c
        raise KeyError(name)

    def diagnostics(self) -> list[Diagnostic]:
        return [Diagnostic(c.code, c.summary(), ERROR, file=self.reference, values=_values(c)) for c in self.failures]

    def __repr__(self) -> str:
        """PASSED or FAILED, then one line per output: status, worst error, tolerance."""
        lines = [f"CompareReport: {'PASSED' if self.ok else 'FAILED'}, {len(self.comparisons)} output(s)"
                 + (f" against {self.reference}" if self.reference else "")]
        for c in self.comparisons:
            if c.status in (OK, MISMATCH):
                lines.append(f"  [{c.name!r}] {c.status}: {c.mismatches}/{c.size} beyond {c.tolerance_text()}; "
                             f"max abs error {format_number(c.max_abs_error)}")
            else:
                lines.append(f"  [{c.name!r}] {c.status}: {c.detail}")
        return "\n".join(lines)

    def raise_if_failed(self) -> None:
        if not self.ok:
            raise CompareError(self.diagnostics())

    def rows(self) -> list[list[str]]:
        """Table rows: output, status, max abs, max rel, mismatches, worst."""
        rows = []
        for c in self.comparisons:
            if c.status in (OK, MISMATCH) and c.dtype == "string":
                worst = "-" if c.worst_index is None else \
                    f"{_index(c.worst_index)}: {format_number(c.worst_actual)} vs {format_number(c.worst_reference)}"
                rows.append([c.name, c.status, "-", "-", f"{c.mismatches}/{c.size}", worst])
            elif c.status in (OK, MISMATCH):
                worst = "-"
                if c.worst_index is not None:
                    worst = f"{_index(c.worst_index)}: {format_number(c.worst_actual)} vs {format_number(c.worst_reference)}"
                rows.append([c.name, c.status, format_number(c.max_abs_error), format_number(c.max_rel_error),
                             f"{c.mismatches}/{c.size}", worst])
            else:
                rows.append([c.name, c.status, "-", "-", "-", c.detail])
        return rows


def _values(c: OutputComparison) -> dict[str, object]:
    return {k: getattr(c, k) for k in ("name", "status", "mismatches", "size", "max_abs_error", "max_rel_error",
                                        "worst_index", "required_atol", "required_rtol")}


def format_number(x: object) -> str:
    """A number as short text: integers plainly, floats to 9 significant digits;
    a string element as its Python literal."""
    if isinstance(x, (bytes, str)):
        return strings.show(x)
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x)).lower()
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, np.generic) and not isinstance(x, np.float64):
        return str(x)  # the shortest text of its own type (f16, bf16, f32)
    f = float(x)  # type: ignore[arg-type]
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == int(f) and abs(f) < 1e15:
        return str(int(f))
    return f"{f:.9g}"


def _index(idx: tuple[int, ...] | None) -> str:
    return "[" + ",".join(str(i) for i in (idx or ())) + "]"


# ------------------------------------------------------------------ comparing


def compare_outputs(
    actual: Mapping[str, np.ndarray],
    reference: Mapping[str, np.ndarray],
    atol: Tolerance | float | Mapping[str, float] | None = None,
    rtol: Tolerance | float | Mapping[str, float] | None = None,
    *,
    reference_name: str | None = None,
    exact: Collection[str] = (),
) -> CompareReport:
    """Compare every output with the reference tensor of the same name; when
    no name is shared and both hold as many tensors (a reference saved by
    position, as "output_0", ...), the n-th output with the n-th array.
    Outputs named in ``exact`` (the graph only moves their data) default to exact."""
    atol_t, rtol_t = Tolerance.of(atol), Tolerance.of(rtol)
    by_position: list[tuple[str, str]] = []
    if actual and len(actual) == len(reference) and not set(actual) & set(reference):
        by_position = list(zip(actual, reference))
        reference = {name: reference[ref] for name, ref in by_position}
    unknown = sorted((set(atol_t.per_output) | set(rtol_t.per_output)) - set(actual))
    if unknown:
        known = ", ".join(repr(k) for k in actual) or "none"
        raise UsageError(f"tolerance given for {', '.join(repr(u) for u in unknown)}, which is not an output "
                         f"(outputs: {known})", code="unknown-name")
    comparisons = []
    for name, arr in actual.items():
        a_tol, r_tol = atol_t.get(name), rtol_t.get(name)
        if name not in reference:
            d_atol, d_rtol = (0.0, 0.0) if name in exact else default_tolerance(np.asarray(arr).dtype)
            comparisons.append(OutputComparison(name, MISSING, d_atol if a_tol is None else a_tol,
                                                d_rtol if r_tol is None else r_tol,
                                                detail="the reference has no tensor of this name"))
            continue
        comparisons.append(compare_tensor(name, np.asarray(arr), np.asarray(reference[name]), a_tol, r_tol,
                                          exact=name in exact))
    for name in reference:
        if name not in actual:
            known = ", ".join(repr(k) for k in actual) or "none"
            comparisons.append(OutputComparison(name, EXTRA, detail=f"the reference holds {name!r}, which is not an "
                                                f"output of this run (outputs: {known})"))
    return CompareReport(comparisons, reference_name, by_position)


def _as_reference_dtype(actual: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """np.savez stores bfloat16 as 2-byte void: read it back as bf16.  A
    big-endian reference of the run's type holds the same values."""
    held = as_dtype(ref, actual.dtype)  # likewise the ml_dtypes low-bit types, as |V1
    if held is not None:
        return held
    if ref.dtype != actual.dtype and ref.dtype.newbyteorder("=") == actual.dtype.newbyteorder("="):
        return ref.astype(actual.dtype)
    return ref


def compare_tensor(name: str, actual: np.ndarray, reference: np.ndarray, atol: float | None = None,
                   rtol: float | None = None, *, exact: bool = False) -> OutputComparison:
    """One output against its reference; a tolerance left None is the default
    of the output's element type (scaled by the reference's magnitude), or 0
    when ``exact`` (the graph only moves the output's data)."""
    if actual.dtype == object or reference.dtype.kind in "USO" and actual.dtype.kind in "USO":
        return _compare_strings(name, actual, reference)
    reference = _as_reference_dtype(actual, reference)
    exact = exact and actual.dtype.name in DEFAULT_TOLERANCES  # the others are exact by their type
    comparable = (reference.dtype == actual.dtype and reference.shape == actual.shape
                  and actual.dtype.name in DEFAULT_TOLERANCES)
    magnitude = reference_magnitude(reference if comparable else None)
    d_atol, d_rtol = (0.0, 0.0) if exact else default_tolerance(actual.dtype, reference if comparable else None)
    if atol is not None and rtol is not None:
        source = "given"
    elif atol is None and rtol is None:
        source = "exact" if exact else "default"
    else:
        source = "atol given" if atol is not None else "rtol given"
    atol, rtol = d_atol if atol is None else atol, d_rtol if rtol is None else rtol
    base = OutputComparison(name, OK, atol, rtol, source, str(actual.dtype), tuple(actual.shape), int(actual.size),
                            magnitude=magnitude)
    if actual.dtype != reference.dtype:
        base.status, base.detail = DTYPE, f"dtype {actual.dtype} from the run but {reference.dtype} in the reference"
        return base
    if actual.shape != reference.shape:
        base.status = SHAPE
        base.detail = f"shape {format_shape(actual.shape)} from the run but {format_shape(reference.shape)} in the reference"
        return base
    if actual.size == 0:
        return base
    if lowbit.name_of(actual.dtype) is not None:  # compared by value: narrow integers exactly, the rest as f32
        actual, reference = lowbit.to_number(actual), lowbit.to_number(reference)
    kind = actual.dtype.kind
    if kind == "b":
        a, r = actual.view(np.uint8), reference.view(np.uint8)
        return _fill(base, actual, reference, a != r, (a != r).astype(np.float64), np.abs(r.astype(np.float64)))
    if kind in "iu":
        differs = actual != reference
        return _fill(base, actual, reference, differs, _int_abs_diff(actual, reference).astype(np.float64),
                     np.abs(reference.astype(np.float64)))
    if kind == "c":
        raise UsageError(f"output {name!r} is complex ({actual.dtype}); irexec compares real tensors only", code="bad-dtype")
    a, r = actual.astype(np.float64), reference.astype(np.float64)  # exact for f16, bf16, f32, f64
    a_nan, r_nan = np.isnan(a), np.isnan(r)
    same = (a == r) | (a_nan & r_nan)
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - r)
    diff[same] = 0.0
    diff[a_nan != r_nan] = np.inf
    diff[np.isnan(diff)] = np.inf  # +inf against -inf
    return _fill(base, actual, reference, ~same, diff, np.abs(np.where(r_nan, 0.0, r)))


def _compare_strings(name: str, actual: np.ndarray, reference: np.ndarray) -> OutputComparison:
    """Strings compare exactly, byte for byte (a reference may be unicode, bytes or objects)."""
    base = OutputComparison(name, OK, 0.0, 0.0, "default", "string", tuple(actual.shape), int(actual.size))
    if reference.dtype.kind not in "USO" or not strings.is_text(reference):
        base.status, base.detail = DTYPE, f"strings from the run but {reference.dtype} in the reference"
        return base
    if actual.shape != reference.shape:
        base.status = SHAPE
        base.detail = f"shape {format_shape(actual.shape)} from the run but {format_shape(reference.shape)} in the reference"
        return base
    a, r = strings.as_bytes(actual), strings.as_bytes(reference)
    differs = np.array([x != y for x, y in zip(a.reshape(-1), r.reshape(-1))], dtype=bool).reshape(actual.shape)
    if differs.any():
        idx = np.unravel_index(int(np.argmax(differs)), actual.shape)
        base.status, base.mismatches = MISMATCH, int(np.count_nonzero(differs))
        base.worst_index, base.worst_actual, base.worst_reference = tuple(int(i) for i in idx), a[idx], r[idx]
        base.max_abs_error = base.max_rel_error = base.required_atol = base.required_rtol = math.inf
        base.unfixable = base.mismatches
    return base


def _int_abs_diff(a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """|a - r| exactly, as uint64: wrapping subtraction of the larger minus the
    smaller is exact because the true magnitude is below 2**64."""
    if a.dtype.kind == "i":
        au, ru = a.astype(np.int64).view(np.uint64), r.astype(np.int64).view(np.uint64)
    else:
        au, ru = a.astype(np.uint64), r.astype(np.uint64)
    return np.where(a >= r, au - ru, ru - au)


def _passes(diff: np.ndarray, ref_abs: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """Within tolerance; an infinite difference (a NaN or infinity against another
    value) never is, not even against rtol times an infinite reference."""
    with np.errstate(invalid="ignore", over="ignore"):
        return (diff <= atol + rtol * ref_abs) & np.isfinite(diff)


def _fill(c: OutputComparison, actual: np.ndarray, reference: np.ndarray, differs: np.ndarray, diff: np.ndarray,
          ref_abs: np.ndarray) -> OutputComparison:
    """Errors, worst element and required tolerances, given the exact
    ``differs`` mask and the float64 absolute differences."""
    atol, rtol = c.atol, c.rtol
    fails = differs & ~_passes(diff, ref_abs, atol, rtol)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(diff == 0, 0.0, diff / ref_abs)  # x/0 = inf when the values differ
    c.max_abs_error = float(diff.max())
    c.max_rel_error = float(rel.max())
    c.mismatches = int(np.count_nonzero(fails))
    # worst: the largest absolute error among the failing elements (or among all, when none fails)
    pool = np.where(fails, diff, -1.0) if c.mismatches else np.where(differs, diff, -1.0)
    if differs.any():
        flat = int(np.argmax(pool))
        idx = np.unravel_index(flat, actual.shape)
        c.worst_index = tuple(int(i) for i in idx)
        c.worst_actual, c.worst_reference = actual[idx], reference[idx]
    # tolerances are computed over the elements some finite tolerance can pass
    fixable = differs & np.isfinite(diff) & np.isfinite(ref_abs)
    c.unfixable = int(np.count_nonzero(fails & ~fixable))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        c.required_atol = float(np.max(np.where(fixable, diff - rtol * ref_abs, 0.0), initial=0.0))
        over = fixable & (diff > atol)
        c.required_rtol = float(np.max(np.where(over, (diff - atol) / ref_abs, 0.0), initial=0.0))
    c.required_atol = max(c.required_atol, 0.0)
    if c.unfixable:
        c.required_atol = c.required_rtol = math.inf
    if c.mismatches:
        c.status = MISMATCH
        if c.mismatches > c.unfixable:
            c.suggested_atol = _passing(_required(fixable, diff - rtol * ref_abs),
                                        lambda v: not (fixable & ~_passes(diff, ref_abs, v, rtol)).any())
            over = fixable & (diff > atol)
            with np.errstate(divide="ignore", invalid="ignore"):
                c.suggested_rtol = _passing(_required(over, (diff - atol) / ref_abs),
                                            lambda v: not (fixable & ~_passes(diff, ref_abs, atol, v)).any())
    return c


def _required(mask: np.ndarray, need: np.ndarray) -> float:
    return max(float(np.max(np.where(mask, need, 0.0), initial=0.0)), 0.0)


def _passing(required: float, passes) -> float | None:
    """``required`` rounded up to three significant digits, nudged up until
    ``passes`` confirms it (floating-point sums can miss by an ulp); None when
    no finite value passes."""
    if not math.isfinite(required):
        return None
    value = _ceil_3(required)
    for _ in range(8):
        if passes(value):
            return value
        value = _ceil_3(value * (1 + 1e-3) if value else 1e-300)
    return None


def _ceil_3(x: float) -> float:
    if x <= 0:
        return 0.0
    exp = math.floor(math.log10(x)) - 2
    step = 10.0**exp
    value = float(f"{math.ceil(round(x / step, 6)) * step:.3g}")
    while value < x:
        value = float(f"{value + step:.3g}")
    return value
