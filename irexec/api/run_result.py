"""What one ``Session.run`` produced: outputs, feeds, profile and timings."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..base.errors import Diagnostic
from ..ir.records import Layer
from .profile import ProfileReport


@dataclass
class RunReport:
    """What one ``Session.run`` produced."""

    outputs: dict[str, np.ndarray]
    inputs: dict[str, np.ndarray]  # the feeds used (generated ones included)
    generated_inputs: bool = False
    stopped_at: Layer | None = None
    profile: ProfileReport | None = None
    dump_dir: str | None = None
    # output shapes that disagree with the file's <dim>s (the run does not depend on them)
    warnings: list[Diagnostic] = field(default_factory=list)
    # wall time of each timed run, in seconds (warm-up runs excluded)
    latencies: list[float] = field(default_factory=list)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.outputs[name]

    def __repr__(self) -> str:
        """One line per output (dtype, shape, range), not the arrays."""
        from ..base.shapes import format_shape

        def brief(a: np.ndarray) -> str:
            text = f"{a.dtype}{format_shape(a.shape)}"
            if a.size and a.dtype.kind in "iufb":
                text += f" in [{a.min()}, {a.max()}]"
            return text

        lines = [f"RunReport: {len(self.outputs)} output(s)" + (" from generated inputs" if self.generated_inputs else "")
                 + (f", stopped at {self.stopped_at.name!r}" if self.stopped_at is not None else "")
                 + (f", {len(self.latencies)} timed run(s)" if len(self.latencies) > 1 else "")]
        lines += [f"  [{name!r}] {brief(np.asarray(a))}" for name, a in self.outputs.items()]
        return "\n".join(lines)
