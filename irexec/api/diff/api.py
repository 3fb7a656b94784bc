"""``irexec.api.diff(...)``: the diff as a library call, returning the report object."""

from __future__ import annotations

from collections.abc import Mapping

from .report import DiffReport


def diff(model: str, other: str | None = None, *, device: str | None = None, inputs: str | None = None,
         seed: int = 0, input_shapes: Mapping[str, str] | None = None, steps: int = 0,
         config: Mapping[str, str] | None = None, layers: str = "bisect", expose: int = 8,
         weights: str | None = None, other_weights: str | None = None, ablate: int = 32,
         max_memory: int | None = None) -> DiffReport:
    """Compare ``other`` (a second IR) or ``device`` (an OpenVINO plugin) with ``model``, run by
    irexec as the reference, on ``inputs`` (an .npz) or inputs generated from ``seed``.
    With a second IR, the top ``ablate`` weights are also measured by the outputs' error with
    only that weight compressed (one run of the model each).  ``max_memory``: bytes the diff (the
    layer outputs it keeps of both sides, its comparisons' temporaries) and its runs may hold
    together (default: $IREXEC_MAX_MEMORY or half the RAM); beyond it, ``memory-limit``.

    >>> report = irexec.api.diff("f32.xml", "int4.xml", inputs="sample.npz")
    >>> report.origins, report.weights[:3]
    """
    from ...base.errors import UsageError
    from .ab import device_diff, diff_ab

    if (other is None) == (device is None):
        raise UsageError("irexec.api.diff needs either a second IR or a device, not both", code="diff-usage")
    shapes = {k: tuple(int(n) for n in v) for k, v in (input_shapes or {}).items()}
    if other is not None:
        return diff_ab(model, other, weights, other_weights, inputs, seed, shapes, steps, ablate, max_memory)
    return device_diff(model, weights, str(device), dict(config or {}), inputs, seed, shapes, layers, expose, steps,
                       max_memory)


__all__ = ["diff"]
