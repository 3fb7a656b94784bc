"""`irexec generate`: greedy decoding with a stateful causal LM."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from ..base.errors import IRExecError
from .base import cli, fail
from .option_groups import Modes, input_options, memory_options, model_options, modes, option, output_options


def _generate_mode(params: Mapping[str, Any]) -> tuple[str, ...]:
    """What MODEL and the options given make it: a Whisper, a VLM or a text export folder, or a model file.
    MODEL's own kind is the library's (``pipeline_kind``), so the CLI opens the pipeline ``open_pipeline`` would."""
    import os

    from ..api.generate.pipelines import SPEECH, VISION, pipeline_kind

    model = params["model"]
    kind = pipeline_kind(model)
    if params["audio_path"] is not None or params["features_path"] is not None or kind == SPEECH:
        return (SPEECH,)
    if params["image_path"] is not None or kind == VISION:
        return (VISION,)
    return ("folder",) if os.path.isdir(model) else ("file",)


_PROMPTS = ("prompt", "prompt_file", "inputs_path")
# The modes speech and vision are the library's SPEECH and VISION kinds; its TEXT kind is a folder or a file.
GENERATE_MODES = Modes(
    decide=_generate_mode,
    needs={"speech": "a Whisper export folder", "vision": "a VLM export folder",
           "folder": "an export folder (openvino_model.xml and the openvino-tokenizers pair)",
           "file": "a model file (MODEL.xml)"},
    named={"speech": "{model} is taken as a Whisper export folder", "vision": "{model} is taken as a VLM export folder",
           "folder": "{model} is an export folder", "file": "{model} is a model file, whose prompt is token ids"},
    exactly_one={"speech": (("audio_path", "features_path"),), "vision": (("image_path",), _PROMPTS),
                 "folder": (_PROMPTS,), "file": (("inputs_path",),)},
    code="bad-prompt")


@cli.command()
@click.argument("model")
@input_options(inputs="npz holding input_ids [batch, tokens] and optionally the model's other prefill inputs "
                      "(attention_mask, position_ids, beam_idx, cache_position), used as given.",
               inputs_metavar="PROMPT.npz", inputs_modes=["vision", "folder", "file"], seed=False, input_shape=None)
@option("--prompt", "-p", metavar="TEXT", modes=["vision", "folder"],
        help="With an export folder: the prompt, tokenized by its openvino_tokenizer.xml.")
@option("--prompt-file", metavar="FILE", modes=["vision", "folder"],
        help="With an export folder: the prompt, read from this UTF-8 file.")
@option("--image", "image_path", metavar="PIXELS.npy", modes=["vision"],
        help="With a VLM export folder: the image processor's pixel_values [images, channels, height, width] "
             "(float; the resize and normalisation are in no IR, see docs/vision-language.md).")
@option("--audio", "audio_path", metavar="WAVE.npy", modes=["speech"],
        help="With a Whisper export folder: the 16 kHz waveform [samples] or [batch, samples], made into "
             "log-mel features as its preprocessor_config.json says.")
@option("--audio-features", "features_path", metavar="FEATURES.npy", modes=["speech"],
        help="With a Whisper export folder: the log-mel features, f32 [batch, mel bins, frames], to transcribe.")
@option("--language", metavar="LANG", modes=["speech"],
        help="With --audio-features: the language (en or <|en|>, a key of generation_config.json's lang_to_id) "
             "rather than detecting it.")
@option("--task", type=click.Choice(["transcribe", "translate"]), modes=["speech"],
        help="With --audio-features: the task token (generation_config.json's task_to_id).")
@click.option("--max-new-tokens", "-n", type=click.IntRange(min=1), required=True, help="Tokens to generate per row.")
@output_options(output="Write the prompt and the new tokens, int64 [batch, prompt + new], to this .npy (atomically).",
                output_metavar="TOKENS.npy")
@click.option("--eos-token-id", type=int, metavar="ID",
              help="Stop once every row has produced this token (a row that has is filled with it); with an export "
                   "folder, default: generation_config.json's eos_token_id.")
@click.option("--ignore-eos", is_flag=True,
              help="Generate --max-new-tokens per row whatever tokens come: no end-of-sequence token stops it "
                   "(GenAI's ignore_eos).")
@click.option("--compare", "compare_path", metavar="TOKENS.npy|TEXT.txt",
              help="Compare the tokens with this .npy, or (export folder) the generated text with this file's text; "
                   "a mismatch exits 1 naming the first difference.")
@click.option("--profile", is_flag=True, help="Print the latency of every model call: the prefill, then each decode step.")
@output_options(report="Write the tokens and the measurements as JSON (schemas/generate-report.schema.json), atomically.")
@model_options(weights="The .bin file (default: beside MODEL; a model file only).", weights_modes=["file"])
@memory_options()
@modes(GENERATE_MODES)
def generate(model: str, inputs_path: str | None, prompt: str | None, prompt_file: str | None, image_path: str | None,
             audio_path: str | None, features_path: str | None, language: str | None, task: str | None,
             max_new_tokens: int,
             output_path: str | None, eos_token_id: int | None, ignore_eos: bool, compare_path: str | None, profile: bool,
             report_path: str | None, weights: str | None, max_memory: int | None, follow_symlinks: bool | None) -> None:
    """Greedy decoding with MODEL, a stateful LM as optimum-intel exports it (a KV-cache
    transformer, an SSM such as Mamba, or a hybrid), or
    with an export folder (openvino_model.xml and the openvino-tokenizers pair): text in,
    text out, as GenAI's LLMPipeline(folder); with a LLaVA-style VLM export folder and
    --image, as GenAI's VLMPipeline(folder); or with a Whisper export folder and
    --audio-features: the start tokens, language detection and suppressed tokens of
    transformers' Whisper generate (docs/stateful.md).

    From a reset state the prompt is run once; each new token is the argmax of the
    logits at the last position, fed back as a one-token decode step with
    attention_mask, position_ids, beam_idx and cache_position built as
    optimum-intel builds them for the model's family (docs/stateful.md).
    Prints the new token ids, then time to first token, decode and overall
    tokens per second and peak memory, as GenAI's benchmark does.

    \b
    Example:
      irexec generate llm/model.xml --inputs prompt.npz --max-new-tokens 16 --output tokens.npy
      irexec generate llm/model.xml -i prompt.npz -n 16 --compare reference_tokens.npy --profile
      irexec generate llm-folder/ --prompt "The capital of France is" -n 16
      irexec generate vlm-folder/ --image pixel_values.npy --prompt "What is in the picture?" -n 16
      irexec generate whisper-folder/ --audio-features features.npy -n 32
      irexec generate whisper-folder/ --audio speech-16khz.npy -n 32
    """
    from ..api.generate.pipelines import SPEECH, TEXT, VISION
    from .generate_request import Request, check_request

    mode = GENERATE_MODES.decide(click.get_current_context().params)[0]  # the options fit it: checked before this runs
    kind = mode if mode in (SPEECH, VISION) else TEXT
    request = Request(model, max_new_tokens, output_path, eos_token_id, ignore_eos, compare_path, profile, report_path,
                      max_memory, follow_symlinks or None)
    try:
        check_request(request)
    except IRExecError as e:
        fail(e)
    if kind == SPEECH:
        from .generate_speech import generate_speech

        generate_speech(request, audio_path, features_path, language, task)
    elif kind == VISION:
        from .generate_vision import generate_vision

        generate_vision(request, image_path, inputs_path, prompt, prompt_file)  # type: ignore[arg-type]
    else:
        from .generate_text import generate_text

        generate_text(request, weights, inputs_path, prompt, prompt_file)
