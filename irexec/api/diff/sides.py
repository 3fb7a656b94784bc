"""The sides a diff compares, registered in one place.

A side is what runs a model and gives the tensors of its layers: irexec on an IR, an
OpenVINO device plugin, ONNX Runtime on the source model.  Each is described once by a
``SideKind``: its name, its kind, the words the report uses for it (a plugin has a
"deployed graph" and "compilations"; a source model has neither), the CLI mode its
options belong to, what it can expose, whether it can re-run a layer on given inputs,
and its precision.  The running object (``core.OtherSide``) carries its kind.

A source model (a model in another framework, converted to the IR) is opened through
``SideKind.open``: ``irexec diff SOURCE MODEL.xml`` and ``irexec.diff(SOURCE, "model.xml")``
find the kind by the source's file suffix or, for a live object, by ``accepts``.
A new side is one module with its class and a ``register(SideKind(...))`` here or in it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SOURCE, IR, DEVICE = "source", "ir", "device"  # kinds of side


@dataclass(frozen=True)
class SideWords:
    """How the report speaks of a side."""

    graph: str = ""  # its own graph, e.g. "deployed graph" ("" when it has none)
    runs: str = "run(s)"  # what one run with layers exposed is, counted: "compilation(s)"
    removed: str = ""  # a layer no node of its own computes, e.g. "removed (folded or optimised away)"
    expose_all: str = ""  # the note when every layer is exposed at once ({n}: layers, {fused}: fused ones)
    error_code: str = "device-error"  # the code when its outputs do not match the IR's Results


PLUGIN_WORDS = SideWords(
    graph="deployed graph", runs="compilation(s)", removed="removed (folded or optimised away)",
    expose_all="all {n} layers were added as model outputs: the plugin cannot fuse across an exposed output, so it "
               "ran a less fused graph than the deployed one ({fused} layers are fused there)")
IR_WORDS = SideWords(error_code="not-a-copy")
SOURCE_WORDS = SideWords(error_code="not-a-copy")


@dataclass(frozen=True)
class SideKind:
    name: str  # "onnxruntime"
    kind: str  # SOURCE | IR | DEVICE
    words: SideWords
    mode: str  # the CLI mode its options belong to ("device", "ab", "onnx")
    exposes: str  # what it can expose, in words
    replays: bool  # whether it can re-run one layer on given inputs
    precision: str  # the precision it computes in, in words
    own_constants: bool = True  # its constant sub-graphs are its own (else it is given the reference's)
    suffixes: tuple[str, ...] = ()  # source files it reads
    accepts: Callable[[Any], bool] | None = None  # a live object it takes as the source
    # the diff of a source with an IR: open(source, ir_path, **options) -> DiffReport ("module:function" or a callable);
    # in the chain (chain.py) it is also given prepared=(feeds, where) and on_side (called with the opened side)
    open: str | Callable[..., Any] | None = None
    extra: str = ""  # the optional extra it needs
    options: tuple[str, ...] = field(default_factory=tuple)  # the options of its mode beyond the inputs

    def as_dict(self, role: str, description: str) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "role": role, "description": description,
                "precision": self.precision}

    def opener(self) -> Callable[..., Any]:
        if self.open is None:
            raise TypeError(f"the {self.name} side is not a source")
        if callable(self.open):
            return self.open
        module, _, function = self.open.partition(":")
        return getattr(importlib.import_module(module), function)


_KINDS: dict[str, SideKind] = {}


def register(kind: SideKind) -> SideKind:
    """Add a side (a later one of the same name replaces it)."""
    _KINDS[kind.name] = kind
    return kind


def kinds() -> list[SideKind]:
    return list(_KINDS.values())


def side_kind(name: str) -> SideKind:
    return _KINDS[name]


def source_kind(source: Any) -> SideKind | None:
    """The registered source side that reads ``source`` (a path by its suffix, or a live object), if any."""
    for kind in _KINDS.values():
        if kind.kind != SOURCE:
            continue
        if isinstance(source, (str, Path)):
            if str(source).lower().endswith(kind.suffixes) and kind.suffixes:
                return kind
        elif kind.accepts is not None and kind.accepts(source):
            return kind
    return None


IREXEC = register(SideKind(
    "irexec", IR, IR_WORDS, "ab", exposes="every layer's tensors from one run", replays=True,
    precision="the IR's own element types, computed as the op specifications say", own_constants=False))
OPENVINO_DEVICE = register(SideKind(
    "openvino", DEVICE, PLUGIN_WORDS, "device",
    exposes="layers added as model outputs (which changes what the plugin fuses)", replays=False,
    precision="the plugin's runtime precision (INFERENCE_PRECISION_HINT)", extra="openvino"))
ONNXRUNTIME = register(SideKind(
    "onnxruntime", SOURCE, SOURCE_WORDS, "onnx", exposes="every intermediate tensor (added as graph outputs)",
    replays=False, precision="f32 on ONNX Runtime's CPU kernels (fused where it optimises the graph)",
    suffixes=(".onnx",), open="irexec.api.diff.onnx_side:diff_onnx", extra="onnx"))



def _is_torch_module(obj: Any) -> bool:
    """A live ``torch.nn.Module`` (torch is not imported for the question: an object of it means it is)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.nn.Module)


TORCH = register(SideKind(
    "torch", SOURCE, SOURCE_WORDS, "torch",
    exposes="every FX node's output (torch.export) or every module's (forward hooks)", replays=False,
    precision="f32 on PyTorch's CPU kernels (oneDNN, MKL, its attention backends)", suffixes=(".pt2",),
    accepts=_is_torch_module, open="irexec.api.diff.torch_side:diff_torch", extra="torch"))


__all__ = ["DEVICE", "IR", "IREXEC", "ONNXRUNTIME", "OPENVINO_DEVICE", "PLUGIN_WORDS", "SOURCE", "SideKind", "SideWords",
           "TORCH", "kinds", "register", "side_kind", "source_kind"]
