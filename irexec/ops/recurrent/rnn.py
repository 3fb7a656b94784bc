"""Recurrent cells and sequences: RNNCell-0, GRUCell-3, LSTMCell-0, LSTMCell-4,
RNNSequence-5, GRUSequence-5, LSTMSequence-5.

Gate layouts follow OpenVINO: GRU weights are stacked z, r, h; LSTM weights
f, i, c, o.  A sequence runs its time steps in a Python loop (one vectorised
step per time step); a step past a batch row's sequence length leaves its
state alone and writes zeros to Y.  f16/bf16 are computed in f32 and rounded
once per output, f32 in f32, f64 in f64.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...base.errors import OpError
from ...base.shapes import Dim, PartialShape
from ..framework.base import INTEGRAL, REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

_ACTIVATIONS = ("sigmoid", "tanh", "relu", "hardsigmoid")


def _activation(name: str, alpha: float | None, beta: float | None):
    if name == "sigmoid":
        return lambda x: 1.0 / (1.0 + np.exp(-x))
    if name == "tanh":
        return np.tanh
    if name == "relu":
        return lambda x: np.maximum(x, 0)
    a = 0.2 if alpha is None else alpha
    b = 0.5 if beta is None else beta
    return lambda x: np.clip(a * x + b, 0, 1)


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


@dataclass(frozen=True)
class _Dims:
    batch: Dim
    hidden: Dim


def _merge(dims: Sequence[tuple[Dim, str, int]], what: str) -> Dim:
    """One dim that several inputs must agree on; an error names every one."""
    merged = Dim(0, None)
    for d, _, _ in dims:
        m = merged.intersect(d)
        if m is None:
            said = ", ".join(f"{name} says {dd}" for dd, name, _ in dims)
            raise op_error(f"the inputs disagree on the {what}: {said}", "incompatible-inputs", dims[-1][2])
        merged = m
    return merged


def _dim(info: TensorInfo, axis: int) -> Dim | None:
    dims = info.shape.dims
    return None if dims is None else dims[axis]


class _Recurrent(Op):
    """What the six ops share: attributes, validation and the step kernel."""

    family = "recurrent"
    gates: int = 1
    default_activations: tuple[str, ...] = ("tanh",)
    sequence: bool = False
    has_cell_state: bool = False

    def validate(self) -> list[OpError]:
        errors = []
        if self.hidden_size <= 0:
            errors.append(OpError(f"hidden_size={self.hidden_size} must be positive", code="bad-attribute"))
        acts = self._activation_names()
        if len(acts) != len(self.default_activations):
            errors.append(OpError(f"activations={','.join(acts)} names {len(acts)} functions; {self.display()} takes "
                                  f"{len(self.default_activations)}", code="bad-attribute"))
        for a in acts:
            if a.lower() not in _ACTIVATIONS:
                errors.append(OpError(f"activation {a!r} is not one of {', '.join(_ACTIVATIONS)}", code="bad-attribute"))
        if self.clip < 0:
            errors.append(OpError(f"clip={self.clip} must not be negative", code="bad-attribute"))
        return errors

    def _lbr(self) -> bool:
        return bool(getattr(self, "linear_before_reset", False))

    def _activation_names(self) -> list[str]:
        raw = self.activations
        names = [a.strip().lower() for a in raw.split(",") if a.strip()] if raw else []
        return names or list(self.default_activations)

    def _functions(self) -> list:
        acts = self._activation_names()
        alpha, beta = self.activations_alpha, self.activations_beta
        return [_activation(a, alpha[k] if k < len(alpha) else None, beta[k] if k < len(beta) else None)
                for k, a in enumerate(acts)]

    def _bias_rows(self) -> int:
        return self.gates + (1 if self._lbr() else 0)

    # ---- shape inference
    def _check_common(self, x: TensorInfo, states: list[tuple[TensorInfo, int, str]], w: TensorInfo, r: TensorInfo,
                      b: TensorInfo, ports: tuple[int, int, int], lead: int) -> tuple[Dim, Dim, Dim]:
        """Batch, hidden and direction dims, checked across inputs; ``lead`` is
        1 for sequences (W, R, B have a leading num_directions dim)."""
        hs = self.hidden_size
        pw, pr, pb = ports
        batch = [(d, "X", 0) for d in [_dim(x, 0)] if d is not None]
        hidden = [(Dim.of(hs), "hidden_size", pw)]
        inputs_dim = [(d, "X", 0) for d in [_dim(x, x.shape.rank - 1 if x.shape.rank else 0)] if d is not None and x.shape.rank]
        dirs: list[tuple[Dim, str, int]] = []
        if self.sequence:
            dirs.append((Dim.of(2 if self.direction == "bidirectional" else 1), "direction", pw))
        for info, port, name in states:
            if info.shape.dims is None:
                continue
            batch.append((info.shape.dims[0], name, port))
            hidden.append((info.shape.dims[-1], name, port))
            if self.sequence:
                dirs.append((info.shape.dims[1], name, port))
        for info, port, name, rows in ((w, pw, "W", self.gates), (r, pr, "R", self.gates), (b, pb, "B", self._bias_rows())):
            if info.shape.dims is None:
                continue
            if lead:
                dirs.append((info.shape.dims[0], name, port))
            g = info.shape.dims[lead]
            if g.is_static:
                if g.value % rows:
                    raise op_error(f"{name} has {g} rows, not a multiple of {rows} gates x hidden_size={hs} "
                                   f"(shape {info.shape})", "incompatible-inputs", port)
                hidden.append((Dim.of(g.value // rows), name, port))
            if name == "W":
                inputs_dim.append((info.shape.dims[lead + 1], "W", port))
            if name == "R":
                hidden.append((info.shape.dims[lead + 1], "R", port))
        _merge(inputs_dim, "input size")
        hid = _merge(hidden, "hidden size")
        bat = _merge(batch, "batch size") if batch else Dim(0, None)
        d = _merge(dirs, "number of directions") if dirs else Dim.of(1)
        return bat, hid, d

    # ---- the kernel
    def _step(self, x_proj: np.ndarray, h: np.ndarray, c: np.ndarray | None, r: np.ndarray, rb: np.ndarray | None,
              fns: list, p: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """One time step: ``x_proj`` = X W^T + Wb (all gates), then the recurrence;
        ``p`` the LSTM peepholes (forget, input, output: LSTMCell-0)."""
        clip = self.clip
        hs = h.shape[-1]

        def clipped(v: np.ndarray) -> np.ndarray:
            return np.clip(v, -clip, clip) if clip > 0 else v

        if self.gates == 1:
            return fns[0](clipped(x_proj + h @ r.T)), None
        if self.gates == 4:
            g = x_proj + h @ r.T
            f, i, cc, o = (g[:, k * hs:(k + 1) * hs] for k in range(4))
            if p is not None:  # the forget and input gates peep at the old cell state, the output gate at the new
                f, i = f + p[:hs] * c, i + p[hs:2 * hs] * c
            f = fns[0](clipped(f))
            i = 1 - f if getattr(self, "input_forget", False) else fns[0](clipped(i))
            c_new = f * c + i * fns[1](clipped(cc))
            if p is not None:
                o = o + p[2 * hs:] * c_new
            return fns[0](clipped(o)) * fns[2](c_new), c_new
        # GRU: z, r, h
        hr = h @ r[: 2 * hs].T
        z = fns[0](clipped(x_proj[:, :hs] + hr[:, :hs]))
        rg = fns[0](clipped(x_proj[:, hs:2 * hs] + hr[:, hs:]))
        rh = r[2 * hs:]
        if self._lbr():
            cand = fns[1](clipped(x_proj[:, 2 * hs:] + rg * (h @ rh.T + rb)))
        else:
            cand = fns[1](clipped(x_proj[:, 2 * hs:] + (rg * h) @ rh.T))
        return (1 - z) * cand + z * h, None

    def _run(self, x: np.ndarray, h0: np.ndarray, c0: np.ndarray | None, lens: np.ndarray | None, w: np.ndarray,
             r: np.ndarray, b: np.ndarray, reverse: bool, p: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """One direction over x [B, T, I]: Y [B, T, H], last H, last C."""
        ct = _compute_dtype(x.dtype)
        x, h, w, r, b = (a.astype(ct, copy=False) for a in (x, h0, w, r, b))
        p = p.astype(ct, copy=False) if p is not None else None
        c = c0.astype(ct, copy=False) if c0 is not None else None
        batch, steps = x.shape[0], x.shape[1]
        hs = h.shape[-1]
        lens = np.full(batch, steps, np.int64) if lens is None else _clip_lengths(lens, steps)
        t_idx = np.arange(steps)
        if reverse:  # each row reversed within its own length, as ReverseSequence does
            order = np.where(t_idx[None, :] < lens[:, None], lens[:, None] - 1 - t_idx[None, :], t_idx[None, :])
            x = np.take_along_axis(x, order[:, :, None], axis=1)
        rb = None
        if self._lbr():
            wb, rb = b[: 3 * hs], b[3 * hs:]
        else:
            wb = b
        x_proj = x @ w.T + wb  # every time step at once: [B, T, gH]
        fns = self._functions()
        y = np.zeros((batch, steps, hs), ct)
        for t in range(steps):
            h_new, c_new = self._step(x_proj[:, t], h, c, r, rb, fns, p)
            live = (t < lens)[:, None]
            h = np.where(live, h_new, h)
            if c is not None:
                c = np.where(live, c_new, c)  # type: ignore[arg-type]  # a cell that has a state makes a new one
            y[:, t] = np.where(live, h_new, 0)
        if reverse:
            y = np.take_along_axis(y, order[:, :, None], axis=1)
        return y, h, c


_COMMON = {
    "hidden_size": Attr("int", required=True),
    "activations_alpha": Attr("floats", ()),
    "activations_beta": Attr("floats", ()),
    "clip": Attr("float", 0.0),
}


class _Cell(_Recurrent):
    def infer(self, *ins: TensorInfo) -> Inference:
        x = ins[0]
        n_states = 2 if self.has_cell_state else 1
        states = [(ins[1 + k], 1 + k, ("H_t", "C_t")[k]) for k in range(n_states)]
        w, r = ins[1 + n_states], ins[2 + n_states]
        b = ins[3 + n_states] if len(ins) > 3 + n_states else TensorInfo(PartialShape.of([self._bias_rows() * self.hidden_size]), x.etype)
        bat, hid, _ = self._check_common(x, states, w, r, b, (1 + n_states, 2 + n_states, 3 + n_states), 0)
        out = TensorInfo(PartialShape((bat, hid)), x.etype)
        return Inference([out] * n_states)

    def compute(self, plan: Any, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        n = 2 if self.has_cell_state else 1
        h, c = arrays[1], arrays[2] if n == 2 else None
        w, r = arrays[1 + n], arrays[2 + n]
        b = arrays[3 + n] if len(arrays) > 3 + n else np.zeros(self._bias_rows() * self.hidden_size, x.dtype)
        _, h_out, c_out = self._run(x[:, None, :], h, c, None, w, r, b, False)
        outs = [h_out.astype(x.dtype)]
        if c_out is not None:
            outs.append(c_out.astype(x.dtype))
        return outs


@register
class RNNCell0(_Cell):
    type, version, since_opset = "RNNCell", 0, 1
    summary = "one step of a plain recurrent cell: H = f(X W^T + H R^T + B)"
    inputs = (In("X", REAL, rank=2), In("H_t", same_as("X"), rank=2), In("W", same_as("X"), rank=2),
              In("R", same_as("X"), rank=2), In("B", same_as("X"), rank=1))
    attributes = {**_COMMON, "activations": Attr("str", "")}
    default_activations = ("tanh",)


@register
class GRUCell3(_Cell):
    type, version = "GRUCell", 3
    summary = "one step of a GRU cell (gates z, r, h), optionally linear before reset"
    gates = 3
    inputs = (In("X", REAL, rank=2), In("H_t", same_as("X"), rank=2), In("W", same_as("X"), rank=2),
              In("R", same_as("X"), rank=2), In("B", same_as("X"), rank=1))
    attributes = {**_COMMON, "activations": Attr("str", ""), "linear_before_reset": Attr("bool", False)}
    default_activations = ("sigmoid", "tanh")


@register
class LSTMCell0(_Cell):
    """The opset1 LSTM cell: LSTMCell-4 plus peepholes P (forget, input, output),
    ``input_forget`` (i = 1 - f) and ``weights_format``, the gate order of the
    rows of W, R and B.  B and P default to zeros."""

    type, version, since_opset = "LSTMCell", 0, 1
    summary = "one step of an LSTM cell (gates f, i, c, o) with peepholes and optionally coupled input and forget gates"
    gates = 4
    has_cell_state = True
    inputs = (In("X", REAL, rank=2), In("H_t", same_as("X"), rank=2), In("C_t", same_as("X"), rank=2),
              In("W", same_as("X"), rank=2), In("R", same_as("X"), rank=2),
              In("B", same_as("X"), rank=1, optional=True),
              In("P", REAL, rank=1, optional=True))  # OpenVINO checks the types of the others, not P's: computed in X's
    attributes = {**_COMMON, "activations": Attr("str", ""), "input_forget": Attr("bool", False),
                  "weights_format": Enum("fico", "icof", "ifco", "ifoc", "iofc")}
    default_activations = ("sigmoid", "tanh", "tanh")
    outputs = 2

    def infer(self, *ins: TensorInfo) -> Inference:
        inference = super().infer(*ins[:6])
        if len(ins) > 6 and ins[6].shape.dims is not None:
            p = ins[6].shape.dims[0]
            hid = inference.outputs[0].shape.dims[1]  # type: ignore[index]  # a cell's outputs are always [batch, hidden]
            if p.is_static and hid.is_static and p.value != 3 * hid.value:
                raise op_error(f"P has {p} elements; the peepholes of the forget, input and output gates need "
                               f"3 x hidden size {hid} = {3 * hid.value}", "incompatible-inputs", 6)
        return inference

    def compute(self, plan: Any, *arrays: np.ndarray) -> list[np.ndarray]:
        x, h, c, w, r = arrays[:5]
        b = arrays[5] if len(arrays) > 5 else np.zeros(4 * self.hidden_size, x.dtype)
        p = arrays[6] if len(arrays) > 6 else None
        if self.weights_format != "fico":  # gather each gate's rows (f, i, c, o: the kernel's order) from where the format puts them
            hs = r.shape[1]
            rows = np.concatenate([np.arange(hs) + hs * self.weights_format.index(g) for g in "fico"])
            w, r, b = w[rows], r[rows], b[rows]
        _, h_out, c_out = self._run(x[:, None, :], h, c, None, w, r, b, False, p)
        return [h_out.astype(x.dtype), c_out.astype(x.dtype)]  # type: ignore[union-attr]  # an LSTM has a cell state


@register
class LSTMCell4(_Cell):
    type, version = "LSTMCell", 4
    summary = "one step of an LSTM cell (gates f, i, c, o)"
    gates = 4
    has_cell_state = True
    inputs = (In("X", REAL, rank=2), In("H_t", same_as("X"), rank=2), In("C_t", same_as("X"), rank=2),
              In("W", same_as("X"), rank=2), In("R", same_as("X"), rank=2), In("B", same_as("X"), rank=1))
    attributes = {**_COMMON, "activations": Attr("str", "")}
    default_activations = ("sigmoid", "tanh", "tanh")
    outputs = 2


class _Sequence(_Recurrent):
    sequence = True

    def infer(self, *ins: TensorInfo) -> Inference:
        x = ins[0]
        n = 2 if self.has_cell_state else 1
        states = [(ins[1 + k], 1 + k, ("initial_hidden_state", "initial_cell_state")[k]) for k in range(n)]
        lens, w, r, b = ins[1 + n], ins[2 + n], ins[3 + n], ins[4 + n]
        bat, hid, d = self._check_common(x, states, w, r, b, (2 + n, 3 + n, 4 + n), 1)
        if lens.shape.dims is not None:
            bat = _merge([(bat, "X", 0), (lens.shape.dims[0], "sequence_lengths", 1 + n)], "batch size")
        steps = x.shape.dims[1] if x.shape.dims is not None else Dim(0, None)
        y = TensorInfo(PartialShape((bat, d, steps, hid)), x.etype)
        state = TensorInfo(PartialShape((bat, d, hid)), x.etype)
        return Inference([y] + [state] * n)

    def fold_work(self, inputs: Sequence[TensorInfo], inference: Inference) -> int | None:
        """Every step multiplies the weights: steps x batch x (W and R)."""
        base = super().fold_work(inputs, inference)
        if base is None:
            return None
        n = 2 if self.has_cell_state else 1
        batch, steps = inputs[0].shape.to_tuple()[:2]
        weights = sum(math.prod(inputs[k].shape.to_tuple()) for k in (2 + n, 3 + n))
        return base + batch * steps * weights

    def compute(self, plan: Any, *arrays: np.ndarray) -> list[np.ndarray]:
        x = arrays[0]
        n = 2 if self.has_cell_state else 1
        h0, c0 = arrays[1], arrays[2] if n == 2 else None
        lens, w, r, b = arrays[1 + n: 5 + n]
        dirs = (False, True) if self.direction == "bidirectional" else (self.direction == "reverse",)
        ys, hs, cs = [], [], []
        for k, reverse in enumerate(dirs):
            y, h, c = self._run(x, h0[:, k], c0[:, k] if c0 is not None else None, lens, w[k], r[k], b[k], reverse)
            ys.append(y)
            hs.append(h)
            cs.append(c)
        outs = [np.stack(ys, axis=1).astype(x.dtype), np.stack(hs, axis=1).astype(x.dtype)]
        if n == 2:
            outs.append(np.stack(cs, axis=1).astype(x.dtype))  # type: ignore[arg-type]  # with a cell state, every c is an array
        return outs


_SEQ = {**_COMMON, "direction": Enum("forward", "reverse", "bidirectional")}


@register
class RNNSequence5(_Sequence):
    type, version = "RNNSequence", 5
    summary = "a plain recurrent cell over a sequence, forward, reverse or both"
    inputs = (In("X", REAL, rank=3), In("initial_hidden_state", same_as("X"), rank=3),
              In("sequence_lengths", INTEGRAL, rank=1), In("W", same_as("X"), rank=3), In("R", same_as("X"), rank=3),
              In("B", same_as("X"), rank=2))
    outputs = 2
    attributes = {**_SEQ, "activations": Attr("str", "")}
    default_activations = ("tanh",)


@register
class GRUSequence5(_Sequence):
    type, version = "GRUSequence", 5
    summary = "a GRU over a sequence (gates z, r, h), optionally linear before reset"
    gates = 3
    inputs = RNNSequence5.inputs
    outputs = 2
    attributes = {**_SEQ, "activations": Attr("str", ""), "linear_before_reset": Attr("bool", False)}
    default_activations = ("sigmoid", "tanh")


@register
class LSTMSequence5(_Sequence):
    type, version = "LSTMSequence", 5
    summary = "an LSTM over a sequence (gates f, i, c, o), forward, reverse or both"
    gates = 4
    has_cell_state = True
    inputs = (In("X", REAL, rank=3), In("initial_hidden_state", same_as("X"), rank=3),
              In("initial_cell_state", same_as("X"), rank=3), In("sequence_lengths", INTEGRAL, rank=1),
              In("W", same_as("X"), rank=3), In("R", same_as("X"), rank=3), In("B", same_as("X"), rank=2))
    outputs = 3
    attributes = {**_SEQ, "activations": Attr("str", "")}
    default_activations = ("sigmoid", "tanh", "tanh")


def _clip_lengths(lens: np.ndarray, steps: int) -> np.ndarray:
    """Sequence lengths clipped to [0, steps], compared in their own type (a u64
    length above 2^63 is long, not negative)."""
    if lens.dtype.kind == "u":
        return np.minimum(lens, steps).astype(np.int64)
    return np.clip(lens.astype(np.int64), 0, steps)
