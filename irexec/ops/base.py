"""What every op is made of: declared inputs, typed attributes, one inference
path and a NumPy kernel.

An op is one subclass of ``Op``, registered with ``@register``:

    @register
    class Roll7(Op):
        type, version, since_opset, family = "Roll", 7, 7, "movement"
        inputs = (In("data"), In("shift", INDEX, rank=(0, 1), value=True), In("axes", INDEX, rank=(0, 1), value=True))

        def infer(self, data, shift, axes):          # TensorInfo in -> Inference (outputs + plan)
            ...
            return Inference([TensorInfo(data.shape, data.etype)], plan=totals)

        def compute(self, plan, data, shift, axes):  # ndarrays in, [ndarray] out; never re-validates
            ...

``Op.inference`` is the single entry point: it checks the declared input
rules (element-type classes, ranks) and then calls the op's ``infer``.  The
checker calls it on declared and partial shapes, the executor on the concrete
inputs of each run (cached per input signature) and hands the kernel the plan.
An input of unknown element type or shape (produced by a layer irexec does not
infer) is never an error: whatever is known is checked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .. import dtypes, limits
from ..dtypes import ElementType
from ..errors import OpError
from ..shapes import Dim, PartialShape, ShapeSyntaxError, parse_partial_shape, parse_static_shape

if TYPE_CHECKING:
    from ..ir.reader import Layer
    from ..ir.weights import Weights

# A value computed from Consts is folded only while it stays this small, so a
# check never materialises a big tensor just to learn that it is constant.
# The same holds for value bounds (two int64 arrays per tensor).  Both are
# decided from inferred shapes *before* anything is computed.
FOLD_LIMIT_ELEMENTS = 1 << 16
# Past the element budget, the work of one fold: the elements a kernel reads,
# writes and holds in temporaries (its padded input, im2col buffer, iteration
# space), as ``Op.fold_work`` estimates them.  About 32 MiB of f64 at most.
FOLD_WORK_LIMIT = 1 << 22

# Value bounds are int64 arrays; this upper bound means "unbounded".
UNBOUNDED = np.iinfo(np.int64).max
LOWEST = np.iinfo(np.int64).min

_UNKNOWN_TYPES = frozenset({"dynamic", "undefined"})


class TensorInfo:
    """What inference knows about one tensor: partial shape, element type and,
    when it is a compile-time constant, a lazily computed value.  A tensor
    computed at run time from shapes (ShapeOf -> Gather -> Concat) may carry
    ``bounds``: int64 arrays of the lowest and highest value of each element
    (``UNBOUNDED`` above), so a Reshape downstream still learns what is known."""

    __slots__ = ("shape", "etype", "_value", "_thunk", "_bounds")

    def __init__(
        self,
        shape: PartialShape,
        etype: ElementType,
        value: np.ndarray | Callable[[], np.ndarray | None] | None = None,
        bounds: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        self.shape = shape
        self.etype = etype
        if callable(value):
            self._thunk: Callable[[], np.ndarray | None] | None = value
            self._value: np.ndarray | None = None
        else:
            self._thunk = None
            self._value = value
        self._bounds = bounds

    @property
    def is_constant(self) -> bool:
        return self._thunk is not None or self._value is not None

    @property
    def known_type(self) -> bool:
        """False when the producer is a layer whose output type is not known."""
        return self.etype.name not in _UNKNOWN_TYPES

    def value(self) -> np.ndarray | None:
        """The constant value, or None when it is only known at run time."""
        if self._thunk is not None:
            thunk, self._thunk = self._thunk, None
            self._value = thunk()
        return self._value

    def bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(lowest, highest) int64 value arrays of an integer tensor, from its
        constant value or from what propagated; None when nothing is known."""
        if self._bounds is not None:
            return self._bounds
        if self.is_constant and (self.etype.is_integral or self.etype.name == "boolean"):
            v = self.value()
            if v is not None and v.size <= FOLD_LIMIT_ELEMENTS:
                exact = _as_int64(v)
                if exact is not None:
                    self._bounds = (exact, exact)
        return self._bounds

    def with_shape(self, shape: PartialShape) -> TensorInfo:
        return TensorInfo(shape, self.etype, self._value if self._thunk is None else self._thunk, self._bounds)

    def __repr__(self) -> str:
        extra = ", const" if self.is_constant else (", bounds" if self._bounds is not None else "")
        return f"TensorInfo({self.etype}{self.shape}{extra})"


