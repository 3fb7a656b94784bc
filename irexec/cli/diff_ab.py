"""`irexec diff A.xml B.xml`: B (a compressed or re-exported copy) against A, the reference."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError


def diff_ab(a: str, b: str, a_weights: str | None, b_weights: str | None, inputs_path: str | None, seed: int,
            shapes: dict, steps: int) -> Any:
    """One diff of B against A on the given (or generated) inputs, or ``steps`` greedy decode steps."""
    from ..diff.ir_side import run_ir_diff
    from ..diff.steps import greedy_steps
    from ..random_inputs import plan_inputs, random_inputs
    from ..session import Session
    from ..tensorfile import load_npz
    from .diff_cmd import _by_parameter
    from .paths import require_inputs

    require_inputs((a, "model file"), (b, "model file"), (a_weights, "weights file"), (inputs_path, "inputs file"))
    sa, sb = Session(a, a_weights), Session(b, b_weights)
    if inputs_path:
        feeds, where = _by_parameter(sa, load_npz(inputs_path)), inputs_path
    else:
        feeds = random_inputs(sa.model, seed, plans=plan_inputs(sa.model, shapes, {}))
        where = f"random (seed {seed})"
    logits = None
    all_feeds = [feeds]
    if steps:
        for path, s in ((a, sa), (b, sb)):
            if not s.variables:
                raise UsageError(f"--steps needs stateful models; {path} has no ReadValue/Assign variables",
                                 code="not-stateful", file=path)
        all_feeds, _, _, logits = greedy_steps(sa, feeds, steps)
    return run_ir_diff(sa, sb, all_feeds, model=a, other_model=b, inputs=where, logits=logits)


def diff_dataset(a: str, b: str, a_weights: str | None, b_weights: str | None, directory: str, jobs: int,
                 scheduler: str | None) -> Any:
    from ..diff.dataset import run_dataset
    from .paths import require_inputs

    require_inputs((a, "model file"), (b, "model file"), (a_weights, "weights file"))
    return run_dataset(a, a_weights, b, b_weights, directory, jobs=jobs, scheduler=scheduler)


def render_dataset(summary: Any, top: int) -> str:
    from ..report.tables import render_table

    d = summary.as_dict()
    lines = [f"{len(d['samples'])} sample(s), run by {d['runner']}"]
    for name, s in d["outputs"].items():
        lines.append(f"output {name}: rel L2 mean {s['mean_rel_l2']:.3g}, p95 {s['p95_rel_l2']:.3g}, "
                     f"max {s['max_rel_l2']:.3g}")
    layers = sorted(d["layers"].items(), key=lambda kv: (-kv[1]["origin_count"], -float(kv[1]["p95_rel_l2"])))
    shown = layers[:top] if top else layers
    lines.append(f"layers ({len(layers)}), by how often each is an origin, then p95 rel L2:")
    lines.append(render_table(["layer", "origin in", "mean rel L2", "p95 rel L2", "max rel L2", "max abs err"],
                              [[k, f"{s['origin_count']}/{s['samples']}", f"{s['mean_rel_l2']:.3g}",
                                f"{s['p95_rel_l2']:.3g}", f"{s['max_rel_l2']:.3g}", f"{s['max_abs_error']:.3g}"]
                               for k, s in shown]))
    weights = list(d["weights"].items())
    if weights:
        lines.append("compressed weights by the layer's own mean rel L2 over the samples:")
        lines.append(render_table(["#", "layer", "mean", "p95", "max"],
                                  [[str(i + 1), k, f"{s['mean_rel_l2']:.3g}", f"{s['p95_rel_l2']:.3g}",
                                    f"{s['max_rel_l2']:.3g}"] for i, (k, s) in enumerate(weights[:top or None])]))
        from ..diff.weights import _scope_text

        lines.append(_scope_text([k for k, _ in weights[:5]]))
    return "\n".join(lines)
