"""NumPy references of the shape ops, written from the op specifications (each
takes a case's inputs and attributes and returns its outputs), and the helpers they share."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

BF16 = ml_dtypes.bfloat16


def ref_shapeof(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    return [np.array(x[0].shape, np.int32 if attrs.get("output_type") == "i32" else np.int64)]


def ref_reshape(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    data, pattern = x
    target = [int(v) for v in np.asarray(pattern).reshape(-1)]
    if attrs["special_zero"]:
        target = [data.shape[i] if v == 0 else v for i, v in enumerate(target)]
    if np.asarray(pattern).ndim == 0:
        target = []
    return [data.reshape(target)]


def ref_squeeze(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    if len(x) == 1 or np.asarray(x[1]).size == 0:
        return [np.squeeze(x[0])]
    # a named axis whose dim is not 1 is kept, as OpenVINO does
    return [np.squeeze(x[0], axis=tuple(int(a) for a in np.asarray(x[1]).reshape(-1) if x[0].shape[int(a)] == 1))]


def ref_unsqueeze(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    raw = [int(a) for a in np.asarray(x[1]).reshape(-1)]
    rank = x[0].ndim + len(set(raw))  # a repeated axis inserts one dim, as OpenVINO does
    return [np.expand_dims(x[0], tuple(sorted({a % rank for a in raw})))]


_NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bf16": BF16,
       "f64": np.float64, "i8": np.int8}


def ref_range(x: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray]:
    t = np.dtype(_NP[attrs["output_type"]]) if "output_type" in attrs else x[0].dtype
    start, stop, step = (float(np.asarray(v)) for v in x)
    if t.kind in "iu":
        start, stop, step = (float(np.trunc(v)) for v in (start, stop, step))
        n = max(int(np.ceil((stop - start) / step)), 0)
        return [(int(start) + int(step) * np.arange(n, dtype=np.int64)).astype(t)]
    n = max(int(np.ceil((stop - start) / step)), 0)
    s, d = np.asarray(start).astype(t), np.asarray(step).astype(t)
    return [(s + np.arange(n).astype(t) * d).astype(t)]  # T(i) * step, + start, each rounded in T
