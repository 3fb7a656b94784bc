"""``irexec diff --device ... --extract DIR``: a reproducer of the first kernel origin
that OpenVINO alone can run, for a bug report.

DIR gets the smallest IR that shows it (the origin layer, its constants, and a
Parameter for each input it computes on), the plugin's own input tensors for that
layer as ``inputs.npz``, irexec's result for them (what the op's specification gives)
as ``expected.npz``, and a README.md with the commands that show the departure with
OpenVINO alone and with irexec.  The folder is written whole or not at all."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...base.errors import IRExecError
from ...system.atomic import cannot_write
from ...system.tensorfile import save_npz
from ..session import Session
from .device import DeviceSide
from .precision import lower_than, normalise, rounded
from .reference import ReferenceSide
from .report import DiffReport


def extract_reproducer(report: DiffReport, ref: ReferenceSide, other: DeviceSide, steps: Sequence[Mapping[str, np.ndarray]],
                       directory: str) -> str | None:
    """Write the reproducer of ``report``'s finding to ``directory``; None (and nothing written)
    when there is no kernel origin."""
    finding = report.finding
    if finding is None:
        return None
    layer = ref.by_name[finding.name]
    run = list(steps[: report.analysed_step + 1])
    tensors = _input_tensors(ref, other, layer, run)
    held = _held_precisions(ref, other, layer, tensors)
    tensors = [rounded([t], held[i])[0] if i in held else t for i, t in enumerate(tensors)]
    ov = other.ov
    model = other._read()
    node = next(op for op in model.get_ordered_ops() if op.get_friendly_name() == layer.name)
    feeds: dict[str, np.ndarray] = {}
    inputs = []
    for i, port in enumerate(node.inputs()):
        source = port.get_source_output()
        if source.get_node().get_type_name() == "Constant":
            inputs.append(source)
            continue
        value = tensors[i]
        name = f"input{i}"
        param = ov.opset11.parameter(list(value.shape), ov.Type(value.dtype) if value.dtype.name != "bfloat16"
                                     else ov.Type.bf16, name=name)
        param.output(0).get_tensor().set_names({name})
        feeds[name] = value
        inputs.append(param.output(0))
        port.replace_source_output(param.output(0))  # a freshly read model: cut from everything before it
    for i in range(node.get_output_size()):
        node.output(i).get_tensor().set_names({f"output{i}"})
    results = [ov.opset11.result(node.output(i)) for i in range(node.get_output_size())]
    params = [x.get_node() for x in inputs if x.get_node().get_type_name() == "Parameter"]
    small = ov.Model(results, params, f"{layer.type} {layer.name}")

    def fill(work: str) -> None:
        ov.save_model(small, os.path.join(work, "model.xml"), compress_to_fp16=False)
        save_npz(os.path.join(work, "inputs.npz"), feeds)
        expected = Session(os.path.join(work, "model.xml")).run(dict(feeds)).outputs
        save_npz(os.path.join(work, "expected.npz"), {k: np.asarray(v) for k, v in expected.items()})
        with open(os.path.join(work, "README.md"), "w", encoding="utf-8") as f:
            f.write(_readme(report, layer.type, layer.name, other.device, dict(other.config), list(expected), held))

    write_folder(directory, fill)
    return directory


def write_folder(directory: str, fill: Callable[[str], None]) -> None:
    """``fill`` writes the folder's files into a fresh folder beside ``directory``, which is then
    renamed to it (an empty ``directory`` is replaced): the folder appears whole or not at all."""
    parent = os.path.dirname(os.path.abspath(directory)) or "."
    try:
        os.makedirs(parent, exist_ok=True)
        work = tempfile.mkdtemp(prefix=".extract-", dir=parent)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(work, 0o777 & ~mask)  # as a folder made by mkdir, not mkdtemp's private one
    except OSError as e:
        raise cannot_write(directory, e) from None
    try:
        fill(work)
        if os.path.isdir(directory) and not os.listdir(directory):
            os.rmdir(directory)
        os.rename(work, directory)
    except OSError as e:
        shutil.rmtree(work, ignore_errors=True)
        raise cannot_write(directory, e) from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _input_tensors(ref: ReferenceSide, other: DeviceSide, layer: Any, steps: list[Mapping[str, np.ndarray]]
                   ) -> list[np.ndarray]:
    """The tensors the plugin gave ``layer``'s inputs: exposed from its own run; a model input
    as fed; a constant sub-graph's value from the reference (the same on both sides)."""
    producers = ref.producers(layer)
    candidates = {c.id for c in ref.candidates}
    expose = [(p.name, i) for src in producers if src is not None for p, i in [src] if p.id in candidates]
    exposed = other.run(steps, expose).layers if expose else {}
    constant_ids = [p.id for src in producers if src is not None for p, _ in [src]
                    if p.id not in candidates and p.type != "Parameter"]
    _, kept = ref.run(steps, capture=constant_ids) if constant_ids else ([], {})
    out: list[np.ndarray] = []
    for src in producers:
        if src is None:
            raise IRExecError(f"cannot extract {layer.name!r}: an input is not connected", code="device-error")
        p, i = src
        if p.id in candidates:
            given = exposed.get(p.name, [])
            value = given[i] if i < len(given) else None
            if value is None:
                raise IRExecError(f"cannot extract {layer.name!r}: the plugin gives no tensor for its input "
                                  f"{p.name}:{i}", code="device-error")
        elif p.type == "Parameter":
            value = np.asarray(steps[-1][p.name])
        else:
            value = np.asarray(kept[p.id][i])
        out.append(np.asarray(value))
    return out


