"""The other side as an OpenVINO device plugin (``irexec diff MODEL.xml --device CPU``).

OpenVINO is an optional extra (``pip install -e '.[openvino]'`` in the irexec clone): it is imported
only here, and its absence is one coded error, ``missing-extra``.  The plugin runs
the model as deployed (its defaults, or the properties ``--config`` gives); layer
outputs are exposed by adding them as model outputs on a freshly read model
(``Model.add_outputs``), which can change what the plugin fuses.  What the deployed
graph did with each layer comes from the compiled model's runtime graph: each
runtime node's rt_info ``originalLayersNames`` lists the IR layers it computes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...base.errors import IRExecError
from ...base.extras import install_hint
from .accuracy import DEVICE_SLACK
from .core import Exposed, ExposeError
from .precision import node_precision, state_precisions
from .report import Fusion
from .sides import OPENVINO_DEVICE

INSTALL_HINT = install_hint("openvino")


def import_openvino() -> Any:
    """The openvino module, or ``missing-extra`` saying how to install it."""
    try:
        import openvino
    except ImportError as e:
        raise IRExecError(f"comparing with a device plugin needs OpenVINO, which is not installed ({e}); {INSTALL_HINT}",
                         code="missing-extra") from None
    return openvino


class DeviceSide:
    """A model compiled by an OpenVINO device plugin."""

    kind = OPENVINO_DEVICE

    def __init__(self, xml: str, weights: str | None, device: str, config: Mapping[str, str]):
        self.ov = import_openvino()
        self.xml, self.weights, self.device, self.config = xml, weights, device, dict(config)
        self.core = self.ov.Core()
        self.compiles = 0
        self.slack_units = DEVICE_SLACK
        listed = _listed(self.core)
        _require_present(self.core, device, listed)
        try:
            deployed = self._compile(())
        except RuntimeError as e:
            raise IRExecError(f"OpenVINO cannot compile {xml} for {device} with {self.config or 'its defaults'}: "
                              f"{_first_line(e)} (devices OpenVINO lists: {', '.join(listed) or 'none'})",
                              code="device-error", file=xml) from None
        self.properties = _properties(deployed[0])
        self.fusion = _fusion(deployed[0])
        for name, (node, precision) in state_precisions(self._read(), self.fusion, self.properties).items():
            self.fusion[name] = Fusion(node, "ReadValue", precision)
        self.description = f"OpenVINO {self.ov.get_version().split('-')[0]} {device}"
        self._deployed = deployed

    def _read(self) -> Any:
        return self.core.read_model(self.xml, self.weights) if self.weights else self.core.read_model(self.xml)

    def _compile(self, expose: Sequence[tuple[str, int]]) -> tuple[Any, list[tuple[str, int]], int]:
        model = self._read()
        n_outputs = len(model.outputs)
        if expose:
            nodes = {op.get_friendly_name(): op for op in model.get_ordered_ops()}
            model.add_outputs([nodes[name].output(port) for name, port in expose if name in nodes])
        sources = [r.input_value(0) for r in model.get_results()]  # in the order of the model's outputs
        keys = [(o.get_node().get_friendly_name(), o.get_index()) for o in sources]
        self.compiles += 1
        return self.core.compile_model(model, self.device, self.config), keys, n_outputs

    def run(self, steps: Sequence[Mapping[str, np.ndarray]], expose: Sequence[tuple[str, int]]) -> Exposed:
        """Run ``steps`` in order on one infer request from a reset state (one step for a
        stateless model); the tensors of the last step."""
        try:
            compiled, keys, n_outputs = self._deployed if not expose else self._compile(expose)
            request = compiled.create_infer_request()
            names = [p.get_node().get_friendly_name() for p in compiled.inputs]
            history: list[dict[tuple[str, int], np.ndarray]] = []
            for feeds in steps:
                request.infer({i: _tensor(self.ov, feeds[name]) for i, name in enumerate(names)})
                history.append({keys[i]: _array(request.get_output_tensor(i)) for i in range(n_outputs)})
        except RuntimeError as e:
            what = f"with {len(expose)} layer output(s) exposed" if expose else "as deployed"
            raise ExposeError(f"OpenVINO {self.device} fails to run {self.xml} {what}: {_first_line(e)}",
                              code="device-error", file=self.xml) from None
        outs: dict[tuple[str, int], np.ndarray] = {}
        for i, key in enumerate(keys):
            outs.setdefault(key, _array(request.get_output_tensor(i)))
        layers: dict[str, list[np.ndarray | None]] = {}
        for name, port in expose:
            slots = layers.setdefault(name, [])
            slots.extend([None] * (port + 1 - len(slots)))
            slots[port] = outs.get((name, port))
        return Exposed(layers, history, _fusion(compiled) if expose else {})


_LOCATION = re.compile(r"Exception from \S+:\d+:\s*")
_VIRTUAL = ("AUTO", "MULTI", "HETERO", "BATCH")  # devices that run on others, listed after a colon


def _first_line(e: Exception) -> str:
    """OpenVINO's message without its "Exception from src/...:N:" locations, which it also puts
    in the middle of a line before the reason ("... Error: Exception from ...:22:" then the reason)."""
    lines = [_LOCATION.sub("", line).strip() for line in str(e).splitlines()]
    text = " ".join(line for line in lines if line)
    return text or type(e).__name__


def _listed(core: Any) -> list[str]:
    try:
        return list(core.available_devices)
    except RuntimeError:
        return []


def _require_present(core: Any, device: str, listed: list[str]) -> None:
    """One coded error for a device OpenVINO does not list, with the reason its plugin gives
    (a GPU plugin without an OpenCL runtime, an NPU without its driver) and the devices it lists."""
    base, _, targets = device.partition(":")
    wanted = [t for t in targets.split(",") if t] if base.upper() in _VIRTUAL else [device]
    names = set(listed) | {d.split(".")[0] for d in listed}
    for target in wanted:
        name = target.split("(")[0]  # HETERO/AUTO may give a batch size or priority in brackets
        if name in names or name.split(".")[0] in names:
            continue
        try:
            found = core.get_property(name.split(".")[0], "AVAILABLE_DEVICES")
            reason = "" if found else f"; its {name.split('.')[0]} plugin loads but finds no device"
        except (RuntimeError, TypeError) as e:
            reason = f"; OpenVINO says: {_first_line(e)}"
        raise IRExecError(f"OpenVINO lists no {name} device on this machine (it lists: {', '.join(listed) or 'none'})"
                          f"{reason}", code="device-unavailable") from None


def _tensor(ov: Any, arr: np.ndarray) -> Any:
    arr = np.array(arr, order="C", copy=True)
    if arr.dtype.name == "bfloat16":
        t = ov.Tensor(ov.Type.bf16, ov.Shape(list(arr.shape)))
        t.data[...] = arr.view(np.uint16).view(np.float16)
        return t
    return ov.Tensor(arr, shared_memory=False)


def _array(tensor: Any) -> np.ndarray:
    """A copy of an output tensor; bf16 (which the Python API shows as float16 bits) as ml_dtypes' bfloat16."""
    data = np.array(tensor.data, copy=True)
    if tensor.get_element_type().get_type_name() == "bf16":
        import ml_dtypes

        return data.view(np.uint16).view(ml_dtypes.bfloat16)
    return data


