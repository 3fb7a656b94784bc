"""The other side as the PyTorch source model (``irexec diff model.pt2 model.xml``, and in Python
``irexec.diff(module, "model.xml", example_inputs=(x,))``).

The source is the reference.  torch is an optional extra (``pip install -e '.[torch]'``),
imported only here.  What OpenVINO's PyTorch frontend keeps decides the matching:

- from a ``torch.export`` program (a ``.pt2`` saved with ``torch.export.save``), it keeps
  each FX node's name as the tensor name of its output (``linear:0``, ``gelu:0``), so every
  node's output, captured by running the graph node by node as ``torch.fx.Interpreter``
  does, is matched per tensor;
- from a live ``nn.Module`` converted through TorchScript (``ov.convert_model(module,
  example_input=...)``), layer names carry the module path (``__module.encoder.layer.0/aten::
  linear/Add``), so each module's output (a forward hook) is compared with the last IR layer
  of that path with as many elements.

What cannot be matched is listed with why (source_matching.py); the IR layers inside one
matched tensor's conversion are re-run with it, as a group.  Loading a ``.pt2`` runs
``torch.export.load``: open only programs you trust.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...base.errors import ModelError
from ...base.extras import import_extra, install_hint
from .accuracy import DEVICE_SLACK
from .core import Exposed
from .feeds import prepared_feeds
from .matching import Matching
from .reference import ReferenceSide
from .report import DiffReport
from .sides import TORCH
from .source_matching import SourceGraph, SourceNode, _explain_unmatched_ir, diff_against_source, exposed_source_values, match_source

TORCH_SLACK = DEVICE_SLACK  # units PyTorch's CPU kernels (oneDNN, MKL, its SDPA backends) may add
INSTALL_HINT = install_hint("torch")


def import_torch() -> Any:
    return import_extra("torch", "comparing with a PyTorch model", "torch")


def _numpy(value: Any) -> np.ndarray | None:
    torch = import_torch()
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().contiguous().numpy().copy()
    return None


class TorchSide:
    """A torch.export program or a live module; tensors given under the IR's layer names."""

    kind = TORCH
    is_reference = True

    def __init__(self, ref: ReferenceSide, source: Any, label: str):
        self.torch = import_torch()
        self.ref, self.source, self.label = ref, source, label
        self.exported = not isinstance(source, self.torch.nn.Module)
        self.graph, self.matching = self._match()
        self.no_counterpart = dict(self.matching.unmatched_a)
        self.description = f"PyTorch {self.torch.__version__} on {label}"
        self.properties = {"threads": str(self.torch.get_num_threads())}
        self.fusion: dict[str, Any] = {}
        self.compiles = 0
        self.slack_units = TORCH_SLACK
        self._cache: tuple[int, dict[str, np.ndarray], list[dict[tuple[str, int], np.ndarray]]] | None = None

    # ---------------------------------------------------------------- matching

    def _match(self) -> tuple[SourceGraph, Matching]:
        if self.exported:
            nodes, inputs = [], []
            for node in self.source.graph.nodes:
                if node.op == "placeholder":
                    inputs.append(node.name)
                elif node.op in ("call_function", "call_method", "call_module"):
                    val = node.meta.get("val")
                    vals = val if isinstance(val, (tuple, list)) else [val]
                    nodes.append(SourceNode(node.name, str(node.target), tuple(str(a) for a in node.args),
                                            tuple(f"{node.name}:{i}" for i in range(len(vals)))))
            sizes = {}
            for node in self.source.graph.nodes:
                val = node.meta.get("val")
                for i, v in enumerate(val if isinstance(val, (tuple, list)) else [val]):
                    if hasattr(v, "shape"):
                        try:
                            sizes[f"{node.name}:{i}"] = int(np.prod([int(d) for d in v.shape]))
                        except (TypeError, ValueError):  # a symbolic dim
                            pass
            graph = SourceGraph(nodes, inputs, set(), sizes)
            return graph, match_source(self.ref, graph)
        return self._match_modules()

    def _match_modules(self) -> tuple[SourceGraph, Matching]:
        """Each named module: the last IR layer named after its path with the same element count."""
        m = Matching()
        paths = [name for name, _ in self.source.named_modules() if name]
        nodes = [SourceNode(p, type(mod).__name__, (), (f"module:{p}",)) for p, mod in self.source.named_modules() if p]
        by_path: dict[str, list[Any]] = {}
        for layer in self.ref.candidates:
            if layer.id in self.ref.varying and layer.name.startswith("__module."):
                by_path.setdefault(layer.name[len("__module."):].split("/", 1)[0], []).append(layer)
        taken: set[str] = set()
        for path in sorted(paths, key=lambda p: -p.count(".")):  # the innermost module owns its layers first
            layers = [x for p, xs in by_path.items() if p == path or p.startswith(path + ".") for x in xs]
            layers = [x for x in layers if x.name not in taken]
            if not layers:
                m.unmatched_b[f"module:{path}"] = "no IR layer is named after its module path"
                continue
            last = max(layers, key=lambda x: self.ref.position[x.id])
            m.ports[(last.name, 0)] = (f"module:{path}", 0)
            m.layer[last.name], m.how[last.name] = f"module:{path}", "module path"
            taken.add(last.name)
        produced = {n.outputs[0]: n for n in nodes}
        _explain_unmatched_ir(self.ref, m, produced)
        return SourceGraph(nodes, [], set()), m

    # ---------------------------------------------------------------- running

    def _capture(self, args: Sequence[Any]) -> dict[str, np.ndarray]:
        torch = self.torch
        values: dict[str, np.ndarray] = {}
        with torch.no_grad():
            if self.exported:
                module = self.source.module()

                class Capture(torch.fx.Interpreter):  # type: ignore[name-defined]
                    def run_node(self, n: Any) -> Any:
                        out = super().run_node(n)
                        for i, v in enumerate(out if isinstance(out, (tuple, list)) else [out]):
                            arr = _numpy(v)
                            if arr is not None:
                                values[f"{n.name}:{i}"] = arr
                        return out

                outs = Capture(module).run(*args)
            else:
                hooks = [mod.register_forward_hook(self._hook(values, path))
                         for path, mod in self.source.named_modules() if path]
                try:
                    outs = self.source(*args)
                finally:
                    for h in hooks:
                        h.remove()
        flat = outs if isinstance(outs, (tuple, list)) else [outs]
        for i, v in enumerate(flat):
            arr = _numpy(v)
            if arr is not None:
                values[f"output:{i}"] = arr
        return values

    @staticmethod
    def _hook(values: dict[str, np.ndarray], path: str) -> Any:
        def hook(module: Any, inputs: Any, output: Any) -> None:
            arr = _numpy(output[0] if isinstance(output, (tuple, list)) and output else output)
            if arr is not None:
                values[f"module:{path}"] = arr
        return hook

    def run(self, steps: Sequence[Mapping[str, np.ndarray]], expose: Sequence[tuple[str, int]]) -> Exposed:
        key = id(steps[-1])
        if self._cache is None or self._cache[0] != key:
            feeds = steps[-1]
            args = [self.torch.from_numpy(np.ascontiguousarray(feeds[p.name])) for p in self.ref.model.parameters]
            try:
                values = self._capture(args)
            except Exception as e:  # anything the model's own code raises
                raise ModelError(f"PyTorch fails to run {self.label}: {type(e).__name__}: {_first_line(e)}", code="source-error",
                                 file=self.label) from None
            self.compiles += 1
            history = {}
            for i, (layer, port, _) in enumerate(self.ref.output_ports()):
                tensor = self.matching.ports.get((layer.name, port))
                given = values.get(tensor[0]) if tensor is not None else None
                if given is None:
                    given = values.get(f"output:{i}")
                if given is not None:
                    history[(layer.name, port)] = given
            self._cache = (key, values, [history])
        _, values, history_list = self._cache
        layers = exposed_source_values(expose, self.matching, values,
                                       lambda name, port, arr: arr.shape == tuple(self._dims(name, port) or arr.shape))
        return Exposed(layers, history_list)

    def _dims(self, name: str, port: int) -> list[int] | None:
        dims = self.ref.by_name[name].outputs[port].dims
        return None if dims is None or any(d < 0 for d in dims) else list(dims)


