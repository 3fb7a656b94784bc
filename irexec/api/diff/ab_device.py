"""``irexec diff A.xml B.xml --device CPU``: B on a device plugin at its defaults against A by irexec,
split into what compression costs and what the plugin adds.

Three comparisons of the model outputs on the same inputs: B by irexec against A by irexec (the
compression), B on the device against B by irexec (the plugin: the device diff of B, with its
origins), and B on the device against A by irexec (what a user deploying B gets).  The report is
the device diff of B; the split leads its notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def _rel_l2(got: np.ndarray, want: np.ndarray) -> float:
    g, w = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if g.shape != w.shape:
        return float("inf")
    norm = float(np.linalg.norm(w))
    diff = float(np.linalg.norm(g - w))
    return diff / norm if norm else diff


def ab_device_diff(a: str, b: str, device: str, config: dict[str, str], inputs_path: str | None, seed: int,
                   shapes: dict, layers: str, k: int, max_memory: int | None = None) -> Any:
    """The device diff of B (at the plugin's defaults unless ``config``), with the outputs' error of
    B on the device against A by irexec, and of B by irexec against A, first among its notes."""
    from ...system.tensorfile import load_npz
    from ..inputs import plan_inputs, random_inputs
    from ..session import Session
    from .ab import by_parameter, device_diff
    from .device import DeviceSide, import_openvino
    from .reference import ReferenceSide

    import_openvino()
    sa, sb = Session(a, None, max_memory), Session(b, None, max_memory)
    if inputs_path:
        loaded: Mapping[str, np.ndarray] = load_npz(inputs_path, max_memory)
        feeds_a = by_parameter(sa, loaded)
    else:
        feeds_a = random_inputs(sa.model, seed, max_memory=max_memory, plans=plan_inputs(sa.model, shapes, {}))
        loaded = feeds_a
    feeds_b = by_parameter(sb, loaded)
    want = sa.run(feeds_a).outputs
    mine = sb.run(feeds_b).outputs
    side = DeviceSide(b, None, device, config)
    keys = {(layer.name, port): key for layer, port, key in ReferenceSide(sb).output_ports()}
    deployed = {keys[p]: t for p, t in side.run([feeds_b], []).history[0].items() if p in keys}
    if inputs_path is None:  # the inputs made up for A, given to B's device diff as a file
        import os
        import tempfile

        handle, path = tempfile.mkstemp(suffix=".npz", prefix="irexec-ab-device-")
        os.close(handle)
        try:
            save: Any = np.savez  # its keywords are the arrays' names
            save(path, **feeds_b)
            report = device_diff(b, None, device, config, path, seed, {}, layers, k, 0, max_memory=max_memory)
        finally:
            os.unlink(path)
        report.inputs = f"random (seed {seed})"
    else:
        report = device_diff(b, None, device, config, inputs_path, seed, shapes, layers, k, 0, max_memory=max_memory)
    lines = []
    for key, reference in want.items():
        if key not in mine or key not in deployed or np.asarray(reference).dtype.kind not in "fc":
            continue
        total, compression, plugin = (_rel_l2(deployed[key], reference), _rel_l2(mine[key], reference),
                                      _rel_l2(deployed[key], mine[key]))
        lines.append(f"output {key}: B on {device} against A by irexec: rel L2 {total:.3g}; compression (B by "
                     f"irexec against A): {compression:.3g}; the plugin (B on {device} against B by irexec): {plugin:.3g}")
    if not lines:
        lines.append(f"no float output of A is given by B under the same name: the split of {device}'s error "
                     "into compression and plugin was not made")
    report.notes[:0] = lines
    return report


__all__ = ["ab_device_diff"]
