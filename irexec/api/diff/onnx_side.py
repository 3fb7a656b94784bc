"""The other side as the ONNX source model run by ONNX Runtime (``irexec diff model.onnx model.xml``).

The source is the reference: the IR, run by irexec, is what a conversion made of it.
onnx and onnxruntime are an optional extra (``pip install -e '.[onnx]'``), imported only
here; their absence is ``missing-extra``.  Every intermediate tensor is exposed in one
run by adding it as a graph output (ONNX Runtime then cannot fuse across it); which IR
layer computes which tensor is ``source_matching.py``'s.  ONNX Runtime's own accuracy
(its MLAS kernels, its fused Gelu, LayerNormalization and attention) is stated as a
tolerance of ``SOURCE_SLACK`` units over each op's stated accuracy, not reported as origins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...base.errors import IRExecError, ModelError
from ...base.extras import install_hint
from .accuracy import DEVICE_SLACK
from .core import Exposed
from .feeds import prepared_feeds
from .matching import Matching
from .reference import ReferenceSide
from .report import DiffReport
from .sides import ONNXRUNTIME
from .source_matching import SourceGraph, SourceNode, diff_against_source, exposed_source_values, feed_names, match_source

# Units ONNX Runtime's CPU kernels may add to an inexact op's stated accuracy: as a plugin's do
# (the same kinds of vectorised polynomial and reordered sums).
SOURCE_SLACK = DEVICE_SLACK
INSTALL_HINT = install_hint("onnx")


def import_onnxruntime() -> tuple[Any, Any]:
    """(onnx, onnxruntime), or ``missing-extra`` saying how to install them."""
    try:
        import onnx
        import onnxruntime
    except ImportError as e:
        raise IRExecError(f"comparing with an ONNX model needs onnx and ONNX Runtime, which are not installed ({e}); "
                          f"{INSTALL_HINT}", code="missing-extra") from None
    return onnx, onnxruntime


def _source_graph(onnx: Any, model: Any) -> SourceGraph:
    graph = model.graph
    constants = {t.name for t in graph.initializer}
    constants |= {o for node in graph.node if node.op_type == "Constant" for o in node.output}
    nodes = [SourceNode(node.name or node.output[0], node.op_type, tuple(node.input), tuple(node.output))
             for node in graph.node if node.op_type != "Constant"]
    sizes: dict[str, int] = {}
    for t in graph.initializer:
        sizes[t.name] = int(np.prod(t.dims)) if t.dims else 1
    for info in (*graph.value_info, *graph.output):
        dims = info.type.tensor_type.shape.dim
        if dims and all(d.HasField("dim_value") for d in dims):
            sizes[info.name] = int(np.prod([d.dim_value for d in dims]))
    return SourceGraph(nodes, [i.name for i in graph.input if i.name not in constants], constants, sizes)


class OnnxSide:
    """The source model on ONNX Runtime; tensors given under the IR's layer names."""

    kind = ONNXRUNTIME
    is_reference = True

    def __init__(self, path: str, ref: ReferenceSide):
        onnx, self.ort = import_onnxruntime()
        self.path, self.ref = path, ref
        try:
            model = onnx.load(path)
            inferred = onnx.shape_inference.infer_shapes(model)
        except Exception as e:  # onnx raises its own DecodeError, ValueError, ... on a damaged file
            raise ModelError(f"cannot read {path} as an ONNX model: {e}", code="source-error", file=path) from None
        self.graph = _source_graph(onnx, inferred)
        self.matching: Matching = match_source(ref, self.graph)
        self.no_counterpart = dict(self.matching.unmatched_a)
        self.feed_names = feed_names(ref, self.graph.inputs)
        types = {i.name: i.type.tensor_type.elem_type for i in (*inferred.graph.value_info, *inferred.graph.output)}
        exposed = sorted({t for t, _ in self.matching.ports.values()} - {o.name for o in model.graph.output})
        for name in exposed:
            model.graph.output.append(onnx.helper.make_tensor_value_info(name, types.get(name, 1), None))
        options = self.ort.SessionOptions()
        options.log_severity_level = 3
        try:
            self.session = self.ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime's own exception types
            raise ModelError(f"ONNX Runtime cannot load {path}: {_first_line(e)}", code="source-error",
                             file=path) from None
        self.output_names = [o.name for o in self.session.get_outputs()]
        self.description = f"ONNX Runtime {self.ort.__version__} on {path}"
        self.properties = {"graph_optimization_level": str(options.graph_optimization_level).split(".")[-1],
                           "providers": ",".join(self.session.get_providers())}
        self.fusion: dict[str, Any] = {}
        self.compiles = 0
        self.slack_units = SOURCE_SLACK
        self._cache: tuple[int, dict[str, np.ndarray], list[dict[tuple[str, int], np.ndarray]]] | None = None

    def unfed(self) -> list[str]:
        return [name for name in self.graph.inputs if name not in self.feed_names.values()]

    def run(self, steps: Sequence[Mapping[str, np.ndarray]], expose: Sequence[tuple[str, int]]) -> Exposed:
        """One run of the source (a source model is stateless: its one step) with every matched tensor exposed."""
        key = id(steps[-1])
        if self._cache is None or self._cache[0] != key:
            feeds = {self.feed_names[p]: np.asarray(a) for p, a in steps[-1].items() if p in self.feed_names}
            try:
                values = dict(zip(self.output_names, self.session.run(self.output_names, feeds)))
            except Exception as e:  # onnxruntime's own exception types
                raise ModelError(f"ONNX Runtime fails to run {self.path}: {_first_line(e)}", code="source-error",
                                 file=self.path) from None
            self.compiles += 1
            history = {}
            for layer, port, _ in self.ref.output_ports():
                tensor = self.matching.ports.get((layer.name, port))
                if tensor is not None and tensor[0] in values:
                    history[(layer.name, port)] = values[tensor[0]]
            self._cache = (key, values, [history])
        _, values, history_list = self._cache
        return Exposed(exposed_source_values(expose, self.matching, values), history_list)