def _first_line(e: Exception) -> str:
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return lines[0] if lines else ""


def diff_torch(source: Any, model: str, *, weights: str | None = None, inputs: str | None = None, seed: int = 0,
               shapes: Mapping[str, tuple[int, ...]] | None = None, max_memory: int | None = None,
               example_inputs: Any = None, prepared: tuple[Mapping[str, np.ndarray], str] | None = None,
               on_side: Callable[[Any], None] | None = None, extract: str | None = None) -> DiffReport:
    """The IR, run by irexec, against its PyTorch source: a ``.pt2`` path or a live ``nn.Module``
    (then ``example_inputs``, a tuple of tensors, are the inputs of both).  ``prepared``: the inputs
    already made (by Parameter name, and where they came from); ``on_side`` is given the source side;
    ``extract``: a folder to write the first origin's reproducer to (source_extract.py)."""
    from ..session import Session

    torch = import_torch()
    session = Session(model, weights, max_memory)
    label = source if isinstance(source, str) else type(source).__name__
    if isinstance(source, str):
        try:
            program = torch.export.load(source)
        except Exception as e:  # torch's own errors on a file that is not a saved program
            raise ModelError(f"cannot read {source} as a torch.export program: {type(e).__name__}: {e}",
                             code="source-error", file=source) from None
    else:
        program = source.eval()
    if prepared is not None:
        feeds, where = dict(prepared[0]), prepared[1]
    elif example_inputs is not None:
        feeds, where = example_feeds(session, example_inputs), "example_inputs"
    else:
        feeds, where = prepared_feeds(session, inputs, seed, dict(shapes or {}), max_memory)
    ref = ReferenceSide(session)
    side = TorchSide(ref, program, label)
    if on_side is not None:
        on_side(side)
    return diff_against_source(ref, side, feeds, model=model, where=where, label=label, matched_to="",
                               kernels="oneDNN and MKL, and a fused scaled-dot-product attention backend where the "
                                       "model calls one", slack=TORCH_SLACK, extract=extract)


def example_feeds(session: Any, example_inputs: Any) -> dict[str, np.ndarray]:
    """A live module's example inputs (a tensor or a tuple of them) by the IR's Parameter names, in order."""
    given = example_inputs if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    feeds: dict[str, np.ndarray] = {}
    for p, t in zip(session.model.parameters, given):
        arr = _numpy(t)
        feeds[p.name] = np.asarray(t) if arr is None else arr
    return feeds


__all__ = ["INSTALL_HINT", "TorchSide", "diff_torch", "example_feeds", "import_torch"]