def _properties(compiled: Any) -> dict[str, str]:
    """Every property the compiled model reports, read back (what it actually used)."""
    out: dict[str, str] = {}
    try:
        supported = compiled.get_property("SUPPORTED_PROPERTIES")
    except RuntimeError:
        return out
    for key in sorted(supported):
        if key == "SUPPORTED_PROPERTIES":
            continue
        try:
            value = compiled.get_property(key)
        except RuntimeError:
            continue
        out[key] = _text(value)
    return out


def _text(value: Any) -> str:
    text = str(value)
    if text.startswith("<Type: '"):
        return text[len("<Type: '"):-2]
    return text


def _info(info: Any, key: str) -> str:
    return info[key].astype(str) if key in info else ""


def _fusion(compiled: Any) -> dict[str, Fusion]:
    """IR layer name -> the runtime node computing it, from the runtime graph, with the
    precision its arithmetic used (precision.py: not always the one rt_info states)."""
    out: dict[str, Fusion] = {}
    for node in compiled.get_runtime_model().get_ordered_ops():
        info = node.get_rt_info()
        names = [n for n in _info(info, "originalLayersNames").split(",") if n]
        if not names:
            continue
        p = node_precision(node, info)
        for name in names:
            out.setdefault(name, Fusion(node.get_friendly_name(), _info(info, "layerType"), p.compute,
                                        tuple(n for n in names if n != name),
                                        p.reported if p.reported != p.compute else "", p.outputs))
    return out


__all__ = ["DeviceSide", "Exposed", "INSTALL_HINT", "import_openvino"]
