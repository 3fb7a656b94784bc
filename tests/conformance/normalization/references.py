"""NumPy references of the normalization ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np


def mvn_ref(x64: np.ndarray, axes: tuple[int, ...], nv: bool, eps: float, inside: bool) -> np.ndarray:
    d = x64 - x64.mean(axis=axes, keepdims=True)
    if not nv:
        return d
    var = (d * d).mean(axis=axes, keepdims=True)
    return d / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)


def ref_mvn6(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes = x
    ax = tuple(sorted({int(a) % data.ndim for a in axes.reshape(-1).tolist()}))
    out = mvn_ref(data.astype(np.float64), ax, attrs["normalize_variance"], attrs["eps"], attrs["eps_mode"] == "inside_sqrt")
    return [out.astype(data.dtype)]


def ref_mvn1(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data = x[0]
    if attrs.get("reduction_axes") is not None:
        ax = tuple(sorted(int(a) % data.ndim for a in attrs["reduction_axes"]))
    else:
        ax = tuple(range(1 if attrs.get("across_channels") else 2, data.ndim))
    return [mvn_ref(data.astype(np.float64), ax, attrs.get("normalize_variance", False), attrs["eps"], True).astype(data.dtype)]


def ref_softmax(log: bool) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        d = x[0].astype(np.float64)
        axis = int(attrs.get("axis", 1))
        if d.size == 0:
            return [x[0].copy()]
        s = d - d.max(axis=axis, keepdims=True)
        e = np.exp(s)
        out = s - np.log(e.sum(axis=axis, keepdims=True)) if log else e / e.sum(axis=axis, keepdims=True)
        return [out.astype(x[0].dtype)]
    return ref


def ref_bn(order: tuple[int, ...]) -> Any:
    def ref(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
        data, gamma, beta, mean, var = (x[i].astype(np.float64) for i in order)
        shape = (-1,) + (1,) * (data.ndim - 2)
        out = gamma.reshape(shape) * (data - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + attrs["epsilon"])
        return [(out + beta.reshape(shape)).astype(x[order[0]].dtype)]
    return ref


def ref_gn(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, scale, bias = (a.astype(np.float64) for a in x)
    n, c = data.shape[:2]
    g = attrs["num_groups"]
    grouped = data.reshape(n, g, c // g * math.prod(data.shape[2:]))
    mean = grouped.mean(axis=2, keepdims=True) if grouped.size else grouped.sum(axis=2, keepdims=True)
    var = ((grouped - mean) ** 2).mean(axis=2, keepdims=True) if grouped.size else mean
    normed = ((grouped - mean) / np.sqrt(var + attrs["epsilon"])).reshape(data.shape)
    shape = (-1,) + (1,) * (data.ndim - 2)
    return [(normed * scale.reshape(shape) + bias.reshape(shape)).astype(x[0].dtype)]


def ref_l2(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes = x
    d = data.astype(np.float64)
    ax = tuple(sorted({int(a) % data.ndim for a in np.asarray(axes).reshape(-1).tolist()}))
    if not ax:
        return [(data != 0).astype(data.dtype)]
    s = (d * d).sum(axis=ax, keepdims=True)
    s = s + attrs["eps"] if attrs["eps_mode"] == "add" else np.maximum(s, attrs["eps"])
    return [(d / np.sqrt(s)).astype(data.dtype)]


def ref_lrn(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, axes = x
    d = data.astype(np.float64)
    ax = sorted(int(a) % data.ndim for a in axes.reshape(-1).tolist())
    size, half = attrs["size"], (attrs["size"] - 1) // 2
    out = np.empty_like(d)
    for idx in itertools.product(*(range(n) for n in d.shape)):
        window = tuple(slice(max(0, i - half), min(n, i + half + 1)) if a in ax else slice(i, i + 1)
                       for a, (i, n) in enumerate(zip(idx, d.shape)))
        sq = float((d[window] ** 2).sum())
        out[idx] = d[idx] / math.pow(attrs["bias"] + attrs["alpha"] / size ** len(ax) * sq, attrs["beta"])
    return [out.astype(data.dtype)]