def _first_line(e: Exception) -> str:
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return lines[0] if lines else type(e).__name__


def diff_onnx(source: str, model: str, *, weights: str | None = None, inputs: str | None = None, seed: int = 0,
              shapes: Mapping[str, tuple[int, ...]] | None = None, max_memory: int | None = None,
              prepared: tuple[Mapping[str, np.ndarray], str] | None = None,
              on_side: Callable[[Any], None] | None = None, extract: str | None = None) -> DiffReport:
    """``irexec diff model.onnx model.xml``: the IR, run by irexec, against its ONNX source on ONNX Runtime.
    ``prepared``: the inputs already made (by Parameter name, and where they came from), as the chain of
    links (chain.py) gives them to each; ``on_side`` is given the source side once it is open;
    ``extract``: a folder to write the first origin's reproducer to (source_extract.py)."""
    from ..session import Session

    import_onnxruntime()
    session = Session(model, weights, max_memory)
    feeds, where = prepared or prepared_feeds(session, inputs, seed, dict(shapes or {}), max_memory)
    ref = ReferenceSide(session)
    side = OnnxSide(source, ref)
    if on_side is not None:
        on_side(side)
    unfed = side.unfed()
    if unfed:
        raise ModelError(f"{model} is not a conversion of {source}: the source's input(s) "
                         f"{', '.join(repr(n) for n in unfed[:5])} match no Parameter of the IR by name or tensor name",
                         code="not-a-copy", file=model)
    return diff_against_source(ref, side, feeds, model=model, where=where, label=source, matched_to=" to its tensors",
                               kernels="MLAS, with fused Gelu, LayerNormalization and attention where it optimises "
                                       "the graph", slack=SOURCE_SLACK, extract=extract)


__all__ = ["INSTALL_HINT", "OnnxSide", "SOURCE_SLACK", "diff_onnx", "import_onnxruntime"]
