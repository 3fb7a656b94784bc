"""NumPy references of the recurrent ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

ov = pytest.importorskip("openvino")


def _act(name: str, a: float | None = None, b: float | None = None):  # type: ignore[no-untyped-def]
    return {"sigmoid": lambda v: 1 / (1 + np.exp(-v)), "tanh": np.tanh, "relu": lambda v: np.maximum(v, 0),
            "hardsigmoid": lambda v: np.clip((0.2 if a is None else a) * v + (0.5 if b is None else b), 0, 1)}[name]


def _acts(attrs: dict[str, Any], default: list[str]) -> list:  # type: ignore[type-arg]
    names = attrs.get("activations", default)
    alpha, beta = list(attrs.get("activations_alpha", [])), list(attrs.get("activations_beta", []))
    return [_act(n, alpha[k] if k < len(alpha) else None, beta[k] if k < len(beta) else None) for k, n in enumerate(names)]


def _clip(v: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    c = float(attrs.get("clip", 0))
    return np.clip(v, -c, c) if c > 0 else v


def cell_step(kind: str, x, h, c, w, r, b, attrs):  # type: ignore[no-untyped-def]
    """One row: x [I], h [H], c [H] -> (h, c), float64."""
    hs = h.shape[0]
    if kind == "rnn":
        f, = _acts(attrs, ["tanh"])
        return f(_clip(w @ x + r @ h + b, attrs)), None
    if kind == "lstm":
        f, g, hh = _acts(attrs, ["sigmoid", "tanh", "tanh"])
        pre = _clip(w @ x + r @ h + b, attrs)
        ft, it, ct, ot = f(pre[:hs]), f(pre[hs:2 * hs]), g(pre[2 * hs:3 * hs]), f(pre[3 * hs:])
        c_new = ft * c + it * ct
        return ot * hh(c_new), c_new
    f, g = _acts(attrs, ["sigmoid", "tanh"])
    lbr = attrs.get("linear_before_reset", False)
    wz, wr, wh = w[:hs], w[hs:2 * hs], w[2 * hs:]
    rz, rr, rh = r[:hs], r[hs:2 * hs], r[2 * hs:]
    bz, br, bh = b[:hs], b[hs:2 * hs], b[2 * hs:3 * hs]
    z = f(_clip(wz @ x + rz @ h + bz, attrs))
    rt = f(_clip(wr @ x + rr @ h + br, attrs))
    if lbr:
        cand = g(_clip(wh @ x + rt * (rh @ h + b[3 * hs:]) + bh, attrs))
    else:
        cand = g(_clip(wh @ x + rh @ (rt * h) + bh, attrs))
    return (1 - z) * cand + z * h, None


def ref_cell(kind: str):  # type: ignore[no-untyped-def]
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        arrs = [a.astype(np.float64) for a in x]
        if kind == "lstm":
            X, H, C, W, R = arrs[:5]
            B = arrs[5] if len(arrs) > 5 else np.zeros(W.shape[0])
        else:
            X, H, W, R = arrs[:4]
            C = None
            B = arrs[4] if len(arrs) > 4 else np.zeros(W.shape[0] + (H.shape[1] if attrs.get("linear_before_reset") else 0))
        hs, cs = [], []
        for n in range(X.shape[0]):
            h, c = cell_step(kind, X[n], H[n], None if C is None else C[n], W, R, B, attrs)
            hs.append(h)
            cs.append(c)
        out = [np.array(hs)]
        if kind == "lstm":
            out.append(np.array(cs))
        return [o.astype(x[0].dtype) for o in out]
    return ref


def ref_sequence(kind: str):  # type: ignore[no-untyped-def]
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        if kind == "lstm":
            X, H0, C0, L, W, R, B = x
        else:
            X, H0, L, W, R, B = x
            C0 = None
        X, H0, W, R, B = (a.astype(np.float64) for a in (X, H0, W, R, B))
        batch, steps, hs = X.shape[0], X.shape[1], H0.shape[2]
        direction = attrs.get("direction", "forward")
        dirs = ["forward", "reverse"] if direction == "bidirectional" else [direction]
        Y = np.zeros((batch, len(dirs), steps, hs))
        Ho, Co = np.zeros((batch, len(dirs), hs)), np.zeros((batch, len(dirs), hs))
        for d, way in enumerate(dirs):
            for n in range(batch):
                length = min(int(L[n]), steps)
                h = H0[n, d]
                c = None if C0 is None else C0[n, d].astype(np.float64)
                times = range(length) if way == "forward" else range(length - 1, -1, -1)
                for t in times:
                    h, c = cell_step(kind, X[n, t], h, c, W[d], R[d], B[d], attrs)
                    Y[n, d, t] = h
                Ho[n, d] = h
                if c is not None:
                    Co[n, d] = c
        dtype = x[0].dtype
        return [o.astype(dtype) for o in ([Y, Ho, Co] if kind == "lstm" else [Y, Ho])]
    return ref


def ref_lstm_cell0(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    """LSTMCell-0, row by row: the gates of W, R and B in ``weights_format``
    order, peepholes P (forget, input, output) on the old cell state for f and
    i and on the new one for o, clip before each gate's activation, and with
    ``input_forget`` the input gate 1 - f."""
    X, H, C, W, R = (a.astype(np.float64) for a in x[:5])
    hs = H.shape[1]
    B = x[5].astype(np.float64) if len(x) > 5 else np.zeros(4 * hs)
    P = x[6].astype(np.float64) if len(x) > 6 else np.zeros(3 * hs)
    order = attrs.get("weights_format", "fico")
    block = {g: slice(order.index(g) * hs, (order.index(g) + 1) * hs) for g in "fico"}
    f_act, g_act, h_act = _acts(attrs, ["sigmoid", "tanh", "tanh"])
    pf, pi, po = P[:hs], P[hs:2 * hs], P[2 * hs:]
    hs_out, cs_out = [], []
    for n in range(X.shape[0]):
        pre = {g: W[block[g]] @ X[n] + R[block[g]] @ H[n] + B[block[g]] for g in "fico"}
        f = f_act(_clip(pre["f"] + pf * C[n], attrs))
        i = 1 - f if attrs.get("input_forget", False) else f_act(_clip(pre["i"] + pi * C[n], attrs))
        c = f * C[n] + i * g_act(_clip(pre["c"], attrs))
        o = f_act(_clip(pre["o"] + po * c, attrs))
        hs_out.append(o * h_act(c))
        cs_out.append(c)
    return [np.array(hs_out).astype(x[0].dtype), np.array(cs_out).astype(x[0].dtype)]
