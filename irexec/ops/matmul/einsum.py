"""Einsum-7: products and sums of tensors described by an equation such as
``ij,jk->ik`` (explicit) or ``ij,jk`` (implicit: the labels used once, in
alphabetical order); ``...`` stands for broadcast dims.

Floats go through ``np.einsum`` with contraction-order optimisation (BLAS
for f32/f64; f16 and bf16 in f32, rounded once); integers are exact and wrap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from ...base import lowbit
from ...base.dtypes import is_bf16
from ...base.shapes import Dim, PartialShape, broadcast_numpy
from ..framework.base import NUMERIC, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

_TERM = re.compile(r"^(?:[a-zA-Z]|\.\.\.)*$")


def parse_equation(equation: str) -> tuple[list[str], str | None]:
    """Input terms and the output term (None: implicit); ``...`` kept as is."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise op_error(f"equation {equation!r} has more than one '->'", "bad-attribute")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    out = rhs if "->" in eq else None
    for t in terms + ([out] if out is not None else []):
        if not _TERM.match(t) or t.count("...") > 1:
            raise op_error(f"equation {equation!r}: term {t!r} must be letters with at most one '...'", "bad-attribute")
    return terms, out


def _labels(term: str) -> list[str]:
    """The term as a list of labels, '...' one of them."""
    return re.findall(r"\.\.\.|[a-zA-Z]", term)


@register
class Einsum7(Op):
    type, version, family = "Einsum", 7, "matmul"
    summary = "sums of products over labelled axes (an equation such as ij,jk->ik)"
    inputs = (In("inputs", NUMERIC, variadic=True),)
    attributes = {"equation": Attr("str", required=True, doc="labels of each input and of the output")}

    def validate(self) -> list:
        try:
            parse_equation(self.equation)
        except Exception as e:  # OpError
            return [e]
        return []

    def input_spec(self, index: int) -> In:
        return In("inputs", NUMERIC if index == 0 else same_as("inputs"))

    def infer(self, *ins: TensorInfo) -> Inference:
        terms, out = parse_equation(self.equation)
        if len(terms) != len(ins):
            raise op_error(f"equation {self.equation!r} names {len(terms)} inputs, the layer has {len(ins)}",
                           "incompatible-inputs")
        label_dims: dict[str, Dim] = {}
        ellipsis: PartialShape | None = PartialShape(())
        counts: dict[str, int] = {}
        for k, (term, info) in enumerate(zip(terms, ins)):
            labels = _labels(term)
            letters = [x for x in labels if x != "..."]
            for x in letters:
                counts[x] = counts.get(x, 0) + 1
            rank = info.shape.rank
            has_ell = "..." in labels
            if rank is None:
                if has_ell:
                    ellipsis = None
                continue
            if (not has_ell and rank != len(letters)) or (has_ell and rank < len(letters)):
                raise op_error(f"term {term!r} needs rank {len(letters)}{' or more' if has_ell else ''}, input {k} has "
                               f"shape {info.shape}", "bad-input-rank", k)
            dims = list(info.shape.dims or ())
            pos = 0
            for x in labels:
                if x == "...":
                    n = rank - len(letters)
                    if ellipsis is not None:
                        ellipsis = broadcast_numpy(ellipsis, PartialShape(tuple(dims[pos:pos + n])))
                        if ellipsis is None:
                            raise op_error(f"the '...' dims of input {k} {info.shape} do not broadcast with the others",
                                           "incompatible-inputs", k)
                    pos += n
                    continue
                d = dims[pos]
                pos += 1
                merged = label_dims[x].intersect(d) if x in label_dims else d
                if merged is None:
                    raise op_error(f"label {x!r} has dim {label_dims[x]} and, in input {k} {info.shape}, {d}",
                                   "incompatible-inputs", k)
                label_dims[x] = merged
        any_ell = any("..." in t for t in terms)
        if out is None:
            out_labels = (["..."] if any_ell else []) + sorted(x for x, c in counts.items() if c == 1)
        else:
            out_labels = _labels(out)
            letters = [x for x in out_labels if x != "..."]
            if len(set(letters)) != len(letters):
                raise op_error(f"equation {self.equation!r}: an output label is repeated", "bad-attribute")
            missing = [x for x in letters if x not in counts]
            if missing:
                raise op_error(f"equation {self.equation!r}: output labels {missing} are not in any input", "bad-attribute")
            if "..." in out_labels and not any_ell:
                raise op_error(f"equation {self.equation!r}: '...' in the output but in no input", "bad-attribute")
        dims_out: list[Dim] = []
        for x in out_labels:
            if x == "...":
                if ellipsis is None:
                    return Inference([TensorInfo(PartialShape(None), ins[0].etype)])
                dims_out.extend(ellipsis.dims or ())
            elif x in label_dims:
                dims_out.append(label_dims[x])
            else:  # only in inputs of unknown rank
                dims_out.append(Dim(0, None))
        equation = ",".join(terms) + "->" + "".join(out_labels)
        return Inference([TensorInfo(PartialShape(tuple(dims_out)), ins[0].etype)], equation)

    def fold_work(self, inputs: Sequence[TensorInfo], inference: Inference) -> int | None:
        """The iteration space: every label's dim (and the broadcast '...' dims)
        multiplied, which integer einsum walks element by element (five
        256-element vectors and ``a,b,c,d,e->`` are 2^40 steps)."""
        base = super().fold_work(inputs, inference)
        if base is None or not isinstance(inference.plan, str):
            return None
        space: dict[str, int] = {}
        ellipsis: list[int] = []
        for term, info in zip(inference.plan.split("->")[0].split(","), inputs):
            dims = list(info.shape.to_tuple())
            labels = _labels(term)
            extra = len(dims) - len(labels) + 1
            for label in labels:
                if label == "...":
                    part, dims = dims[:extra], dims[extra:]
                    n = max(len(part), len(ellipsis))
                    ellipsis = [max(a, b) for a, b in zip([1] * (n - len(ellipsis)) + ellipsis, [1] * (n - len(part)) + part)]
                elif dims:
                    space[label] = max(space.get(label, 1), dims.pop(0))
        return base + math.prod(space.values()) * math.prod(ellipsis)

    def compute(self, plan: str, *arrays: np.ndarray) -> list[np.ndarray]:
        dtype = arrays[0].dtype
        small = lowbit.name_of(dtype)  # u1/u2/u4/i4 and the 8- and 4-bit floats (ml_dtypes)
        if small in lowbit.NARROW_INTS:
            with np.errstate(all="ignore"):  # exact in int64, then wrapped into the type as Convert does
                wide = np.einsum(plan, *(a.astype(np.int64) for a in arrays), dtype=np.int64, optimize=True)
            return [lowbit.from_integers(np.asarray(wide), small)]
        if small is not None or dtype.kind == "f" and dtype.itemsize < 4 or is_bf16(dtype):
            out = np.einsum(plan, *(a.astype(np.float32) for a in arrays), optimize=True)
            if small is not None:  # rounded into the type as Convert rounds
                return [lowbit.from_float(np.asarray(out), small)]
        elif dtype.kind == "f":
            out = np.einsum(plan, *arrays, optimize=True)
        else:
            with np.errstate(all="ignore"):
                # exact in the type, wrapping (a ring: any order of the products gives the same);
                # optimize also sums over the dims of an ellipsis the output drops ("...->")
                out = np.einsum(plan, *arrays, dtype=dtype, optimize=True)
        return [np.asarray(out).astype(dtype, copy=False)]
