"""``irexec.api.diff(...)``: the diff as a library call, returning the report object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .report import DiffReport

if TYPE_CHECKING:
    from .chain import ChainReport


def diff(model: Any, other: str | None = None, *, device: str | None = None, inputs: str | None = None,
         seed: int = 0, input_shapes: Mapping[str, str] | None = None, steps: int = 0,
         config: Mapping[str, str] | None = None, layers: str = "bisect", expose: int = 8,
         weights: str | None = None, other_weights: str | None = None, ablate: int = 32,
         max_memory: int | None = None, example_inputs: Any = None,
         extract: str | None = None) -> DiffReport | ChainReport:
    """Compare ``other`` (a second IR) or ``device`` (an OpenVINO plugin) with ``model``, run by
    irexec as the reference, on ``inputs`` (an .npz) or inputs generated from ``seed``.
    When ``model`` is a source model of a registered source side (an .onnx file; see
    ``sides.py``), ``other`` is the IR converted from it and the source is the reference;
    ``weights`` is then the IR's .bin; with ``device`` as well, the whole chain (chain.py):
    a ``ChainReport`` of the converter's link, the plugin's (at ``config``, ``layers``,
    ``expose``) and the outputs end to end.  An option that does not apply to the sides
    chosen is a ``diff-usage`` error.
    With a second IR, the top ``ablate`` weights are also measured by the outputs' error with
    only that weight compressed (one run of the model each).  ``max_memory``: bytes the diff (the
    layer outputs it keeps of both sides, its comparisons' temporaries) and its runs may hold
    together (default: $IREXEC_MAX_MEMORY or half the RAM); beyond it, ``memory-limit``.
    ``extract``: a folder to write the smallest IR that reproduces the first origin to (with a
    device or a source model; nothing is written when there is no origin).

    >>> report = irexec.api.diff("f32.xml", "int4.xml", inputs="sample.npz")
    >>> report.origins, report.weights[:3]
    >>> irexec.diff("model.onnx", "model.xml").origins
    >>> irexec.diff("model.onnx", "model.xml", device="CPU").verdict
    """
    from ...base.errors import UsageError
    from .ab import device_diff, diff_ab
    from .sides import source_kind

    kind = source_kind(model)
    shapes = {k: tuple(int(n) for n in v) for k, v in (input_shapes or {}).items()}
    if kind is not None:
        chain = device is not None
        misplaced = [name for name, given in (("config", bool(config) and not chain),
                                              ("steps", bool(steps)), ("other_weights", other_weights is not None),
                                              ("layers", layers != "bisect" and not chain),
                                              ("expose", expose != 8 and not chain),
                                              ("ablate", ablate != 32),
                                              ("extract", extract is not None and chain)) if given]
        if other is None or misplaced:
            raise UsageError(f"a source model (the {kind.name} side) is compared with the IR converted from it, "
                             f"irexec.diff(source, \"model.xml\"[, device=...])"
                             + (f"; not applicable there: {', '.join(misplaced)}" if misplaced else ""), code="diff-usage")
        if chain:
            from .chain import chain_diff

            return chain_diff(model, other, str(device), config, weights=weights, inputs=inputs, seed=seed,
                              shapes=shapes, layers=layers, k=expose, max_memory=max_memory,
                              example_inputs=example_inputs)
        extra = {} if example_inputs is None else {"example_inputs": example_inputs}
        if extract is not None:
            extra["extract"] = extract
        report: DiffReport = kind.opener()(model, other, weights=weights, inputs=inputs, seed=seed, shapes=shapes,
                                           max_memory=max_memory, **extra)
        return report
    if example_inputs is not None:
        raise UsageError("example_inputs applies to a live source model only", code="diff-usage")
    if not isinstance(model, str):
        raise UsageError(f"irexec.diff: no registered side takes a {type(model).__name__} as the source",
                         code="diff-usage")
    if (other is None) == (device is None):
        raise UsageError("irexec.api.diff needs either a second IR or a device, not both", code="diff-usage")
    if other is not None and (config or layers != "bisect" or expose != 8):
        raise UsageError("config, layers and expose apply to a device diff only", code="diff-usage")
    if other is not None and extract is not None:
        raise UsageError("extract applies to a device or a source model only", code="diff-usage")
    if device is not None and (other_weights is not None or ablate != 32):
        raise UsageError("other_weights and ablate apply to a second IR only", code="diff-usage")
    if other is not None:
        return diff_ab(model, other, weights, other_weights, inputs, seed, shapes, steps, ablate, max_memory)
    return device_diff(model, weights, str(device), dict(config or {}), inputs, seed, shapes, layers, expose, steps,
                       max_memory, extract=extract)


__all__ = ["diff"]
