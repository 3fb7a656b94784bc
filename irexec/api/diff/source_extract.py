"""``irexec diff SOURCE MODEL.xml --extract DIR``: the smallest IR that shows where a conversion
departs from its source model, for a converter bug report.

DIR gets the origin layer as an IR of its own (with the layers without counterpart it was
re-run with, its group), its constants, and a Parameter for each input it computes on; the
source's own tensors for those inputs (what ONNX Runtime or PyTorch computed in the full
model) as ``inputs.npz``; the source's tensor for the layer's output (what the source model
computes there) as ``expected.npz``; and a README.md with a Python snippet that runs the
extracted IR with irexec (and with OpenVINO when it is installed) and prints the departure,
and the command that named it.  The converter's damage is in the IR, so every runtime of it
departs.  Written with irexec's own IR writer: no OpenVINO needed.  The folder is written
whole or not at all."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...base.errors import IRExecError
from ...ir.records import Layer
from ...model.builder import IRBuilder, Out
from ...system.tensorfile import save_npz
from .extract import write_folder
from .reference import ReferenceSide
from .report import DiffReport, LayerResult


def extract_source_reproducer(report: DiffReport, ref: ReferenceSide, side: Any, feeds: Mapping[str, np.ndarray],
                              directory: str, command: str) -> str | None:
    """Write the reproducer of ``report``'s first origin to ``directory``; None (and nothing
    written) when there is none.  ``side``: the source side, run on ``feeds``; ``command``:
    how the diff that named it is run again."""
    finding = report.finding
    if finding is None:
        return None
    group = sorted((ref.by_name[name] for name in (*finding.replayed_with, finding.name)),
                   key=lambda layer: ref.position[layer.id])
    origin = ref.by_name[finding.name]
    inputs, values = _group_inputs(ref, side, group, feeds)
    given = side.run([feeds], [(origin.name, port) for port in range(len(origin.outputs))]).layers.get(origin.name, [])
    expected = {f"output{port}": np.asarray(v) for port, v in enumerate(given) if v is not None}
    if not expected:
        raise IRExecError(f"cannot extract {origin.name!r}: the source gives no tensor for its output",
                          code="source-error")
    builder, feeds_out = _build(ref, group, origin, inputs, values, [int(k[len("output"):]) for k in expected])

    def fill(work: str) -> None:
        builder.write(os.path.join(work, "model.xml"))
        save_npz(os.path.join(work, "inputs.npz"), feeds_out)
        save_npz(os.path.join(work, "expected.npz"), expected)
        with open(os.path.join(work, "README.md"), "w", encoding="utf-8") as f:
            f.write(_readme(report, finding, group, side, command, list(expected)))

    write_folder(directory, fill)
    return directory


def rerun_command(source: str, model: str, where: str, directory: str) -> str:
    """The diff that names the origin again: on the inputs file it ran on, or the seed it generated
    them from; a live module's in Python."""
    if where == "example_inputs":
        return f"irexec.diff(module, {model!r}, example_inputs=example_inputs, extract={directory!r})"
    seed = re.fullmatch(r"random \(seed (-?\d+)\)", where)
    given = (f" --seed {seed.group(1)}" if seed.group(1) != "0" else "") if seed else f" --inputs {shlex.quote(where)}"
    return (f"irexec diff {shlex.quote(source)} {shlex.quote(model)}{given} --fail-on origin "
            f"--extract {shlex.quote(directory)}")


def _group_inputs(ref: ReferenceSide, side: Any, group: list[Layer], feeds: Mapping[str, np.ndarray]
                  ) -> tuple[list[tuple[Layer, int]], dict[tuple[str, int], np.ndarray]]:
    """The group's inputs from outside it, in order, and their values: a model input as fed; a
    constant (or a constant sub-graph, folded) as irexec computes it, the same on both sides; any
    other the source's tensor for it."""
    ids = {layer.id for layer in group}
    inputs: list[tuple[Layer, int]] = []
    for layer in group:
        if layer.bodies:
            raise IRExecError(f"cannot extract {layer.name!r}: a layer with a sub-graph ({layer.type}) is not "
                              "extracted", code="source-error")
        for src in ref.producers(layer):
            if src is None:
                raise IRExecError(f"cannot extract {layer.name!r}: an input is not connected", code="source-error")
            if src[0].id not in ids and (src[0].name, src[1]) not in {(p.name, i) for p, i in inputs}:
                inputs.append(src)
    constant = [p.id for p, _ in inputs if p.id not in ref.varying]
    _, kept = ref.run([feeds], capture=constant) if constant else ([], {})
    wanted = [(p.name, i) for p, i in inputs if p.id in ref.varying and p.type != "Parameter"]
    exposed = side.run([feeds], wanted).layers if wanted else {}
    values: dict[tuple[str, int], np.ndarray] = {}
    for p, i in inputs:
        value: np.ndarray | None
        if p.id not in ref.varying:
            value = kept[p.id][i]
        elif p.type == "Parameter":
            value = feeds[p.name]
        else:
            slots = exposed.get(p.name, [])
            value = slots[i] if i < len(slots) else None
            if value is None:
                raise IRExecError(f"cannot extract the origin: the source gives no tensor for its input {p.name}:{i}",
                                  code="source-error")
        values[(p.name, i)] = np.asarray(value)
    return inputs, values


