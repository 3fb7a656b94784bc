"""The whole chain in one diff: the source model, the IR converted from it, and an OpenVINO device
(``irexec diff model.onnx model.xml --device CPU``).

Three links, each a diff of its own on the same inputs (the source's, by the IR's Parameter names):

- the converter: the source side (the reference) against irexec on the IR, as ``diff SOURCE MODEL.xml``;
- the plugin: irexec on the IR (the reference) against the device at its settings, as
  ``diff MODEL.xml --device``, with its precision and kernel origins;
- end to end: the source's outputs against the device's, measured only (no layer of one has a
  tensor of the other), within when every element is within the two links' budgets added.

The first two are ``DiffReport`` objects from the existing sides and core, composed here; the
verdict names the link to blame: the first with a kernel origin, else the plugin's precision.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .figures import Figures, tensor_figures
from .report import ORIGIN, DiffReport, LayerResult

CONVERTER, PLUGIN, END_TO_END = "converter", "plugin", "end-to-end"
# a link's status: within its outputs' stated accuracy; a kernel origin named; departures the
# precision the side computed in explains; beyond with no origin named
WITHIN, ORIGIN_FOUND, PRECISION_ONLY, BEYOND = "within", "origin", "precision", "beyond"


@dataclass
class OutputFigures:
    """One model output, the source's against the device's."""

    name: str
    port: int
    figures: Figures
    budget: float  # units: the two links' budgets for this output, added

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "port": self.port, "budget_units": self.budget, "within": self.figures.within,
                "figures": self.figures.as_dict()}


@dataclass
class ChainLink:
    name: str  # CONVERTER | PLUGIN | END_TO_END
    sides: list[dict[str, str]]  # the reference first
    report: DiffReport | None = None  # the link's own diff (None end to end: outputs only)
    outputs: list[OutputFigures] = field(default_factory=list)  # end to end

    @property
    def status(self) -> str:
        if self.report is None:
            return WITHIN if all(o.figures.within for o in self.outputs) else BEYOND
        if self.report.origins:
            return ORIGIN_FOUND
        if self.report.outputs_within:
            return WITHIN
        return PRECISION_ONLY if self.report.precision_groups() else BEYOND

    @property
    def first_origin(self) -> LayerResult | None:
        return None if self.report is None else self.report.finding

    def as_dict(self) -> dict[str, Any]:
        first = self.first_origin
        return {"name": self.name, "status": self.status, "sides": self.sides,
                "first_origin": None if first is None else first.name,
                "first_origin_group": [] if first is None else first.replayed_with,
                "report": None if self.report is None else self.report.as_dict(),
                "outputs": [o.as_dict() for o in self.outputs]}


@dataclass
class ChainReport:
    source: str
    model: str  # the IR
    device: str
    config: dict[str, str]
    inputs: str
    links: list[ChainLink]

    @property
    def origins(self) -> list[LayerResult]:
        """The kernel origins of every link, the converter's first."""
        return [r for link in self.links if link.report is not None for r in link.report.layers if r.status == ORIGIN]

    @property
    def blamed(self) -> ChainLink | None:
        """The link to blame: the first with a kernel origin, else one whose departures its precision explains,
        else the first beyond."""
        for status in (ORIGIN_FOUND, PRECISION_ONLY, BEYOND):
            found = next((link for link in self.links if link.report is not None and link.status == status), None)
            if found is not None:
                return found
        return None

    @property
    def verdict(self) -> str:
        link = self.blamed
        end = self.links[-1]
        if link is None:
            return ("every link within its stated accuracy: the device agrees with the source end to end"
                    if end.status == WITHIN else "both links are within, yet the source's and the device's outputs "
                    "depart beyond the two links' budgets added")
        first = link.first_origin
        if link.status == ORIGIN_FOUND and first is not None:
            return f"blame the {link.name}: its first origin is {describe_origin(first)}"
        if link.status == PRECISION_ONLY:
            assert link.report is not None
            groups = ", ".join(f"{g['op']} in {g['precision']}" for g in link.report.precision_groups()[:3])
            return (f"blame the {link.name}'s precision: its departures are what computing in a lower precision "
                    f"explains ({groups}), no kernel origin")
        return f"blame the {link.name}: its outputs depart beyond their stated accuracy, no origin named"

    def as_dict(self) -> dict[str, Any]:
        link = self.blamed
        return {"format": 1, "chain": True, "source": self.source, "model": self.model, "device": self.device,
                "config": self.config, "inputs": self.inputs,
                "origins": [r.name for r in self.origins],
                "blamed": None if link is None else link.name, "verdict": self.verdict,
                "links": [link.as_dict() for link in self.links]}


