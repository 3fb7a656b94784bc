"""`irexec generate FOLDER --image PIXELS.npy`: greedy decoding with a LLaVA-style VLM export."""

from __future__ import annotations

import click

from ..base.errors import IRExecError, UsageError
from .base import fail


def generate_vision(folder: str, image_path: str | None, inputs_path: str | None, prompt: str | None,
                    prompt_file: str | None, max_new_tokens: int, output_path: str | None, eos_token_id: int | None,
                    compare_path: str | None, profile: bool, report_path: str | None, max_memory: int | None,
                    follow_symlinks: bool | None) -> None:
    import time

    from ..api.vision_language import VisionLanguageModel, open_vision_language_folder
    from ..system.tensorfile import load_npy, load_npz
    from .generate_io import _latency_table, _load_tokens, close_generation
    from .generate_text import _read_text, _record
    from .paths import require_inputs, require_outputs

    started = time.perf_counter()
    follow = follow_symlinks or None
    try:
        if image_path is None:
            raise UsageError(f"{folder} is a VLM export: it needs --image PIXELS.npy, the image processor's pixel_values",
                             code="bad-prompt")
        if sum(x is not None for x in (prompt, prompt_file, inputs_path)) != 1:
            raise UsageError("a VLM export folder needs exactly one of --prompt TEXT, --prompt-file FILE or --inputs "
                             "PROMPT.npz (input_ids with the image tokens in place)", code="bad-prompt")
        require_inputs((image_path, "pixel values file"), (prompt_file, "prompt file"), (inputs_path, "inputs file"),
                       (compare_path, "reference file"))
        require_outputs(output_path, report_path)
        export = open_vision_language_folder(folder, follow_symlinks=follow)
        pixel_values = load_npy(image_path, max_memory, follow_symlinks=follow, what="pixel values file")
        expected_tokens = expected_text = None
        if compare_path is not None:
            if compare_path.endswith(".npy"):
                expected_tokens = _load_tokens(compare_path, max_memory, follow)
            else:
                expected_text = _read_text(compare_path, "reference file", follow)
        vlm = VisionLanguageModel(export, max_memory, follow)
        features = vlm.image_features(pixel_values)
        if inputs_path is not None:
            feeds = load_npz(inputs_path, max_memory, follow_symlinks=follow)
        else:
            text = prompt if prompt is not None else _read_text(prompt_file, "prompt file", follow)  # type: ignore[arg-type]
            feeds = vlm.prompt_ids(text, features.shape[0], features.shape[1])
        load_seconds = time.perf_counter() - started
        eos = [eos_token_id] if eos_token_id is not None else export.eos_token_ids
        result = vlm.generate(feeds, pixel_values, max_new_tokens, eos_token_id=eos or None, features=features)
        texts = vlm.text_folder().detokenize(result.new_tokens, max_memory) if export.detokenizer else None
        measured, problem, code = _record(result, texts or [], folder, inputs_path or prompt_file or "", output_path,
                                          report_path, compare_path, expected_tokens, expected_text, load_seconds,
                                          started)
    except IRExecError as e:
        fail(e)
    for row in result.new_tokens:
        click.echo(" ".join(str(int(t)) for t in row))
    for row in texts or []:
        click.echo(row)
    stop = " (stopped: the end-of-sequence token)" if result.stopped_by_eos else ""
    close_generation(f"{result.new_tokens.shape[1]} new token(s) after a prompt of {result.prompt_length} (image features included){stop}",
                     result, measured, output_path, report_path,
                     _latency_table(result.latencies, result.prompt_length) if profile else None,
                     compare_path, problem, code, expected_tokens is not None)
