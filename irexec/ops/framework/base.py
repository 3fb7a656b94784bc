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
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ...base import dtypes, limits
from ...base.errors import OpError
from .accuracy import ACCUMULATING, FAMILY_ACCURACY

if TYPE_CHECKING:
    from ...ir.records import Layer
    from ...ir.weights import Weights

from .declare import ANY, BOOLEAN, COMPARABLE, INDEX, INTEGRAL, NUMERIC, REAL, Attr, Enum, In, IndexType, same_as
from .shape_limits import held_shape
from .tensor import _UNKNOWN_TYPES, FOLD_LIMIT_ELEMENTS, LOWEST, UNBOUNDED, Inference, TensorInfo, concrete_info

# Past the element budget (FOLD_LIMIT_ELEMENTS), the work of one fold: the elements a kernel
# reads, writes and holds in temporaries (its padded input, im2col buffer, iteration space),
# as ``Op.fold_work`` estimates them.  About 32 MiB of f64 at most.
FOLD_WORK_LIMIT = 1 << 22

# An op module imports the whole vocabulary from here: the declaration language
# (declare.py), the tensors inference passes (tensor.py) and ``Op``.
__all__ = ["ANY", "BOOLEAN", "COMPARABLE", "FOLD_LIMIT_ELEMENTS", "INDEX", "INTEGRAL", "LOWEST", "NUMERIC", "REAL", "UNBOUNDED", "Attr",
           "Enum", "In", "IndexType", "Inference", "Op", "TensorInfo", "concrete_info", "normalize_axis", "op_error", "require",
           "same_as"]



class Op:
    """Base class of every op.  Subclasses set the class variables and
    implement ``infer`` and ``compute``."""

    type: ClassVar[str]
    version: ClassVar[int]
    family: ClassVar[str]  # for listings and pictures: movement, shape, elementwise, reduction, ...
    # first opset whose `version="opsetN"` means this op version; the op's own
    # version unless it says otherwise (RNNCell-0 is opset1's, MVN-1 opset2's)
    since_opset: ClassVar[int] = 1
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
    # True for ops whose output is a function of their input's shape alone
    # (ShapeOf): the executor keeps what is computed from them per input shapes.
    shape_only: ClassVar[bool] = False
    # True for ops whose ``infer`` reads only the op's attributes and its inputs' shapes
    # and element types (never a value, bounds or the layer): a check reuses one
    # inference for every layer of the same signature.  A subclass with its own
    # ``infer`` is False unless it says so itself.
    infer_from_types: ClassVar[bool] = False
    # What the op promises against the exact result: exact, rounded, transcendental or
    # accumulating (accuracy.py).  Unset, it is the family's (FAMILY_ACCURACY).
    accuracy: ClassVar[str] = ""

    if TYPE_CHECKING:
        # Declared attributes (``attributes``) become instance attributes when a
        # layer is bound; their names are data, so the type checker sees them here.
        def __getattr__(self, name: str) -> Any: ...

    # the package whose extension defines the op (not core OpenVINO): read from version="extension"
    extension: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__
        if "infer" in own and "infer_from_types" not in own:
            cls.infer_from_types = False
        if "version" in own and "since_opset" not in own:
            cls.since_opset = own["version"]
        if not cls.accuracy and getattr(cls, "family", None):
            cls.accuracy = FAMILY_ACCURACY.get(cls.family, ACCUMULATING)

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
            self._reads = _value_inputs(type(self))  # type: ignore[arg-type]  # a class hashes by identity
        reads = self._reads
        sig: tuple[tuple[Any, ...], ...]
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
            seen = first_of.get(spec.name)
            if seen is None or (not seen.known_type and info.known_type):
                first_of[spec.name] = info  # same_as compares with the first input of that name whose type is known
            name = info.etype.name
            if allowed is not None and name not in allowed and name not in _UNKNOWN_TYPES:
                raise op_error(f"{spec.name} must have {spec.type_text()}, got {name}", "bad-input-type", index)
            if same is not None and name not in _UNKNOWN_TYPES:
                other = first_of.get(same)
                if other is not None and other.known_type and other.etype is not info.etype:
                    raise op_error(f"every {spec.name} must have one element type ({other.etype.name}), got {name}"
                                   if same == spec.name else
                                   f"{spec.name} must have the element type of {same} ({other.etype.name}), got {name}",
                                   "bad-input-type", index)
            if rank is not None:
                r = info.shape.rank
                if r is not None and not (rank[0] <= r and (rank[1] is None or r <= rank[1])):
                    raise op_error(f"{spec.name} must {spec.rank_text()}, got rank {r} (shape {info.shape})",
                                   "bad-input-rank", index)
            if spec.elements is not None and not spec.elements_ok(info.shape):
                raise op_error(f"{spec.name} must {spec.elements_text()}, got shape {info.shape}", "bad-input-rank", index)

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
    if all(a is None and s is None and r is None and spec.elements is None for spec, a, s, r in out):
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


def require(cond: object, code: str, message: str | Callable[..., str], port: int | None = None) -> None:
    """Raise ``op_error(message, code, port)`` unless ``cond`` holds: one line
    per rule in ``infer``, as OpenVINO's NODE_VALIDATION_CHECK.  ``message`` may
    be a function, so a rule checked on every layer builds its text only when it fails."""
    if not cond:
        raise op_error(message() if callable(message) else message, code, port)


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
