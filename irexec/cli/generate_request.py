"""What `irexec generate` was asked: the options every form shares."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Request:
    model: str
    max_new_tokens: int
    output_path: str | None
    eos_token_id: int | None
    ignore_eos: bool
    compare_path: str | None
    profile: bool
    report_path: str | None
    max_memory: int | None
    follow_symlinks: bool | None  # None: $IREXEC_FOLLOW_SYMLINKS decides


def check_request(request: Request) -> None:
    """The library's own check of the end-of-sequence options; which prompt options fit MODEL the
    command's modes decide (GENERATE_MODES in cli/generate_cmd.py) before it runs."""
    from ..api.generate.pipelines import end_ids

    end_ids(request.max_new_tokens, request.eos_token_id, request.ignore_eos, request.model)