def describe_origin(r: LayerResult) -> str:
    """An origin by name and op, with the layers without counterpart it was re-run with (the origin is in
    that group)."""
    group = f", re-run with {', '.join(r.replayed_with)}: the origin is in this group" if r.replayed_with else ""
    return f"{r.name} ({r.op}{group})"


def chain_diff(source: Any, model: str, device: str, config: Mapping[str, str] | None = None, *,
               weights: str | None = None, inputs: str | None = None, seed: int = 0,
               shapes: Mapping[str, tuple[int, ...]] | None = None, layers: str = "bisect", k: int = 8,
               max_memory: int | None = None, example_inputs: Any = None) -> ChainReport:
    """The source (``.onnx``, ``.pt2`` or a live module), the IR ``model`` converted from it and the
    OpenVINO ``device`` at ``config`` (its defaults when empty), on the same inputs: ``inputs`` (an .npz),
    a live module's ``example_inputs`` or inputs generated from ``seed``."""
    from ..session import Session
    from .core import run_diff
    from .device import DeviceSide, import_openvino
    from .feeds import prepared_feeds
    from .reference import ReferenceSide
    from .sides import source_kind

    kind = source_kind(source)
    if kind is None:
        raise TypeError(f"no registered source side reads {source!r}")
    import_openvino()
    config = dict(config or {})
    session = Session(model, weights, max_memory)
    if example_inputs is not None:
        from .torch_side import example_feeds

        feeds, where = example_feeds(session, example_inputs), "example_inputs"
    else:
        feeds, where = prepared_feeds(session, inputs, seed, dict(shapes or {}), max_memory)
    device_side = DeviceSide(model, weights, device, config)  # first: an unavailable device fails before any run
    opened: list[Any] = []
    converter = kind.opener()(source, model, weights=weights, max_memory=max_memory, prepared=(feeds, where),
                              on_side=opened.append)
    plugin = run_diff(ReferenceSide(session), device_side, [feeds], mode=layers, k=k, model=model, inputs=where,
                      config=config)
    source_outputs = opened[0].run([feeds], ()).history[0]
    device_outputs = device_side.run([feeds], ()).history[0]
    label = source if isinstance(source, str) else type(source).__name__
    links = [ChainLink(CONVERTER, _ordered(converter.sides), converter),
             ChainLink(PLUGIN, _ordered(plugin.sides), plugin),
             ChainLink(END_TO_END, [kind.as_dict("reference", f"{opened[0].description}"),
                                    plugin.sides[1] | {"role": "compared"}],
                       outputs=_end_to_end(converter, plugin, source_outputs, device_outputs))]
    return ChainReport(label, model, device, config, where, links)


def _ordered(sides: list[dict[str, str]]) -> list[dict[str, str]]:
    return sorted(sides, key=lambda s: s.get("role") != "reference")


def _end_to_end(converter: DiffReport, plugin: DiffReport, source: Mapping[tuple[str, int], np.ndarray],
                device: Mapping[tuple[str, int], np.ndarray]) -> list[OutputFigures]:
    """Per model output: the device's against the source's, under the plugin link's stated accuracy
    for it, within the two links' budgets added (each link's error is at most its budget, and errors
    of successive links add at most)."""
    first = {(r.name, r.port): r for r in converter.outputs}
    out = []
    for r in plugin.outputs:
        key = (r.name, r.port)
        if key not in source or key not in device:
            continue
        budget = r.budget + (first[key].budget if key in first else 0.0)
        out.append(OutputFigures(r.name, r.port, tensor_figures(device[key], source[key], r.stated, budget), budget))
    return out


__all__ = ["CONVERTER", "ChainLink", "ChainReport", "END_TO_END", "OutputFigures", "PLUGIN", "chain_diff",
           "describe_origin"]