def _held_precisions(ref: ReferenceSide, other: DeviceSide, layer: Any, tensors: Sequence[np.ndarray]) -> dict[int, str]:
    """The inputs the deployed graph stores in a lower precision than the tensors exposed for them
    (a bf16 Concat feeding the layer): input index -> that precision.  Exposing a layer as an
    output can make the plugin write it in f32, so its values are rounded back to what the layer
    was fed in the full model."""
    held: dict[int, str] = {}
    for i, src in enumerate(ref.producers(layer)):
        fusion = None if src is None else other.fusion.get(src[0].name)
        if fusion is None or src is None or tensors[i].dtype.kind != "f":
            continue
        stores = [s for s in fusion.output_precision.split(",") if s]
        stored = normalise(stores[min(src[1], len(stores) - 1)]) if stores else ""
        if stored and lower_than(stored, tensors[i].dtype):
            held[i] = stored
    return held


def _readme(report: DiffReport, op: str, name: str, device: str, config: dict[str, str], outputs: list[str],
            held: Mapping[int, str]) -> str:
    config_text = json.dumps(config)
    flags = "".join(f" --config {k}={v}" for k, v in config.items())
    finding = report.finding
    figures = "" if finding is None else (f"{finding.figures.beyond} of {finding.figures.size} elements departed, "
                                          f"max abs error {finding.figures.max_abs_error:.6g}")
    return f"""# {op} `{name}` on OpenVINO {device}

Extracted by `irexec diff --extract` from {os.path.basename(report.model)} ({report.other}): the layer
alone, its constants, and the tensors the plugin fed it in the full model as `inputs.npz`.
In the full model: {figures}.
`expected.npz` is what the op's specification gives for these inputs (irexec's result).
{_held_text(held)}
With OpenVINO alone:

```python
import numpy as np
import openvino as ov

inputs = dict(np.load("inputs.npz"))
expected = np.load("expected.npz")
compiled = ov.Core().compile_model("model.xml", "{device}", {config_text})
got = compiled(inputs)
for i, key in enumerate({outputs!r}):
    diff = np.abs(got[i].astype(np.float64) - expected[key].astype(np.float64))
    scale = np.abs(expected[key].astype(np.float64)).max() or 1.0
    print(key, "max abs difference", diff.max(), "relative to the largest value", diff.max() / scale,
          "elements differing", int((diff > 0).sum()), "of", diff.size)
```

With irexec (the layer compared with the plugin, exit 1 when it departs):

```
irexec diff model.xml --device {device} --inputs inputs.npz{flags} --fail-on origin
```
"""


def _held_text(held: Mapping[int, str]) -> str:
    if not held:
        return ""
    names = ", ".join(f"`input{i}` in {p}" for i, p in sorted(held.items()))
    return (f"In the full model the plugin held {names} between layers: `inputs.npz` stores "
            "those values exactly, widened to f32, and the Parameters are f32.\n")


__all__ = ["extract_reproducer", "write_folder"]