def _as_int64(v: np.ndarray) -> np.ndarray | None:
    v = np.asarray(v)
    if v.dtype == np.uint64 and v.size and int(v.max()) > UNBOUNDED:
        return None
    return v.astype(np.int64)


@dataclass
class Inference:
    """What ``infer`` decides: the outputs, and a plan (normalised axes,
    permutation, output shape...) that the kernel uses as it is."""

    outputs: list[TensorInfo]
    plan: Any = None

    @cached_property
    def output_nbytes(self) -> int | None:
        """Bytes of the outputs (exact, Python ints), None when a shape is not static.
        Cached: a run asks once per layer, and inferences are cached per signature."""
        total = 0
        for info in self.outputs:
            if not info.shape.is_static:
                return None
            total += limits.nbytes(info.shape.to_tuple(), info.etype.itemsize)
        return total


# ------------------------------------------------------------ input rules

# Element-type classes an input may declare.
ANY = "any"
NUMERIC = "numeric"  # integral or real
INTEGRAL = "integral"  # integer types, not boolean
REAL = "real"  # f16, bf16, f32, f64
BOOLEAN = "boolean"
INDEX = ("i32", "i64")  # a tuple: exactly these element types


def same_as(name: str) -> str:
    """The element type of the named input."""
    return f"same:{name}"


@dataclass(frozen=True)
class In:
    """One declared input: its name, allowed element types, rank and whether
    the op reads its *value* during inference (axes, shapes, shifts)."""

    name: str
    types: str | tuple[str, ...] = ANY
    rank: int | tuple[int, int | None] | None = None  # exact, (lo, hi) with hi None unbounded, or any
    optional: bool = False  # may be left unconnected (only trailing inputs)
    variadic: bool = False  # any number >= 1 of these (last input only)
    value: bool = False  # inference reads its value: run-time plans are cached per value

    def type_ok(self, et: ElementType) -> bool:
        t = self.types
        if isinstance(t, tuple):
            return et.name in t
        if t == ANY or t.startswith("same:"):
            return True
        if t == NUMERIC:
            return et.is_numeric
        if t == INTEGRAL:
            return et.is_integral
        if t == REAL:
            return et.is_real
        if t == BOOLEAN:
            return et.name == "boolean"
        raise AssertionError(f"unknown element-type class {t!r}")

    def type_text(self) -> str:
        t = self.types
        if isinstance(t, tuple):
            return "element type " + " or ".join(t)
        return {NUMERIC: "a numeric element type", INTEGRAL: "an integer element type",
                REAL: "a floating-point element type", BOOLEAN: "element type boolean"}.get(t, t)

    def rank_ok(self, rank: int) -> bool:
        r = self.rank
        if r is None:
            return True
        if isinstance(r, int):
            return rank == r
        lo, hi = r
        return rank >= lo and (hi is None or rank <= hi)

    def rank_text(self) -> str:
        r = self.rank
        if isinstance(r, int):
            return {0: "be a scalar", 1: "be 1-D"}.get(r, f"have rank {r}")
        assert r is not None
        lo, hi = r
        if (lo, hi) == (0, 1):
            return "be a scalar or 1-D"
        return f"have rank {lo} or more" if hi is None else f"have rank {lo} to {hi}"


# ---------------------------------------------------------------- attributes

