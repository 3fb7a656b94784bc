"""The precision a device plugin really computed each layer in, and what a correct
kernel at that precision gives.

A plugin's runtime graph says, per node, ``runtimePrecision``, ``outputPrecisions``
and the IR layers it computes (``originalLayersNames``).  ``runtimePrecision`` is
not the arithmetic's precision: under ``INFERENCE_PRECISION_HINT=f32`` the CPU
plugin reports ``f16`` for a Convolution whose weights are stored as f16 in the IR
(exactly representable, and decompressed) while it computes in f32.  The precision
the arithmetic used is the lowest float precision among the node's inputs that are
not constants (its activations) and its outputs; the constants' own type loses
nothing, as the IR stores them so.

Emulation re-runs a layer on the plugin's own input tensors with its inputs and
weights rounded to that precision, computing in the reference's type (an
accumulation in f32 as the plugin's bf16 / f16 kernels do, no intermediate
rounding), so a layer's error is judged against what a correct kernel at that
precision gives: a *precision* origin is within it, a *kernel* origin beyond it.
The plugin also stores the layer's output in its output precision, so the emulated
comparison allows one unit in the last place of that precision on top of the op's
stated accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .accuracy import epsilon

# the float precisions below f32 a plugin computes in, lowest first, with their NumPy types
_LOWER = {"f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2", "bf16": "bfloat16", "f16": "float16"}
_RANK = {"f8e4m3": 0, "f8e5m2": 0, "bf16": 1, "f16": 2, "f32": 3, "f64": 4}
_ALIASES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32", "fp32": "f32", "fp16": "f16", "float64": "f64",
            "f8e4m3fn": "f8e4m3", "u8": "u8", "i8": "i8"}


def normalise(name: str) -> str:
    """OpenVINO's spelling of a precision, short: ``bfloat16`` -> ``bf16``."""
    text = name.strip().lower()
    if text.startswith("<type: '"):
        text = text[len("<type: '"):-2]
    return _ALIASES.get(text, text)


def is_float(name: str) -> bool:
    return normalise(name) in _RANK


def lowest(names: Sequence[str]) -> str:
    """The lowest float precision of ``names`` (empty when none is a float)."""
    floats = [normalise(n) for n in names if is_float(n)]
    return min(floats, key=lambda n: _RANK[n]) if floats else ""


def numpy_type(precision: str) -> np.dtype | None:
    """The NumPy type of a float precision below f32; None for f32 and above or a non-float."""
    name = _LOWER.get(normalise(precision))
    if name is None:
        return None
    if name == "float16":
        return np.dtype(np.float16)
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, name))


_QUANTISED = ("u8", "i8", "u4", "i4")  # a KV cache stored quantised (KV_CACHE_PRECISION=u8)


def lower_than(precision: str, dtype: np.dtype) -> bool:
    """Whether ``precision`` holds fewer bits of mantissa than the reference's float ``dtype``
    (a quantised integer storage of float values does)."""
    if normalise(precision) in _QUANTISED:
        return np.dtype(dtype).kind == "f"
    low = numpy_type(precision)
    return low is not None and np.dtype(dtype).kind == "f" and epsilon(low) > epsilon(np.dtype(dtype))


def rounded(arrays: Sequence[np.ndarray], precision: str) -> list[np.ndarray]:
    """``arrays`` with every float array rounded to ``precision`` and widened back to its own type."""
    low = numpy_type(precision)
    out = []
    for a in arrays:
        arr = np.asarray(a)
        if low is None or arr.dtype.kind != "f" or epsilon(arr.dtype) >= epsilon(low):
            out.append(arr)
            continue
        out.append(arr.astype(low).astype(arr.dtype))
    return out


def output_ulp_units(precision: str, dtype: np.dtype) -> float:
    """One unit in the last place of ``precision``, in units of the reference's ``dtype``
    (what storing the output in ``precision`` may add): 2^15 for bf16 against f32."""
    low = numpy_type(precision)
    if low is None or np.dtype(dtype).kind != "f":
        return 0.0
    return max(0.0, epsilon(low) / epsilon(np.dtype(dtype)))


@dataclass(frozen=True)
class NodePrecision:
    """What one runtime node computed in, as read from the runtime graph."""

    compute: str  # the precision of its arithmetic: the lowest of its activations' and outputs' float precisions
    reported: str  # its rt_info runtimePrecision, as the plugin states it
    outputs: str  # its rt_info outputPrecisions