def _build(ref: ReferenceSide, group: list[Layer], origin: Layer, inputs: list[tuple[Layer, int]],
           values: Mapping[tuple[str, int], np.ndarray], ports: list[int]) -> tuple[IRBuilder, dict[str, np.ndarray]]:
    """The group as an IR of its own: a Parameter ``input{k}`` per input that depends on the model's
    inputs, a Const per constant one; the origin's compared ports as Results ``output{port}``."""
    b = IRBuilder(name=f"{origin.type} {origin.name}")
    made: dict[tuple[str, int], Out] = {}
    feeds: dict[str, np.ndarray] = {}
    for p, i in inputs:
        value, port = values[(p.name, i)], p.outputs[i]
        etype = port.precision.name if port.precision is not None else None
        if p.id not in ref.varying:
            made[(p.name, i)] = b.const(value, etype)
            continue
        name = f"input{len(feeds)}"
        dtype = port.precision.dtype if port.precision is not None else None
        feeds[name] = value if dtype is None or value.dtype == dtype else value.astype(dtype)
        made[(p.name, i)] = b.parameter(name, list(value.shape), etype or value.dtype.name)
    for layer in group:
        srcs = [made[(p.name, i)] for p, i in (src for src in ref.producers(layer) if src is not None)]
        names = [(f"output{k}",) if layer is origin and k in ports else () for k in range(len(layer.outputs))]
        first = b.layer(layer.type, layer.version, srcs, dict(layer.data) if layer.data else None, name=layer.name,
                        port_names=names)
        for k, out in enumerate(b.outputs_of(first)):
            made[(layer.name, k)] = out
    for k in ports:
        b.result(made[(origin.name, k)], f"output{k}")
    return b, feeds


def _readme(report: DiffReport, finding: LayerResult, group: list[Layer], side: Any, command: str,
            outputs: list[str]) -> str:
    origin = next(x for x in group if x.name == finding.name)
    figures = f"{finding.figures.beyond} of {finding.figures.size} elements departed, max abs error " \
              f"{finding.figures.max_abs_error:.6g}"
    local = "" if finding.local is None else f"; on the source's own inputs (this folder's): max abs error " \
                                             f"{finding.local.max_abs_error:.6g}"
    others = [x for x in group if x is not origin]
    with_text = "" if not others else (" with the layer(s) it was re-run with (no source tensor of their own: "
                                       + ", ".join(f"`{x.name}` ({x.type})" for x in others) + ")")
    return f"""# {origin.type} `{origin.name}`: where the conversion departs from its source

Extracted by `irexec diff --extract` from {os.path.basename(report.model)}, compared with {side.description}
(the reference): the layer alone{with_text}, its constants, and a Parameter per input.
`inputs.npz` holds the tensors the source computed for those inputs in the full model; `expected.npz`
what the source computes for the layer's output.  The departure is in the IR (a converter's), so irexec and
OpenVINO both depart from `expected.npz`.
In the full model: {figures}{local}.

```python
import numpy as np
import irexec

inputs = dict(np.load("inputs.npz"))
expected = np.load("expected.npz")
keys = {outputs!r}


def departure(runtime, got):
    for key in keys:
        want = expected[key].astype(np.float64)
        diff = np.abs(np.asarray(got[key]).astype(np.float64) - want)
        scale = np.abs(want).max() or 1.0
        print(runtime, key, "max abs departure", diff.max(), "relative to the largest value", diff.max() / scale,
              "elements differing", int((diff > 0).sum()), "of", diff.size)


departure("irexec", irexec.Session("model.xml").run(inputs).outputs)
try:
    import openvino as ov
except ImportError:
    ov = None
if ov is not None:
    compiled = ov.Core().compile_model("model.xml", "CPU", {{"INFERENCE_PRECISION_HINT": "f32"}})
    result = compiled(inputs)
    departure("openvino", {{key: result[key] for key in keys}})
```

The same with irexec at the command line (exit 1 when the outputs depart beyond the default tolerance):

```
irexec run model.xml --inputs inputs.npz --compare expected.npz
```

The diff that named it:

```
{command}
```
"""


__all__ = ["extract_source_reproducer", "rerun_command"]
