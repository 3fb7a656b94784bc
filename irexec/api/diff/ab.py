"""The diffs as calls: B (a compressed or re-exported copy of A) against A, the reference,
on one input, greedy steps or a data set; and an OpenVINO device against irexec."""

from __future__ import annotations

from typing import Any

from ...base.errors import UsageError
from .feeds import by_parameter  # the inputs of every diff (feeds.py); importable from here as before


def diff_ab(a: str, b: str, a_weights: str | None, b_weights: str | None, inputs_path: str | None, seed: int,
            shapes: dict, steps: int, ablate: int = 32, max_memory: int | None = None) -> Any:
    """One diff of B against A on the given (or generated) inputs, or ``steps`` greedy decode steps;
    the top ``ablate`` weights are measured by the outputs' error with only that weight compressed.
    ``max_memory``: bytes the diff and its runs may hold together (default: $IREXEC_MAX_MEMORY or half the RAM)."""
    from ..session import Session
    from .feeds import prepared_feeds
    from .ir_side import run_ir_diff
    from .steps import greedy_steps

    sa, sb = Session(a, a_weights, max_memory), Session(b, b_weights, max_memory)
    feeds, where = prepared_feeds(sa, inputs_path, seed, shapes, max_memory)
    logits = None
    all_feeds = [feeds]
    if steps:
        for path, s in ((a, sa), (b, sb)):
            if not s.variables:
                raise UsageError(f"`steps` needs stateful models; {path} has no ReadValue/Assign variables",
                                 code="not-stateful", file=path)
        all_feeds, _, _, logits = greedy_steps(sa, feeds, steps)
    return run_ir_diff(sa, sb, all_feeds, model=a, other_model=b, inputs=where, logits=logits, ablate=ablate,
                       max_memory=max_memory)


def diff_dataset(a: str, b: str, a_weights: str | None, b_weights: str | None, directory: str, jobs: int,
                 scheduler: str | None, scheduler_timeout: float | None = None, max_memory: int | None = None,
                 ablate: int = 32, steps: int = 0) -> Any:
    """B against A over every sample in ``directory`` (each its prefill and ``steps`` greedy decode
    steps of a stateful LM); the top ``ablate`` weights measured by the outputs' error with only that
    weight compressed, and the keep-K curve over them (the best measured set of each K), which ranks them."""
    from .dataset import SCHEDULER_TIMEOUT, run_dataset

    return run_dataset(a, a_weights, b, b_weights, directory, jobs=jobs, scheduler=scheduler,
                       scheduler_timeout=SCHEDULER_TIMEOUT if scheduler_timeout is None else scheduler_timeout,
                       max_memory=max_memory, ablate=ablate, steps=steps)


def device_diff(model: str, weights: str | None, device: str, config: dict[str, str], inputs_path: str | None,
                seed: int, shapes: dict, layers: str, k: int, steps: int, max_memory: int | None = None,
                extract: str | None = None, suggest: bool = False) -> Any:
    """``irexec diff MODEL --device DEVICE`` as a call (what the command line runs); ``extract``: a folder
    to write the first kernel origin's reproducer to (extract.py); ``suggest``: try the settings that change
    numbers (suggest.py)."""
    from ..session import Session
    from .core import run_diff
    from .device import DeviceSide, import_openvino
    from .feeds import prepared_feeds
    from .reference import ReferenceSide
    from .steps import greedy_steps

    import_openvino()
    session = Session(model, weights, max_memory)
    feeds, where = prepared_feeds(session, inputs_path, seed, shapes, max_memory)
    logits, all_feeds = None, [feeds]
    if steps:
        if not session.variables:
            raise UsageError(f"`steps` needs a stateful model; {model} has no ReadValue/Assign variables",
                             code="not-stateful", file=model)
        all_feeds, _, _, logits = greedy_steps(session, feeds, steps)
    ref, other = ReferenceSide(session), DeviceSide(model, weights, device, config)
    report = run_diff(ref, other, all_feeds, mode=layers, k=k, model=model, inputs=where, config=config, logits=logits)
    if suggest:
        from .core import budgets
        from .suggest import suggest_settings

        ref_history, _ = ref.run(all_feeds)
        report.suggestion = suggest_settings(ref, other, all_feeds, ref_history, budgets(ref, other.slack_units))
    if extract:
        from .extract import extract_reproducer

        written = extract_reproducer(report, ref, other, all_feeds, extract)
        report.notes.append(f"the reproducer of {report.finding.name} is in {written}" if written and report.finding
                            else f"no kernel origin: nothing was extracted to {extract}")
    return report


__all__ = ["by_parameter", "device_diff", "diff_ab", "diff_dataset"]