def node_precision(node: Any, info: Any) -> NodePrecision:
    """The precisions of one node of a compiled model's runtime graph."""
    reported = normalise(info["runtimePrecision"].astype(str)) if "runtimePrecision" in info else ""
    outputs = info["outputPrecisions"].astype(str) if "outputPrecisions" in info else ""
    activations = []
    for port in node.inputs():
        producer = port.get_source_output().get_node()
        pinfo = producer.get_rt_info()
        if "layerType" in pinfo and pinfo["layerType"].astype(str) == "Const":
            continue
        activations.append(str(port.get_element_type().get_type_name()))
    outs = [o for o in outputs.split(",") if o] or [str(o.get_element_type().get_type_name()) for o in node.outputs()]
    compute = lowest([*activations, *outs]) or reported
    return NodePrecision(compute, reported, ",".join(normalise(o) for o in outs))


def hint_disagreement(hint: str, compute: str) -> bool:
    """A node computed in a precision lower than the inference precision the plugin reports using."""
    h = normalise(hint)
    return is_float(h) and is_float(compute) and _RANK[normalise(compute)] < _RANK[h]


def state_precisions(model: Any, fusion: Mapping[str, Any], properties: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """IR ReadValue layers no runtime node of their own computes, whose state the plugin keeps
    inside its attention kernels at KV_CACHE_PRECISION: layer name -> (node description, precision)."""
    kv = normalise(properties.get("KV_CACHE_PRECISION", ""))
    if not kv or kv in ("f32", "f64", "undefined", "dynamic"):
        return {}
    kv = {"uint8_t": "u8", "int8_t": "i8"}.get(kv, kv)
    out = {}
    for op in model.get_ordered_ops():
        name = op.get_friendly_name()
        if op.get_type_name() == "ReadValue" and name not in fusion and any(
                "ScaledDotProductAttention" in c.get_node().get_type_name()
                for c in _consumers_through_movement(op)):
            out[name] = ("KV cache state", kv)
    return out


_MOVEMENT = ("Gather", "Concat", "Convert", "Reshape", "Transpose", "Unsqueeze", "Broadcast", "Squeeze")


def _consumers_through_movement(op: Any, depth: int = 8) -> list[Any]:
    """The inputs ``op``'s value reaches through data-movement ops (Gather by beam, Concat with the new keys)."""
    found, frontier = [], [op]
    for _ in range(depth):
        nxt = []
        for node in frontier:
            for out in node.outputs():
                for target in out.get_target_inputs():
                    found.append(target)
                    if target.get_node().get_type_name() in _MOVEMENT:
                        nxt.append(target.get_node())
        frontier = nxt
    return found


def precision_notes(properties: Mapping[str, str], fusion: Mapping[str, Any]) -> list[str]:
    """Where the runtime graph and the properties read back disagree: layers computed below the
    inference precision the plugin reports, and runtimePrecision stated other than the arithmetic's."""
    notes = []
    hint = properties.get("INFERENCE_PRECISION_HINT", "")
    computed = {name: f for name, f in fusion.items() if f.node_type not in ("Const", "Input", "Output")}
    below = sorted({name for name, f in computed.items() if hint_disagreement(hint, f.precision)})
    if below:
        notes.append(f"{len(below)} layer(s) computed in a lower precision than INFERENCE_PRECISION_HINT={hint} read back "
                     f"(e.g. {below[0]} in {fusion[below[0]].precision})")
    stated: dict[tuple[str, str], list[str]] = {}
    for name, f in computed.items():
        if f.reported and f.reported != f.precision:
            stated.setdefault((f.reported, f.precision), []).append(name)
    for (reported, compute), names in sorted(stated.items()):
        notes.append(f"the runtime graph states runtimePrecision {reported} for {len(names)} layer(s) that compute in "
                     f"{compute} (their activations and outputs are {compute}; e.g. {names[0]}): the column shows {compute}")
    return notes


__all__ = ["NodePrecision", "hint_disagreement", "is_float", "lower_than", "lowest", "node_precision", "normalise",
           "numpy_type", "output_ulp_units", "precision_notes", "rounded", "state_precisions"]