_INT_RE = re.compile(r"^\s*[-+]?[0-9]{1,100}\s*$")  # capped: see ir/reader.py
_UINT_RE = re.compile(r"^\s*[0-9]{1,100}\s*$")
_FLOAT_RE = re.compile(r"^\s*[-+]?(?:[0-9]{1,400}\.?[0-9]{0,400}|\.[0-9]{1,400})(?:[eE][-+]?[0-9]{1,5})?\s*$"
                       r"|^\s*[-+]?(?:inf|infinity|nan)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Attr:
    """A ``<data>`` attribute with its kind and default.

    kinds: int, uint, bool, float, str, enum (``choices``), ints and floats
    (comma-separated lists, ``strides="2,2"``), etype, pshape, shape."""

    kind: str
    default: Any = None
    required: bool = False
    doc: str = ""
    choices: tuple[str, ...] = ()

    def parse(self, name: str, raw: str) -> Any:
        kind = self.kind
        if kind == "int":
            return _parse_int(name, raw, raw)
        if kind == "uint":
            if raw.isascii() and raw.isdigit() and len(raw) <= 100:  # the common case, without the regex
                return int(raw)
            if not _UINT_RE.match(raw):
                raise OpError(f"attribute {name}={raw!r} is not an unsigned integer", code="bad-attribute")
            return int(raw)
        if kind == "bool":
            low = raw.strip().lower()
            if low in ("true", "1"):
                return True
            if low in ("false", "0"):
                return False
            raise OpError(f"attribute {name}={raw!r} is not a boolean (true/false)", code="bad-attribute")
        if kind == "float":
            return _parse_float(name, raw, raw)
        if kind == "enum":
            value = raw.strip().lower()
            if value not in self.choices:
                raise OpError(f"attribute {name}={raw!r} is not one of {', '.join(self.choices)}", code="bad-attribute")
            return value
        if kind in ("ints", "floats"):
            text = raw.strip()
            if text == "":
                return ()
            parse = _parse_int if kind == "ints" else _parse_float
            return tuple(parse(name, part, raw) for part in text.split(","))
        if kind == "etype":
            return _parse_etype(name, raw)
        if kind in ("pshape", "shape"):
            try:
                return parse_partial_shape(raw) if kind == "pshape" else _static_shape(raw)
            except ShapeSyntaxError as e:
                raise OpError(f"attribute {name}={raw!r}: {e}", code="bad-shape") from None
        return raw


def _parse_int(name: str, part: str, raw: str) -> int:
    if not _INT_RE.match(part):
        raise OpError(f"attribute {name}={raw!r} is not an integer" + (" list" if part != raw else ""), code="bad-attribute")
    value = int(part)
    if not -limits.INT64_MAX - 1 <= value <= limits.INT64_MAX:
        raise OpError(f"attribute {name}={raw!r} does not fit in int64", code="bad-attribute")
    return value


def _parse_float(name: str, part: str, raw: str) -> float:
    if not _FLOAT_RE.match(part):
        raise OpError(f"attribute {name}={raw!r} is not a number" + (" list" if part != raw else ""), code="bad-attribute")
    return float(part)


def Enum(*choices: str, default: str | None = None, doc: str = "") -> Attr:  # noqa: N802 (reads like a type)
    return Attr("enum", default if default is not None else choices[0], doc=doc, choices=tuple(choices))


# Static shapes are immutable tuples and a model repeats a few shape strings on
# thousands of Consts: parse each once.
_static_shape = lru_cache(maxsize=4096)(parse_static_shape)


def _parse_etype(name: str, raw: str) -> ElementType:
    etype = dtypes.lookup(raw)
    if etype is None:
        raise OpError(f"attribute {name}={raw!r} is not an IR element type", code="bad-element-type")
    if not etype.supported:
        raise OpError(
            f"element type {etype.name} is valid IR but not supported by irexec "
            f"(supported: {', '.join(dtypes.supported_names())})",
            code="unsupported-element-type",
        )
    return etype


# ---------------------------------------------------------------------- ops


class Op:
    """Base class of every op.  Subclasses set the class variables and
    implement ``infer`` and ``compute``."""

    type: ClassVar[str]
    version: ClassVar[int]
    family: ClassVar[str]  # for listings and pictures: movement, shape, elementwise, reduction, ...
    since_opset: ClassVar[int] = 1  # first opset whose `version="opsetN"` means this op version
    inputs: ClassVar[tuple[In, ...]] = ()
    outputs: ClassVar[int] = 1  # fixed output count; override num_outputs when it depends on attributes
    attributes: ClassVar[dict[str, Attr]] = {}
    summary: ClassVar[str] = ""
    # Inputs whose integer values the kernel only moves (data movement): running
    # it on their lower and on their upper bounds gives the output's bounds.
    # True: every input; the others must be exact constants (indices, axes).
    moves_values: ClassVar[bool | tuple[int, ...]] = False
    # False for ops whose outputs are not a function of their inputs (random
    # generators): never folded, so a check infers the same on every run.
    deterministic: ClassVar[bool] = True

    def __init__(self, layer: Layer | None = None, attrs: dict[str, Any] | None = None, weights: Weights | None = None):
        self.layer = layer
        self.weights = weights
        self._plans: dict[tuple, Inference] | None = None  # made by the first run: a check needs none
        values = attrs or {}  # only read: no copy
        for name, spec in self.attributes.items():
            setattr(self, name, values.get(name, spec.default))

    # ---- construction from a layer record
    @classmethod
    def parse_attributes(cls, data: dict[str, str]) -> tuple[dict[str, Any], list[OpError]]:
        """Typed attribute values, plus one error per bad or missing one."""
        values: dict[str, Any] = {}
        errors: list[OpError] = []
        for name, spec in cls.attributes.items():
            raw = data.get(name)
            if raw is not None:
                try:
                    values[name] = spec.parse(name, raw)
                except OpError as e:
                    errors.append(e)
            elif spec.required:
                errors.append(OpError(f"required attribute {name!r} is missing", code="bad-attribute"))
        return values, errors

    @classmethod
    def build(cls, layer: Layer | None, data: dict[str, str], weights: Weights | None = None) -> tuple[Op | None, list[OpError]]:
        """Parse the attributes and validate them: the one way the reader and
        the IR builder make an op."""
        values, errors = cls.parse_attributes(data)
        if errors:
            return None, errors
        op = cls(layer, values, weights)
        errors = op.validate()
        return (None, errors) if errors else (op, [])

    def validate(self) -> list[OpError]:
        """Checks of the attributes alone (no inputs needed); override to add some."""
        return []

    @classmethod
    def display(cls) -> str:
        return f"{cls.type}-{cls.version}"

    # ---- port counts
    @classmethod
    def input_range(cls) -> tuple[int, int | None]:
        """(fewest, most) input ports; most None for a variadic input."""
        return _input_range(cls.inputs)

    def num_outputs(self, n_inputs: int) -> int:
        return self.outputs

    def input_spec(self, index: int) -> In:
        specs = self.inputs
        return specs[index] if index < len(specs) else specs[-1]  # a variadic last input repeats

    # ---- the op's behaviour
    def inference(self, inputs: Sequence[TensorInfo]) -> Inference:
        """Check the declared input rules, then infer: the single path that
        check and run share."""
        self._check_declared(inputs)
        result = self.infer(*inputs)
        if not isinstance(result, Inference):
            result = Inference(list(result))
        outs = result.outputs
        for k, info in enumerate(outs):
            shape = info.shape
            if shape.dims is not None:
                if len(shape.dims) > limits.MAX_RANK:  # before hashing millions of dims into the cache
                    raise OpError(f"the output would have {len(shape.dims)} dims; irexec holds tensors of at most "
                                  f"{limits.MAX_RANK}", code="shape-too-large")
                held = held_shape(shape, info.etype.itemsize)
                if held is not shape:
                    outs[k] = info.with_shape(held)
        return result

    def infer(self, *inputs: TensorInfo) -> Inference | list[TensorInfo]:
        raise NotImplementedError

    def compute(self, plan: Any, *inputs: np.ndarray) -> Sequence[np.ndarray]:
        raise NotImplementedError

    def compute_unread(self, unread: frozenset[int], plan: Any, *inputs: np.ndarray) -> Sequence[np.ndarray]:
        """``compute`` when no layer reads the outputs in ``unread``: an op whose
        optional output is costly (MaxPool's indices) may return a stand-in of
        the right type and shape for it.  Never used when the outputs are shown
        (``--dump``, hooks)."""
        return self.compute(plan, *inputs)

    def run(self, *args: np.ndarray) -> list[np.ndarray]:
        """Infer on concrete arrays and run the kernel: the op on its own."""
        args = tuple(np.asarray(a) for a in args)
        return list(self.compute(self.plan_for(args).plan, *args))

    def plan_for(self, args: Sequence[np.ndarray]) -> Inference:
        """The inference on concrete inputs, cached per input signature (shapes,
        dtypes and the values of inputs the op reads while inferring)."""
        plans = self._plans
        if plans is None:
            plans = self._plans = {}
            self._reads = _value_inputs(type(self))
        reads = self._reads
        if reads is None:
            sig = tuple([(a.shape, a.dtype) for a in args])
        else:
            sig = tuple([(a.shape, a.dtype, a.tobytes()) if reads(i) else (a.shape, a.dtype) for i, a in enumerate(args)])
        found = plans.get(sig)
        if found is None:
            infos = [concrete_info(a, self.input_spec(i).value) for i, a in enumerate(args)]
            found = self.inference(infos)
            if len(plans) > 64:
                plans.clear()  # a model fed ever new shapes: keep the cache small
            plans[sig] = found
        return found

    def _check_declared(self, inputs: Sequence[TensorInfo]) -> None:
        rules = _rules(self.inputs)
        if rules is None:
            return
        last = len(rules) - 1
        first_of: dict[str, TensorInfo] = {}
        for index, info in enumerate(inputs):
            spec, allowed, same, rank = rules[index if index < last else last]
            first_of.setdefault(spec.name, info)
            name = info.etype.name
            if allowed is not None and name not in allowed and name not in _UNKNOWN_TYPES:
                raise op_error(f"{spec.name} must have {spec.type_text()}, got {name}", "bad-input-type", index)
            if same is not None and name not in _UNKNOWN_TYPES:
                other = first_of.get(same)
                if other is not None and other.known_type and other.etype is not info.etype:
                    raise op_error(f"{spec.name} must have the element type of {same} ({other.etype.name}), got {name}",
                                   "bad-input-type", index)
            if rank is not None:
                r = info.shape.rank
                if r is not None and not (rank[0] <= r and (rank[1] is None or r <= rank[1])):
                    raise op_error(f"{spec.name} must {spec.rank_text()}, got rank {r} (shape {info.shape})",
                                   "bad-input-rank", index)

    # ---- constant folding and value bounds, for the checker
    def fold(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        """The outputs with what is known of their values: every output's value
        (lazily) when all inputs are small constants; bounds through data
        movement.  Ops with their own rules for bounds override this."""
        outs = inference.outputs
        if not self.deterministic:
            return outs
        if not inputs or not all(i.is_constant for i in inputs):
            if self.moves_values:
                return self._fold_bounds(inputs, inference)
            return outs
        if not self.foldable(inputs, inference):
            return outs
        computed: list[Sequence[np.ndarray] | None] = []

        def run() -> Sequence[np.ndarray] | None:
            if not computed:
                values = [i.value() for i in inputs]
                result = None
                if all(v is not None for v in values):
                    try:
                        result = self.compute(inference.plan, *values)  # type: ignore[arg-type]
                    except (OpError, ArithmeticError):
                        result = None  # the run reports it with full context
                computed.append(result)
            return computed[0]

        def nth(k: int) -> Callable[[], np.ndarray | None]:
            def thunk() -> np.ndarray | None:
                r = run()
                return None if r is None else np.asarray(r[k])
            return thunk

        return [TensorInfo(o.shape, o.etype, nth(k)) for k, o in enumerate(outs)]

    def foldable(self, inputs: Sequence[TensorInfo], inference: Inference) -> bool:
        """Whether computing this layer during a check stays within the fold
        budget: every input and the outputs (from their inferred shapes) of at
        most FOLD_LIMIT_ELEMENTS, and the kernel's work within FOLD_WORK_LIMIT.
        Decided before anything is computed; past a budget a value is unknown."""
        if not self.deterministic:
            return False
        for info in inputs:
            n = info.shape.max_elements()
            if n is None or n > FOLD_LIMIT_ELEMENTS:
                return False
        if fold_elements(inference.outputs) is None:
            return False
        work = self.fold_work(inputs, inference)
        return work is not None and work <= FOLD_WORK_LIMIT

    def fold_work(self, inputs: Sequence[TensorInfo], inference: Inference) -> int | None:
        """Elements the kernel touches on these inputs (None: cannot tell, never
        folded).  The inputs and outputs, for a kernel whose work and
        temporaries are proportional to them; ops whose attributes size a
        temporary (pads, an iteration space) override this."""
        total = fold_elements(inference.outputs)
        if total is None:
            return None
        for info in inputs:
            n = info.shape.max_elements()
            if n is None:
                return None
            total += n
        return total

    def _fold_bounds(self, inputs: Sequence[TensorInfo], inference: Inference) -> list[TensorInfo]:
        outs = inference.outputs
        if not all(o.etype.is_integral for o in outs) or not self.foldable(inputs, inference):
            return outs
        los, his = [], []
        moves = self.moves_values
        for i, info in enumerate(inputs):
            if moves is not True and i not in moves:  # type: ignore[operator]
                v = info.value()  # axes, indices...: their exact value, never bounds
                if v is None:
                    return outs
                los.append(v)
                his.append(v)
                continue
            b = info.bounds()
            if b is None or not info.shape.is_static or b[0].size > FOLD_LIMIT_ELEMENTS:
                return outs
            los.append(b[0].reshape(info.shape.to_tuple()))
            his.append(b[1].reshape(info.shape.to_tuple()))
        try:
            lo = self.compute(inference.plan, *los)
            hi = self.compute(inference.plan, *his)
        except (OpError, ArithmeticError, ValueError, IndexError):
            return outs
        return [TensorInfo(o.shape, o.etype, None, (np.asarray(lo[k], np.int64), np.asarray(hi[k], np.int64)))
                for k, o in enumerate(outs)]


@lru_cache(maxsize=4096)  # shapes are immutable and a model repeats a few of them on every layer
def held_shape(shape: PartialShape, itemsize: int) -> PartialShape:
    """A computed shape held to the limits a declared one is held to
    (``irexec.limits``): at most MAX_RANK dims, no dim past 2^63-1 and no
    more than 2^63 bytes (the dims that are not 0 multiplied out, as NumPy
    counts them), so no Python integer of thousands of digits and no shape
    NumPy cannot allocate leaves inference.  An interval's upper bound past
    2^63-1 only means "unbounded".  OpError ``shape-too-large`` otherwise."""
    dims = shape.dims
    assert dims is not None
    if len(dims) > limits.MAX_RANK:
        raise OpError(f"the output would have {len(dims)} dims; irexec holds tensors of at most {limits.MAX_RANK}",
                      code="shape-too-large")
    need = max(itemsize, 1)
    clamp = False
    for d in dims:
        if d.lo:
            need *= d.lo
        if d.hi is not None and d.hi > limits.INT64_MAX:
            clamp = True
    if need > limits.MAX_TENSOR_BYTES:
        big = next((d.lo for d in dims if d.lo > limits.INT64_MAX), None)
        what = (f"a dim of {_digits(big)}, more than 2^63-1" if big is not None else
                f"{limits.format_bytes(need)}, more than any 64-bit address space holds")
        raise OpError(f"the output shape {_short(shape)} would need {what}", code="shape-too-large")
    if clamp:
        return PartialShape(tuple(Dim(d.lo, None) if d.hi is not None and d.hi > limits.INT64_MAX else d for d in dims))
    return shape


def _digits(n: int) -> str:
    """A huge integer as a message can hold it (str() of 5,000 digits and more raises)."""
    return f"about 2^{n.bit_length() - 1}" if n.bit_length() > 64 else str(n)


def _short(shape: PartialShape) -> str:
    def one(d: Dim) -> str:
        if d.is_static:
            return _digits(d.lo)
        lo = _digits(d.lo) if d.lo else ""
        hi = str(d.hi) if d.hi is not None and d.hi <= limits.INT64_MAX else ""
        return f"{lo}..{hi}" if lo or hi else "?"

    dims = shape.dims or ()
    if len(dims) > 8:
        return "[" + ",".join(one(d) for d in dims[:8]) + f",...] ({len(dims)} dims)"
    return "[" + ",".join(one(d) for d in dims) + "]"


def fold_elements(outs: Sequence[TensorInfo]) -> int | None:
    """Elements of the outputs when every one is static and, together, within
    the fold budget; None otherwise."""
    total = 0
    for o in outs:
        if not o.shape.is_static:
            return None
        total += math.prod(o.shape.to_tuple())
        if total > FOLD_LIMIT_ELEMENTS:
            return None
    return total


@cache  # one answer per op class's input tuple, asked once per layer
def _input_range(specs: tuple[In, ...]) -> tuple[int, int | None]:
    required = sum(1 for i in specs if not i.optional)
    return required, None if any(i.variadic for i in specs) else len(specs)


@cache
def _rules(specs: tuple[In, ...]) -> tuple[tuple[In, frozenset[str] | None, str | None, tuple[int, int | None] | None], ...] | None:
    """Per declared input: the element-type names it allows (None: any), the input
    whose type it must share, and its rank range; None when no input has a rule
    (Result, Convert).  Computed once per op class: the check runs on every layer."""
    out = []
    for spec in specs:
        t = spec.types
        same = t[5:] if isinstance(t, str) and t.startswith("same:") else None
        allowed = None if t == ANY or same is not None else frozenset(
            name for name, et in dtypes.ELEMENT_TYPES.items() if et.supported and spec.type_ok(et))
        r = spec.rank
        rank = None if r is None else (r, r) if isinstance(r, int) else r
        out.append((spec, allowed, same, rank))
    if all(a is None and s is None and r is None for _, a, s, r in out):
        return None
    return tuple(out)


@cache
def _value_inputs(cls: type[Op]) -> Callable[[int], bool] | None:
    """Whether input ``i`` is one whose value inference reads (a variadic last
    input repeats), or None when no input is.  Keyed by the op class: hashing
    its In specs on every run would cost more."""
    flags = tuple(spec.value for spec in cls.inputs)
    if not any(flags):
        return None
    last = len(flags) - 1
    return lambda i: flags[i if i < last else last]


def concrete_info(a: np.ndarray, with_value: bool) -> TensorInfo:
    """A run-time input as inference sees it."""
    etype = dtypes.from_dtype(a.dtype)
    if etype is None:
        etype = dtypes.get("undefined")
    return TensorInfo(_static_pshape(a.shape), etype, a if with_value else None)


# Shapes are immutable and a run repeats a few shapes on every layer: build each once.
_static_pshape = lru_cache(maxsize=4096)(PartialShape.static)


def op_error(message: str, code: str, port: int | None = None) -> OpError:
    """An OpError about input ``port`` (an input index) of the current layer."""
    err = OpError(message, code=code)
    if port is not None:
        err.diagnostics = [d.located(port=port, port_kind="input") for d in err.diagnostics]
    return err


def normalize_axis(axis: int, rank: int, what: str, code: str, port: int | None = None) -> int:
    """``axis`` in [-rank, rank-1], made non-negative; an error names the range."""
    if not -rank <= axis < rank or rank == 0:
        raise op_error(
            f"{what} {axis} is out of range [{-rank}, {rank - 1}] for rank {rank}"
            if rank
            else f"{what} {axis} is invalid: the data is a scalar (rank 0) and has no axes",
            code,
            port,
        )
    return axis + rank if axis < 0 else axis
